#pragma once
// Binding a Program's Endpoints to a TopologyGraph: which graph node an endpoint is, and the
// uncontended time of a transfer on the graph's routes (the closed-form evaluator's TransferTime).
// Both evaluators use these, so they place every task on the same node and route.

#include "sim/program/closed_form.hpp"
#include "topology/topology_graph.hpp"

namespace partsim::program {

/// The graph node of `endpoint`: the memory node (Endpoint::memory; Error if the graph has none,
/// i.e. at chip granularity), core `core` of the device (core -1 or chip granularity: the device's
/// node, core 0 at core granularity). Throws Error for a device or core the graph does not have.
int node_of(const topology::TopologyGraph& graph, const Endpoint& endpoint);

/// latency of the route + bytes / its slowest link; 0 when both endpoints are the same node.
TransferTime uncontended_transfer_time(const topology::TopologyGraph& graph);

}  // namespace partsim::program
