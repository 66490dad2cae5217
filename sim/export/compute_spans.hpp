#pragma once
// A rank's concurrent compute as ASTRA-sim can run it: one COMP node at a time (issue 42).
//
// partsim runs every task as soon as its predecessors are done, so one device may compute a layer
// while its memory traffic runs, or fetch the next tile during a computation. ASTRA-sim runs one
// COMP node at a time per NPU. Given partsim's uncontended schedule (the closed form's task
// times), the rank's compute is rewritten as the spans in which it is busy:
// - the boundaries are every start and finish of the rank's COMP nodes of positive duration; each
//   interval between two boundaries in which at least one of them runs becomes one COMP node of
//   that length (num_ops: each task's FLOP shared over its intervals by length), the intervals
//   chained in time order;
// - an interval depends on the one before it and on the SEND/RECV nodes that the tasks starting
//   with it waited for; a SEND or RECV that waited for a compute task waits for the interval in
//   which that task ends; a COMP node of no time passes its own waits on;
// - duration_micros of an interval is the difference of its ends, each rounded to whole µs, so a
//   run of back-to-back intervals keeps its total to the µs (duration_s holds the exact length);
// - the nodes are numbered in the order of their start in the schedule (ties: the order the Program
//   gave), ASTRA-sim's issue order among ready nodes.
// Under ASTRA-sim's rules, with partsim's message times and no two messages of a rank on the wire
// at once, the rank then computes exactly when the closed form has it compute (test_astra_rules).
// Requires a schedule consistent with the graph: a node starts no earlier than its dependencies end.

#include <cstddef>
#include <vector>

#include "sim/export/chakra_trace.hpp"
#include "sim/export/rank_graph.hpp"
#include "sim/program/evaluation.hpp"

namespace partsim::chakra_export {

/// `rank` with its COMP nodes replaced by the busy intervals of `schedule` (one TaskTiming per
/// Program task, indexed by ProtoNode::task). Counts are added to `counts`.
RankGraph fold_compute_spans(RankGraph rank, const std::vector<program::TaskTiming>& schedule, SpanCounts& counts);

}  // namespace partsim::chakra_export
