#pragma once
// A collective as a schedule of point-to-point steps: who sends how many bytes to whom, in which
// step. One definition, two evaluators (DESIGN.md principle 1): evaluate() below sums the steps in
// closed form; the SimGrid replay (sim/replay) executes exactly these transfers.
//
// Dependency rule (both evaluators): a transfer of step k sent by node s starts when every transfer
// that s sent or received in the latest earlier step in which s took part has finished; a node's
// first transfer starts at time 0. (A device forwards what it received and its port is free.)
//
// Step rule (the closed form of one step; seed 003 §II-D: "we group simultaneous data-transfers into
// a data-transfer group and compute the amount of data carried by each link for that group. The total
// time is determined by the link which is the slowest."): with load(l) the bytes of the step's
// transfers that cross link l,
//   step time = max over transfers t of [ latency(route t) + max over l in route t of load(l) / B(l) ].
// Without shared links this is max_t (L_t + bytes_t / B_t), the textbook form; the schedule time is
// the sum of its step times.

#include <vector>

#include "topology/topology_graph.hpp"

namespace partsim::collectives {

struct Transfer {
  int src = 0;       // device index (device schedule) or TopologyGraph node id (node schedule)
  int dst = 0;
  double bytes = 0;
  int step = 0;
};

struct Schedule {
  std::vector<Transfer> transfers;  // in step order
  int step_count = 0;
  bool on_nodes = false;  // false: src/dst are device indices; true: node ids of a TopologyGraph

  void add(int src, int dst, double bytes, int step);
};

/// For every transfer, the transfers it waits for (dependency rule above).
std::vector<std::vector<int>> dependencies(const Schedule& schedule);

/// Maps a device schedule onto the graph's endpoint nodes. At chip granularity device d is its node.
/// At core granularity a transfer between template chips of C cores is split into C transfers of
/// bytes / C, core c to core c (the chip's payload is spread evenly over its cores; a roofline device
/// is one node and takes part in every core's share).
Schedule lower_to_nodes(const Schedule& device_schedule, const topology::TopologyGraph& graph);

/// Closed-form time of a node schedule: the sum over steps of the step rule (s).
double evaluate(const Schedule& node_schedule, const topology::TopologyGraph& graph);

/// Per step, the step rule's time (s).
std::vector<double> step_times(const Schedule& node_schedule, const topology::TopologyGraph& graph);

}  // namespace partsim::collectives
