#pragma once
// A collective as a schedule of point-to-point steps: who sends how many bytes to whom, in which
// step. One definition, two evaluators (DESIGN.md principle 1): evaluate() below sums the steps in
// closed form; the SimGrid replay (sim/replay) executes exactly these transfers.
//
// Step semantics (both evaluators): the steps run one after the other; all transfers of step k start
// together when every transfer of step k-1 has finished (a barrier). In uniform collectives (torus
// axes) every device finishes a step at the same time, so the barrier costs nothing; it makes the
// closed form a sum of independent steps, so a gap between the evaluators is within-step contention.
//
// Step rule (the closed form of one step). Seed 003 §II-D: "we group simultaneous data-transfers into
// a data-transfer group and compute the amount of data carried by each link for that group. The total
// time is determined by the link which is the slowest." With load(l) the bytes of the step's
// transfers that cross link l, lat(t) the latency of t's route and B_t its slowest link:
//   step time = max( max over transfers t of [ lat(t) + bytes(t) / B_t ],
//                    max over links l of [ min over t through l of lat(t) + load(l) / B(l) ] ).
// The second term is the seed's slowest link, busy from the moment the first transfer through it
// starts sending (SimGrid charges a route's latency before its bytes, and a shared link is work-
// conserving). Without shared links it is the textbook max_t (lat_t + bytes_t / B_t); for transfers
// that share links symmetrically (same latency, equal loads) it is exact under max-min sharing.

#include <utility>
#include <vector>

#include "sim/collectives/kind.hpp"
#include "topology/topology_graph.hpp"

namespace partsim::collectives {

struct Transfer {
  int src = 0;       // device index (device schedule) or TopologyGraph node id (node schedule)
  int dst = 0;
  double bytes = 0;
  int step = 0;
  int origin = -1;   // node schedule: index of the device-schedule transfer this is a part of
};

struct Schedule {
  std::vector<Transfer> transfers;  // in step order
  int step_count = 0;
  bool on_nodes = false;  // false: src/dst are device indices; true: node ids of a TopologyGraph
  /// Time every step pays before its transfers start, s: the platform's per-message endpoint overhead
  /// (system.collectives.endpoint_overhead; 0 by default). Both evaluators charge it per step.
  double step_overhead_s = 0;
  /// Time the collective pays once, before its first step: the chosen protocol's per-call latency
  /// (CollectiveProtocol::base_latency; 0 by default). Both evaluators charge it.
  double start_overhead_s = 0;
  /// Which collective this is (build_schedule and collective_schedule name it; a schedule built by
  /// hand is unnamed unless its builder says): lowering::add_collective gives it to the Program.
  Identity what;

  /// An empty schedule of the collective `what` (a builder's start when it derives one from another).
  static Schedule of(Identity what) {
    Schedule s;
    s.what = std::move(what);
    return s;
  }
  void add(int src, int dst, double bytes, int step, int origin = -1);
};

/// Two schedules run at once, step by step: step k of the result is step k of `a` and step k of `b`
/// (the longer one goes on alone). Both must be device schedules or both node schedules. The result is
/// the collective both are when they are the same one, else unnamed.
Schedule merge(const Schedule& a, const Schedule& b);

/// Maps a device schedule onto the graph's endpoint nodes. At chip granularity device d is its node.
/// At core granularity a transfer between template chips of C cores is split into C parts of
/// bytes / C, core c to core c (the chip's payload is spread evenly over its cores; a roofline device
/// is one node and takes part in every core's share). Each part records its `origin` (the index of the
/// device transfer) and keeps its step.
Schedule lower_to_nodes(const Schedule& device_schedule, const topology::TopologyGraph& graph);

/// Closed-form time of a node schedule: start_overhead_s plus the sum over steps of the step rule (s).
double evaluate(const Schedule& node_schedule, const topology::TopologyGraph& graph);

/// Per step, the step rule's time (s).
std::vector<double> step_times(const Schedule& node_schedule, const topology::TopologyGraph& graph);

}  // namespace partsim::collectives
