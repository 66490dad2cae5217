#pragma once
// The constraints of seed 002 eq. 5 on a placement f (one chip per node), checked with precise
// messages:
// - eq. 2 acyclic dataflow: f(u) <= f(v) for every edge (u, v): the ring's links only carry data
//   from a chip to higher chips;
// - eq. 3 no skipped chip: the chips used are 0..k for some k;
// - eq. 4 chip triangle dependency: on the chip graph (an edge a -> b when some tensor goes from a
//   node on a to a node on b != a), every direct dependency a -> b is the chip graph's longest path
//   from a to b, delta(a, b) = 1: no path a -> c -> ... -> b besides it;
// - H(G, f), the dynamic constraint: each chip's peak memory under the execution order of our
//   scheduler fits its SRAM. Our scheduler runs a chip's nodes in the graph's topological order;
//   a chip holds its nodes' weights all the time (weight-stationary pipelining) and every tensor it
//   produces or receives from its production (or the step of its first local consumer, for a
//   received one) to the step of its last local consumer (a produced tensor no local node reads is
//   held at its production step only, while it is sent).
//
// Contract: pure; a placement has one chip in [0, C) per node (else InputError).

#include <string>
#include <vector>

#include "sim/planners/mcm/problem.hpp"

namespace partsim::mcm {

enum class ConstraintKind { acyclic_dataflow, skipped_chip, triangle_dependency, memory };
std::string to_string(ConstraintKind kind);  // "acyclic dataflow (eq. 2)", ...

struct Violation {
  ConstraintKind kind;
  std::string message;  // names the nodes, chips and sizes involved
};

/// A chip's memory under the scheduler above.
struct ChipMemory {
  double weights_bytes = 0;
  double peak_activation_bytes = 0;   // largest sum of live tensors at one step
  std::string peak_node;              // the node whose step reaches it ("" when the chip is empty)
  double peak_bytes() const { return weights_bytes + peak_activation_bytes; }
};

/// Throws InputError when the placement has the wrong length or a chip outside [0, C).
void check_shape(const PlacementProblem& problem, const Placement& placement);

/// Violations of eq. 2-4, at most `limit` of them (all when limit = 0), in the order above.
std::vector<Violation> static_violations(const PlacementProblem& problem, const Placement& placement,
                                         std::size_t limit = 0);

/// Memory of every chip (C entries).
std::vector<ChipMemory> chip_memory(const PlacementProblem& problem, const Placement& placement);

/// Chips whose peak exceeds the SRAM, as violations.
std::vector<Violation> memory_violations(const PlacementProblem& problem, const Placement& placement);

/// Every violation (static first, then memory); empty = a valid placement.
std::vector<Violation> violations(const PlacementProblem& problem, const Placement& placement);

/// Throws InputError, prefixed with `where` (a plan file's JSON path, a command-line option), when the
/// placement has the wrong shape (check_shape) or breaks eq. 2-4 or H: the first violation and how
/// many more.
void check_valid(const PlacementProblem& problem, const Placement& placement, const std::string& where);
bool is_valid(const PlacementProblem& problem, const Placement& placement);

/// delta of eq. 4: the longest path (in chip-graph edges) from chip a to chip b on the chip graph
/// of `placement`; -1 when b is not reachable from a; 0 when a == b. C x C.
std::vector<std::vector<int>> chip_longest_paths(const PlacementProblem& problem, const Placement& placement);

}  // namespace partsim::mcm
