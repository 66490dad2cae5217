#pragma once
// The layer-wise search of seed 000 §5.1-§5.2: each node of a DAG gets one of the three types so
// that the sum of per-node costs is minimal, where a node's cost depends on its own type and on its
// inputs' types (eq. 9: E_cp(t) + E_cm(tt, t)).
//
// Contract: on a chain this is exactly eq. 9 with back-tracking. On any DAG it is exact too: the
// nodes are visited in topological order and the DP state is the types of the "frontier" (nodes
// already typed whose outputs are still consumed later); a node leaves the state once its last
// consumer is typed. Series-parallel graphs (ResNet blocks, Inception modules) keep the frontier as
// small as the number of parallel paths, which is the §5.2 / Fig. 4 enumeration of the fork's and
// the join's states; a non-series-parallel DAG is solved exactly as well, at a cost of
// 3^(frontier width) states per step. Width above kMaxFrontier is refused with an Error.

#include <functional>
#include <vector>

#include "sim/planners/accpar/problem.hpp"

namespace partsim::accpar {

inline constexpr int kMaxFrontier = 12;

/// cost(node, its type, its inputs' types in input order) in any additive unit.
using NodeCost = std::function<double(int node, Type type, const std::vector<Type>& input_types)>;

/// Allowed types per node (non-empty).
using Allowed = std::vector<std::vector<Type>>;

/// The minimum-cost typing (ties resolve to the earlier type in Allowed order).
std::vector<Type> search_types(const Problem& problem, const Allowed& allowed, const NodeCost& cost);

/// Sum of cost over all nodes for a given typing.
double typing_cost(const Problem& problem, const std::vector<Type>& types, const NodeCost& cost);

/// Enumerates all typings (3^N): for tests only.
std::vector<Type> brute_force_types(const Problem& problem, const Allowed& allowed, const NodeCost& cost);

}  // namespace partsim::accpar
