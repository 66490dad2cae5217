#pragma once
// The constraint solver of seed 002 §4.2 on Gecode: one integer variable y_u in [0, C) per node,
// with the static constraints of eq. 2-4 (constraints.hpp) posted as propagators:
// - eq. 2: y_u <= y_v per edge (Gecode rel);
// - eq. 3: the used chips are 0..max(y): our own propagator (solver.cpp, NoSkippedChip), a
//   matching of chips 0..c to distinct nodes on the domains' bounds (fails when the chips up to the
//   largest lower bound cannot all be used, caps every node at the largest chip that can) and unit
//   propagation on the domains. Not Gecode's nvalues: in Gecode 6.2 its pruning reads memory it
//   never wrote, so it depended on what earlier spaces left behind (solver.cpp);
// - eq. 4: our own Gecode propagator (solver.cpp, TriangleDependency): it builds the chip graph of
//   the edges whose two ends are assigned, fails when a direct dependency a -> b has a longer path,
//   and prunes chip b from a consumer whose producer sits on a when a -> b already has a path of
//   two or more links (and the same backwards), and, once both ends of an edge u -> v are placed,
//   every chip strictly between them from the nodes on another path from u to v;
// - optionally (weights_fit, default on) a necessary part of H(G, f): each chip's weights fit its
//   SRAM (Gecode binpacking, in KiB rounded down so it never cuts a valid placement). The rest of
//   H (tensors' peak) is checked on the finished placement (constraints.hpp), as the paper does for
//   its dynamic constraint.
//
// get_domain(u) returns y_u's current domain; set_domain(u, D) restricts it and propagates; on a
// failure it undoes the decision, removes D from y_u's domain at the previous state and propagates
// again, going back further while that fails. It returns the number of decisions in force, the
// loop index of Algorithms 1 and 2 (i + 1, or less after backtracking). A copy of the Gecode space
// is kept per decision for the undo.
//
// Algorithms 1 (SAMPLE) and 2 (FIX) take a node order and a distribution / candidate placement.
// Infeasible instances: when the constraints fail with no decision left to undo, InfeasibleError.
// Chronological backtracking can thrash after an early bad decision (36 chips, eq. 4 only decided
// once both ends of an edge are placed), so SAMPLE and FIX restart from the root with a new random
// node order after `restart_failures` backtracks (a random restart: every placement is still
// checked by the same propagators). A solve that needs more than `max_failures` backtracks in all
// throws SolverLimitError.

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "sim/common/error.hpp"
#include "sim/planners/mcm/problem.hpp"

namespace partsim::mcm {

/// The constraints admit no placement at all.
class InfeasibleError : public InputError {
 public:
  using InputError::InputError;
};

/// The search gave up after its failure budget.
class SolverLimitError : public Error {
 public:
  using Error::Error;
};

struct SolverOptions {
  bool weights_fit = true;          // post the weights-in-SRAM bin packing (part of H)
  long long restart_failures = 20;  // backtracks before SAMPLE/FIX restart with a new random node order
  long long max_failures = 100000;  // backtracks per solve, restarts included, before SolverLimitError
};

/// Thrown by set_domain when an attempt used its restart_failures; solve_sample/solve_fix catch it.
struct SolverRestart {};

class PlacementSpace;  // the Gecode space (solver.cpp)
/// Per edge, the nodes on another path between its ends (solver.cpp).
using Bypassed = std::vector<std::vector<int>>;

class PlacementSolver {
 public:
  PlacementSolver(const PlacementProblem& problem, SolverOptions options = {});
  ~PlacementSolver();
  PlacementSolver(const PlacementSolver&) = delete;
  PlacementSolver& operator=(const PlacementSolver&) = delete;

  /// The chips still allowed for node u, ascending.
  std::vector<int> get_domain(int u) const;
  /// Restricts y_u to `domain` (values outside [0, C) are ignored) and propagates; returns the
  /// number of decisions in force after it (backtracking as the file comment says).
  int set_domain(int u, const std::vector<int>& domain);
  /// Every node assigned (the placement is then complete).
  bool assigned() const;
  /// The placement (all nodes must be assigned).
  Placement placement() const;
  /// The node decided by decision k (0-based) of the decisions in force.
  int decided_node(int k) const { return decisions_.at(static_cast<std::size_t>(k)); }
  int decisions() const { return static_cast<int>(decisions_.size()); }
  long long failures() const { return failures_; }
  /// Backtracks since the last begin_solve(), over all restarts.
  long long total_failures() const { return total_failures_; }
  int restarts() const { return restarts_; }
  /// Starts a solve: no decisions, failure counts 0.
  void begin_solve();
  /// Back to the root state (no decisions), keeping the problem's propagators.
  void reset();

 private:
  const PlacementProblem& problem_;
  SolverOptions options_;
  Bypassed bypassed_;                                    // read by the spaces' eq. 4 propagator
  std::unique_ptr<PlacementSpace> root_;                 // the constraints alone, never changed
  std::vector<std::unique_ptr<PlacementSpace>> stack_;  // stack_[k]: state after k decisions
  std::vector<int> decisions_;                           // node of each decision
  std::vector<std::vector<int>> domains_;                // the domain each decision set
  long long failures_ = 0;        // this attempt
  long long total_failures_ = 0;  // this solve
  int restarts_ = 0;
};

/// A node order for the solver: a uniformly random permutation (the paper's default).
std::vector<int> random_order(int nodes, std::mt19937_64& rng);

/// Per node a distribution over the C chips (rows sum to 1; zero rows mean uniform).
using Distribution = std::vector<std::vector<double>>;

/// Algorithm 1 (SAMPLE): in `order`, draw y_u from p_u restricted to the current domain.
/// After a restart the order is a new random one.
Placement solve_sample(PlacementSolver& solver, const std::vector<int>& order, const Distribution& p,
                       std::mt19937_64& rng);

/// Algorithm 2 (FIX): first pass keeps y_u where it is in the domain (else leaves the domain as it
/// is), second pass draws the nodes still open uniformly from their domains.
Placement solve_fix(PlacementSolver& solver, const std::vector<int>& order, const Placement& candidate,
                    std::mt19937_64& rng);

/// A draw from `weights` (non-negative, not all zero; all zero = uniform) with our own arithmetic
/// (std distributions differ between standard libraries). Returns an index into `weights`.
std::size_t draw_index(const std::vector<double>& weights, std::mt19937_64& rng);

}  // namespace partsim::mcm
