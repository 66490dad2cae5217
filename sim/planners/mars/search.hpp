#pragma once
// The MARS mapping search (seed 004 §V, Fig. 3) and the baseline of §VI-A.
//
// First level (a genetic algorithm over whole mappings): an individual holds one gene per AccSet
// candidate (acc_sets.hpp), a gene for how many sets, per set slot one gene per design (initialised
// from the designs' profiled performance on the workload, normalised, so the faster designs are
// likelier at first) and the cut points that divide the convolution/FC layers into contiguous layer
// sets. Decoding takes the candidates of highest gene that do not overlap, up to the set count, each
// with the design of highest gene, and gives the k-th set the k-th run of layers. Fitness: the
// mapping's latency (latency_model.hpp), each set's part from the second level.
// Second level (one GA per set, design and layer run, memoised): per convolution/FC layer the genes
// of layer_strategy.hpp; fitness the set's latency; one initial individual is seeded with each
// layer's fastest strategy on its own, a second by a forward greedy that also charges each layer's
// redistribution from the strategies chosen before it (our heuristics). Both levels keep their best individual
// (elitism), pick parents by binary tournaments, cross over uniformly and mutate each gene with the
// option's rate; the result is never worse than the best of the initial population.
// Layers between two convolution/FC layers (activations, pooling, normalisation, additions) take
// the ES of the convolution/FC layer before them (after them at the start of a set), without SS.
//
// Contract: deterministic for a seed (std::mt19937_64 and our own uniform draw, so the same on every
// standard library); costs in seconds.

#include <cstdint>
#include <string>
#include <vector>

#include "sim/planners/mars/latency_model.hpp"

namespace partsim::mars {

struct SearchOptions {
  int population = 16;
  int generations = 20;
  double mutation = 0.1;
  int inner_population = 12;
  int inner_generations = 15;
  double inner_mutation = 0.1;
  int max_sets = 4;
  std::uint64_t seed = 1;
};

/// One accelerator set of a mapping with its design and layers [first, last] (workload order).
struct SetMapping {
  int set = 0;      // index into LatencyModel::sets()
  int design = 0;   // index into LatencyModel::designs()
  std::size_t first = 0, last = 0;
  std::vector<LayerStrategy> strategies;  // per layer first..last
  double latency_s = 0;                   // the set's own latency (layers and redistributions)
};

struct Mapping {
  std::vector<SetMapping> sets;
  double latency_s = 0;  // sets plus transfers between them
  double transfers_s = 0;
};

/// Fills SetMapping::latency_s and returns the set's latency (infinity when it does not fit DRAM).
double set_latency(const LatencyModel& model, SetMapping& set);
/// The latency of a whole mapping (fills latency_s and transfers_s of it and its sets).
double mapping_latency(const LatencyModel& model, Mapping& mapping);

/// Per layer of [first, last]: the strategy of each convolution/FC layer from `primary` (one per
/// such layer in order), the others inheriting theirs (module comment).
std::vector<LayerStrategy> expand_strategies(const LatencyModel& model, std::size_t first, std::size_t last,
                                             const std::vector<LayerStrategy>& primary);

struct SearchTrace {
  std::vector<double> best_per_generation;  // first level, after each generation (index 0: initial)
  double initial_best_s = 0;
  long long evaluations = 0;                // first-level mappings evaluated
};

Mapping search(const LatencyModel& model, const SearchOptions& options, SearchTrace* trace = nullptr);

/// §VI-A baseline: the first two disjoint sets after the whole system (f1: the two groups), half the
/// convolution/FC layers each, each set's fastest design on its layers, every layer ES along its two
/// longest dimensions.
Mapping baseline(const LatencyModel& model);

}  // namespace partsim::mars
