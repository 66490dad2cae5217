#pragma once
// DeepSpatialMatrix's per-pass search (seed 003 §II-E): for one pass of one layer cut to its spatial
// minibatch, in one ChipD, the best CoreD (factors over in, out, ij, kij, mb whose product is the
// cores per chip) x ArrayD (factors over the PE arrays of a core), by enumeration. Internal to the
// search; search.hpp is the public header.
//
// Contract: best_pass() is deterministic: of equal costs the earlier enumerated configuration wins
// (the order of factorizations()). Times are seconds.

#include <limits>
#include <map>
#include <vector>

#include "sim/common/integer_math.hpp"
#include "sim/planners/dsm/layer_model.hpp"
#include "sim/planners/dsm/search.hpp"

namespace partsim::dsm::detail {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

/// factorizations(n) per n, computed on first use; owned by one search object (no hidden global).
class FactorizationCache {
 public:
  const std::vector<Split5>& of(int n);

 private:
  std::map<int, std::vector<Split5>> by_n_;
};

/// The passes of a layer in execution order: with memory reuse UPD runs before BWD (§III-B
/// "BWD/UPD sequence"), so the error the next layer left in the scratchpad serves both.
std::vector<Pass> passes_of(const DsmLayer& layer, const DsmOptions& options);

/// One configuration's cost for a pass: the first iteration and every later one (timesteps, DySM).
struct PassEval {
  CoreConfig config;
  PassCost first;
  PassCost rest;
  bool weight_reuse = false;
  long long fresh_iterations = 1;  // iterations costing `first`: one per LSTM direction
  double total = kInf;
};

/// A pass's choice as the search found it: its best configuration, costs and weight reuse.
PassChoice choice_of(Pass pass, const PassEval& eval, long long iterations);

/// Best CoreD x ArrayD for one pass of a layer already cut to its spatial minibatch, over
/// `iterations` iterations (LSTM weights held across them when `allow_weight_reuse` and a core's
/// kernel tile fits `weight_budget` bytes); with `producer_layout`, only CoreDs whose layout matches
/// it for memory reuse (reuse_layouts_match); with `in_place`, only CoreDs splitting mb and ij.
PassEval best_pass(const DsmLayer& layer, Pass pass, ChipSplit split, long long iterations, const PassFlags& base,
                   bool allow_weight_reuse, double weight_budget, const DsmSystem& system,
                   FactorizationCache& factorizations, const Split5* producer_layout = nullptr,
                   bool in_place = false);

/// UPD's gradient reduction and weight broadcast for `split` (once per iteration of the network).
double gradient_time(const DsmLayer& layer, ChipSplit split, const DsmSystem& system);

}  // namespace partsim::dsm::detail
