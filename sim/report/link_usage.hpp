#pragma once
// Per-link traffic of an evaluated Program: which transfers crossed which directed link of the
// TopologyGraph, how many bytes each link carried, and for what fraction of the iteration it was
// busy. Evaluator-independent: it reads the transfers' [start, finish) from any Evaluation (the
// SimGrid replay for the report; the closed form works too) and their routes from the graph.
//
// Contract:
// - A transfer's route is graph.route(node_of(src), node_of(dst)) (sim/program/platform_binding.hpp),
//   the same route both evaluators use. A transfer whose endpoints are the same node crosses no link.
// - A link is busy while at least one transfer crossing it is in flight: busy time is the measure
//   of the UNION of the [start, finish) intervals of those transfers (overlapping transfers count
//   once), so busy_fraction <= 1 whereas utilization (bytes / (bandwidth x makespan)) measures how
//   much of the link's capacity was used.
// - O(T log T + sum of route lengths) time for T transfers and O(T + links) memory: routes are
//   computed once per node pair; transfers are sorted once by start and every link merges its
//   union while they are walked in that order.

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "sim/program/evaluation.hpp"
#include "sim/program/platform_binding.hpp"
#include "sim/report/report.hpp"
#include "topology/topology_graph.hpp"

namespace partsim::report {

/// The route of every transfer (the Program bound to the graph, sim/program/platform_binding.hpp):
/// the report reads the same resolved routes as the evaluators.
using program::TransferRoutes;

/// "chip_to_chip" | "on_chip" | "memory".
std::string to_string(topology::TopoLinkKind kind);
/// Torus links: "+x", "-y", ...; empty for other links.
std::string axis_label(const topology::TopoLink& link);
/// The link's name with its torus axis when it has one, e.g. "d0->d1 (+x)": a human label that
/// tells parallel links apart (a bidirectional dimension of size 2 has two d0->d1 links).
std::string link_label(const topology::TopoLink& link);

/// Measure of the union of half-open intervals (program/evaluation.hpp).
using program::union_length;

/// Every link that carried bytes, sorted by link id, with bytes, busy fraction and utilization
/// over `evaluation.makespan_s` (both 0 when the makespan is 0).
std::vector<LinkUsage> link_usage(const program::Program& program, const program::Evaluation& evaluation,
                                  const topology::TopologyGraph& graph);
/// Same, with routes already computed.
std::vector<LinkUsage> link_usage(const program::Program& program, const program::Evaluation& evaluation,
                                  const topology::TopologyGraph& graph, const TransferRoutes& routes);

}  // namespace partsim::report
