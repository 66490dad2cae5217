#pragma once
// A lower bound on a Program's replayed makespan, found without simulating it: for plans whose
// SimGrid replay would take hours (owt on the 1,024-chip board-bandwidth pod: 3.4-76 M tasks), it
// says how fast their replay could at best be. It holds for the SimGrid replay and the flow
// evaluator alike, and for any way of sharing links, not only max-min.
//
// Why it holds. In the replay (flow_evaluator.hpp's semantics) every task starts when its last
// predecessor finishes; compute and delay tasks take their seconds; a transfer between two nodes
// waits its route latency and then sends its bytes (rounded to whole bytes, as SimGrid sends them)
// as one flow over the route's links, whose rate is never above any of those links' bandwidth,
// while the rates of the flows crossing a link never add up to more than its bandwidth (CM02's
// constraints, which the replay configures without TCP-gamma, cross-traffic or bandwidth factors).
// 1. Critical path: a transfer takes at least its lone time (latency + bytes / slowest link), so by
//    induction over the dependencies every task starts no earlier than in the closed form
//    (closed_form.hpp), and the makespan is at least the closed form's.
// 2. Gathers and scatters: a task starts only once all its predecessors have finished; those that
//    are flows crossing one link l cannot have started before the earliest of their heads (the
//    transfer's earliest start + its route latency) and all their bytes cross l, so
//        earliest start(task) >= min head + their bytes / bandwidth(l)
//    (a receiver waits for every byte that comes in over its busiest incoming link). With 1, in one
//    forward pass, this gives every task an earliest start. Backwards, the same for the flows that
//    follow a task: after the task's end the program runs at least the smallest route latency
//    among them + their bytes over l + the shortest tail among them, or any successor's duration +
//    its tail: the task's tail. The makespan is at least earliest start + duration + tail of every
//    task (`path_s`, never below the closed form).
// 3. One link l, any set S of the flows crossing it: no byte of flow f crosses l before its head,
//    and after f's last byte the program runs at least f's tail more. So all of S's bytes cross l
//    between min_S head and T - min_S tail, at most at l's bandwidth:
//        T >= min_S head + sum_S bytes / bandwidth(l) + min_S tail.
//    The best S is found without trying them all: it is the value of the link's preemptive
//    schedule that sends the released flow with the longest tail first (preemptive_window). The
//    set of every flow on l, heads and tails dropped, is the busiest-link bound simplan's
//    contention warning gives (prediction_check.hpp); this is never below it.
// The bound is the larger of 2 and 3. It is exact for a lone transfer and for flows that start
// together on one link with nothing after them (tests/program/test_replay_lower_bound.cpp), and
// below the replay where the sharing spreads over many links (it sees one link at a time, and
// max-min sharing does not keep the busiest link busy): owt vgg16 on the board-bandwidth pod,
// bound 225.7 ms, flow evaluator 340 ms.
// After a replayed prefix (ReplayPrefix): the same argument about one replay whose first part, up
// to a simulated time, has been watched: a task that had started by then started when it was seen
// to; a task that had not starts no earlier; a finished task took the time it was seen to take, one
// still running takes at least until then (and its lone time). These are facts of that replay, so
// every step above still holds, with them as more lower bounds on starts and durations; bytes sent
// before the prefix's end are still counted from their flow's head, which the windows allow. Where
// the replay falls behind the windows (max-min sharing spread over many links), the bound then
// starts from where the replay actually is: owt vgg16 on the board-bandwidth pod, watched to
// its first 30 ms, is bounded at 228.42 ms, above the search's 226.886 ms replay (docs/model.md
// "After a replayed prefix").
// SimGrid meets the constraints to its solver's precision (maxmin/precision, 1e-5 relative), so a
// replay may come in under the bound by that much.
//
// Cost: three linear passes over the tasks and a sort and a heap per link; memory: one int per
// (flow, link) crossing (54 M, 0.2 GB, for owt alexnet on the pod's 32 x 32 torus) and a few
// doubles per task.

#include <cstddef>
#include <vector>

#include "sim/program/evaluation.hpp"
#include "sim/program/platform_binding.hpp"
#include "sim/program/program.hpp"
#include "topology/topology_graph.hpp"

namespace partsim::program {

/// One flow on one link: when its first byte may cross (head), how long the link needs for its
/// bytes alone (busy), how long the program goes on after its last byte at the least (tail).
struct LinkCrossing {
  double head_s = 0;
  double busy_s = 0;
  double tail_s = 0;
};

/// max over every set S of the crossings of min_S head + sum_S busy + min_S tail: the makespan of
/// Jackson's preemptive schedule on the link with delivery times (Carlier 1982, "The one-machine
/// sequencing problem"), computed in O(n log n). 0 for no crossings.
double preemptive_window(std::vector<LinkCrossing> crossings);

/// What a replay showed up to a simulated time: `observed` holds, for every task, its start if it had
/// started by `clock_s` (start <= clock_s) and its finish if it had finished by then (finish <=
/// clock_s); anything later (a partial replay leaves +infinity there, a full evaluation its later
/// times) is not read.
struct ReplayPrefix {
  double clock_s = 0;
  const Evaluation* observed = nullptr;
};

struct ReplayLowerBound {
  double closed_form_s = 0;   // 1: the critical path at lone durations
  double path_s = 0;          // 2: the critical path with gathers and scatters (>= closed_form_s)
  double link_window_s = 0;   // 3: the largest window over the links
  int link = -1;              // its graph link; -1 when no flow crosses a link
  double busiest_link_s = 0;  // max over links of all their bytes / bandwidth (the weakest form of 3)
  int busiest_link = -1;
  std::size_t flows = 0;      // transfers that cross at least one link with at least one byte
  double bound_s() const { return path_s > link_window_s ? path_s : link_window_s; }
};

/// The bound for `program` on the routes resolved for it (`routes` bound to `program` on `graph`;
/// Error for another Program); with `prefix`, for the one replay that showed it (Error when it
/// times another Program).
ReplayLowerBound replay_lower_bound(const Program& program, const TransferRoutes& routes,
                                    const topology::TopologyGraph& graph, const ReplayPrefix* prefix = nullptr);

}  // namespace partsim::program
