#pragma once
// DeepSpatialMatrix's design-space exploration (seed 003 §II-E) and its four optimizations (§III):
// per layer and pass it searches ChipD (parallelism type), CoreD (split factors over in, out, ij,
// kij, mb whose product is the cores per chip) and ArrayD (factors over the PE arrays of a core),
// and chooses across layers by dynamic programming over the chain of layers, so relayout between
// neighbours and inter-layer memory reuse are decided jointly rather than greedily.
//
// Code by the paper's sections: options.cpp (the §III option words), pass_search.* (§II-E per pass),
// chain_dp.* (§II-E dynamic programme, §III-B reuse edges), timestep_pipeline.* (§III-D),
// memory_reuse.* (§III-B scratchpad budget, weight preloading), explain.cpp, search.cpp (entry).
//
// Contract: search_network() is deterministic (ties broken towards the earlier enumerated
// configuration) and never throws for a valid network; every returned time is in seconds and the
// per-layer totals add up to iteration_s.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/planners/dsm/layer_model.hpp"
#include "sim/planners/dsm/group_chain.hpp"
#include "sim/plan/plan.hpp"

namespace partsim::dsm {

/// The switchable optimizations (`--opt hybrid,memreuse,dysm,tpipe`, `--opt none`).
struct DsmOptions {
  bool hybrid = false;    // §III-A: DataXModelY / ModelXDataY on the (asymmetric) torus
  bool memreuse = false;  // §III-B: activation/error reuse, LSTM weight reuse, inference preloading
  bool dysm = false;      // §III-C: dynamic spatial minibatching
  bool tpipe = false;     // §III-D: timestep pipelining of LSTM pipe groups
  plan::Mode mode = plan::Mode::training;
  bool preload = true;    // with memreuse in inference: weight preloading (§III-B); off = features only
  int max_dysm_factor = 64;
};

/// Parses option words: hybrid, memreuse, dysm, tpipe, all, none (comma lists accepted). An unknown
/// word is an UnknownNameError listing the valid ones.
DsmOptions parse_dsm_options(const std::vector<std::string>& words);
/// The options as plan.json lists them ("hybrid", "memreuse", ...; "none" when all are off).
std::vector<std::string> option_words(const DsmOptions& options);

/// The choice and cost of one pass of one layer.
struct PassChoice {
  Pass pass = Pass::fwd;
  CoreConfig config;
  PassCost first;               // first iteration (timestep / spatial minibatch)
  PassCost rest;                // every later iteration
  long long iterations = 1;     // N_ts * DySM factor
  /// Iterations that cost `first` (fetching the weights): the first of each LSTM direction, else 1.
  long long fresh_iterations = 1;
  /// first x fresh_iterations + rest x the other iterations, for any term of PassCost.
  double over_iterations(double first_term, double rest_term) const {
    return static_cast<double>(fresh_iterations) * first_term +
           static_cast<double>(iterations - fresh_iterations) * rest_term;
  }
  bool memory_reuse = false;    // the streamed operand comes from the scratchpad (§III-B)
  bool weight_reuse = false;    // weights / gradients held across iterations or preloaded (§III-B)
  bool preloaded = false;       // inference FWD: weights preloaded (§III-B), no FetchKer
  bool weights_held = false;    // later iterations keep the weights (FWD/BWD) or gradient (UPD)
  double grad_reduction_s = 0;  // UPD: gradient reduction + weight broadcast (once)
  double relayout_s = 0;        // chip-to-chip relayout of this pass's features
  double onchip_relayout_s = 0; // core-to-core relayout when reuse layouts differ
  double pipelined_s = -1;      // §III-D: this layer's share of its pipe group's time (else -1)
  double total_s = 0;
  /// Fig. 13 terms (they add up to total_s) and the parts of the non-overlapped term.
  std::map<std::string, double> breakdown() const;
};

struct LayerChoice {
  std::size_t group = 0;
  std::string name;
  ChipSplit split = ChipSplit::data;
  int dysm_factor = 1;
  bool reuse_in = false;        // input/error edge from the previous layer held on chip
  bool reuse_out = false;       // output/error edge to the next layer held on chip (its reuse_in)
  std::vector<PassChoice> passes;
  std::optional<int> pipe_group;
  std::vector<int> chips;       // chip indices when pipelined; empty = all chips
  double total_s = 0;
  double useful_macs = 0;       // all passes, all timesteps
};

struct DsmResult {
  std::vector<LayerChoice> layers;  // one per network group, in order
  double iteration_s = 0;
  double useful_macs = 0;
  double utilization = 0;           // useful MACs / (peak MAC/s x iteration_s)
};

DsmResult search_network(const GroupChain& network, const DsmSystem& system, const DsmOptions& options);

/// Scratchpad bytes per core kept for double-buffered streaming (two operand and two result tiles
/// of the array's minimum work P): 4 * rows * cols * simd lanes * bytes per element.
double scratchpad_reserve(const DsmSystem& system);
/// Bytes per core held when `cur` takes its input from the scratchpad (§III-B): the producer's
/// output, cur's own output and the retained short-cut tensors, for one spatial minibatch of
/// N_mb / dysm samples (§III-C). Reuse is feasible when this is <= scratchpad - reserve.
double reuse_held_bytes(const DsmLayer& prev, const DsmLayer& cur, double retained_elements, int dysm,
                        const DsmSystem& system);

/// One configuration of one layer and pass, for --explain.
struct ExplainRow {
  ChipSplit split = ChipSplit::data;
  int dysm_factor = 1;
  CoreConfig config;
  PassCost cost;            // one iteration
  long long iterations = 1;
  double grad_reduction_s = 0;
  double total_s = 0;       // all iterations + gradient reduction (no relayout, no reuse)
};
/// The `top` cheapest configurations of group `group` for `pass`: the best CoreD of every
/// (ChipD, DySM factor) pair, cheapest first, then the runners-up.
std::vector<ExplainRow> explain_layer(const GroupChain& network, std::size_t group, Pass pass,
                                      const DsmSystem& system, const DsmOptions& options, int top);

/// Every ordered 5-tuple of factors with product n (CoreD / ArrayD candidates), in a fixed order
/// (in, out, ij, kij, mb, each ascending). Computed on every call; the search keeps its own cache.
std::vector<Split5> factorizations(int n);

}  // namespace partsim::dsm
