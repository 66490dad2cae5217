#pragma once
// Binding a Program's Endpoints to a TopologyGraph: which graph node an endpoint is, the
// uncontended time of a transfer on the graph's routes (the closed-form evaluator's TransferTime),
// and a Program bound to a graph (TransferRoutes): every transfer's route resolved once, which the
// closed form, the SimGrid replay's list of routes to install and the report (link usage, diagnosis,
// timeline) share, so they place every task on the same node and route.

#include <cstddef>
#include <utility>
#include <vector>

#include "sim/program/closed_form.hpp"
#include "topology/topology_graph.hpp"

namespace partsim::program {

/// The graph node of `endpoint`: the memory node (Endpoint::memory; Error if the graph has none,
/// i.e. at chip granularity), core `core` of the device (core -1 or chip granularity: the device's
/// node, core 0 at core granularity). Throws Error for a device or core the graph does not have.
int node_of(const topology::TopologyGraph& graph, const Endpoint& endpoint);

/// latency of the route + bytes / its slowest link; 0 when both endpoints are the same node.
TransferTime uncontended_transfer_time(const topology::TopologyGraph& graph);

/// The route of every transfer of a Program on a graph, resolved once per (source node, destination
/// node) pair (a few hundred pairs even for 500k transfers), with each pair's route latency and
/// slowest link. The Program and the graph must outlive it and the Program must not grow.
class TransferRoutes {
 public:
  TransferRoutes(const Program& program, const topology::TopologyGraph& graph);

  /// Tasks of the Program it was bound to.
  std::size_t task_count() const noexcept { return pair_of_task_.size(); }
  /// Links crossed by task `task`: empty for a compute or delay task or a same-node transfer.
  const topology::Route& route(std::size_t task) const;
  /// Index of the task's (src, dst) node pair, -1 for a task that is not a transfer.
  int pair_of(std::size_t task) const { return pair_of_task_[task]; }
  std::size_t pair_count() const { return pairs_.size(); }
  const topology::Route& pair_route(std::size_t pair) const { return routes_[pair]; }
  /// (source node, destination node) of a pair.
  std::pair<int, int> pair_nodes(std::size_t pair) const { return pairs_[pair]; }
  /// Transfer task `task` of `bytes` alone on its route (s): the route's latency + bytes / its
  /// slowest link's bandwidth; 0 between endpoints on the same node. What uncontended_transfer_time
  /// gives, from the resolved route.
  double uncontended_time(std::size_t task, double bytes) const;
  /// The pairs of different nodes, sorted: the routes a replay installs.
  std::vector<std::pair<int, int>> communicating_pairs() const;

 private:
  struct Resolved {
    double latency = 0;    // s, the route's links summed
    double bandwidth = 0;  // B/s, its slowest link
  };
  std::vector<int> pair_of_task_;
  std::vector<std::pair<int, int>> pairs_;
  std::vector<topology::Route> routes_;
  std::vector<Resolved> resolved_;  // per pair; unused for a same-node pair
  topology::Route empty_;
};

}  // namespace partsim::program
