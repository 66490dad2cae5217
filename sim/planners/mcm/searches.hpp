#pragma once
// The searches of seed 002 over valid placements, each seeded and reproducible (same problem,
// options and seed: the same placements, sample for sample):
// - greedy (the baseline, "a greedy heuristic from the production compiler", §5.3; the paper does
//   not give it): nodes in topological order fill chip 0, 1, ... in one of two readings (GreedySplit):
//   `compute`, each chip up to 1/C of the total compute, moving on early when the next node's weights
//   would overflow the SRAM (a balanced pipeline); `memory`, each chip until the next node would
//   take its peak memory (weights and live tensors, H's scheduler) past its SRAM (the fewest chips,
//   a memory-driven compiler's split; no compute balance).
//   When the split breaks a constraint (eq. 4 across a residual, or H), the FIX-mode solver repairs
//   it (up to `repairs` attempts).
// - random (§5.1): uniform p(y_i = j) = 1/C, SAMPLE mode, `samples` placements, the best kept.
// - simulated annealing (§5.1): starts from the uniform distribution; every step draws a random
//   set of nodes (each node with probability `move_fraction`) and gives each a new random
//   distribution (i.i.d. uniform weights raised to `sharpness`, normalised: peaked at a random chip),
//   SAMPLE-solves it and accepts the new distribution when its placement is better, or with
//   probability exp(-(L' - L) / (T L_0)) (L latency, L_0 the first valid one), T = t0 * cooling^k.
// A sample whose placement fails H(G, f) (memory) counts as invalid: throughput 0.
//
// Contract: the reward is the analytical model's throughput (cost_model.hpp).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/common/progress.hpp"
#include "sim/planners/mcm/cost_model.hpp"
#include "sim/planners/mcm/problem.hpp"
#include "sim/planners/mcm/solver.hpp"

namespace partsim::mcm {

struct SearchResult {
  Placement best;                   // empty when no valid sample was found
  AnalyticalCost best_cost;
  int samples = 0;
  int invalid_samples = 0;          // failed H (memory)
  std::vector<double> best_throughput;  // after each sample, best valid throughput so far (1/s; 0 = none yet)
};

/// How the greedy baseline decides that a chip is full (see above).
enum class GreedySplit { compute, memory };
/// "compute" / "memory"; parse_greedy_split throws InputError naming the allowed values.
const char* to_string(GreedySplit split);
GreedySplit parse_greedy_split(const std::string& name);

struct SearchOptions {
  int samples = 200;
  std::uint64_t seed = 1;
  SolverOptions solver;
  // simulated annealing
  double t0 = 0.05;
  double cooling = 0.98;
  double move_fraction = 0.1;
  double sharpness = 8.0;
  // greedy
  int repairs = 100;
  GreedySplit split = GreedySplit::compute;
  // random and annealing: told after each sample (sim/common/progress.hpp; best_s: the best valid
  // latency so far); empty: nothing reported. Greedy does not report (a few repairs at most).
  ProgressCallback progress;
};

SearchResult greedy_search(const PlacementProblem& problem, const SearchOptions& options);
SearchResult random_search(const PlacementProblem& problem, const SearchOptions& options);
SearchResult annealing_search(const PlacementProblem& problem, const SearchOptions& options);

/// The greedy split before repair (may violate eq. 4 or H).
Placement greedy_split(const PlacementProblem& problem, GreedySplit split = GreedySplit::compute);

/// Adds one scored sample to a search's trace (samples, invalid_samples, best, best_throughput);
/// returns its analytical cost, or nothing when it is not `valid` (the caller's verdict: H alone for
/// the solver's samples, eq. 2-4 and H for mcm_rl's).
std::optional<AnalyticalCost> record_sample(const PlacementProblem& problem, const Placement& f, bool valid,
                                            SearchResult& result);

/// Tells `progress` (when set) that `result.samples` of `total` samples are scored, with the best
/// latency so far.
void report_samples(const ProgressCallback& progress, const SearchResult& result, int total);

}  // namespace partsim::mcm
