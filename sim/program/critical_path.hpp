#pragma once
// The critical path of an evaluated Program and each (layer, pass)'s share of it (issue 41 item 4:
// per-layer output that adds up). A layer's span (LayerPassSpan, first start to last finish)
// overlaps the other layers' spans, so spans sum to far more than the iteration (53.9 ms of spans
// for a 7.47 ms AccPar resnet50 iteration on 32 A100s; a pipelined megatron layer spans from the
// first micro-batch's forward to the last backward). The shares below add up to the makespan.
//
// What it is: one path of tasks, walked back from the task that finishes last. At each task the
// predecessor is the dependency (Task::after) that finishes last, i.e. the one that released it.
// Each task on the path is charged finish(task) - finish(predecessor): its own duration plus the gap
// between its predecessor's finish and its start (waiting for a shared link, contention, a route
// latency the evaluator adds: the waiting is attributed to the task that waited). The first task on
// the path (no dependency) is charged from time 0. The charges telescope, so they sum to the
// makespan (up to floating-point rounding). Ties (two tasks finishing at the same instant, as the
// last task or as a predecessor) go to the lowest task index, so the path is deterministic.
//
// What it is not: the only path. Work off the path gets 0 even when it ran in parallel for as long
// (a second device computing the same layer's other half, an overlapped all-reduce), and another
// path may be just as long; making a task on the path shorter need not shorten the iteration by as
// much. It is also not "the time during which the layer alone runs".
//
// Tasks of no layer (Task::layer = -1: joins, collectives a lowering does not assign to a layer)
// are charged to a separate `other_s` bucket.

#include <vector>

#include "sim/program/evaluation.hpp"
#include "sim/program/program.hpp"

namespace partsim::program {

/// One (layer, pass)'s share of the critical path.
struct CriticalPathShare {
  int layer = -1;
  plan::Pass pass = plan::Pass::fwd;
  double seconds = 0;  // s: sum of the charges of the layer's pass's tasks on the path
};

struct CriticalPath {
  std::vector<int> tasks;        // the path's task indices, first (charged from 0) to last (finishes last)
  std::vector<double> charges;   // s, same index as tasks: finish - the predecessor's finish (or 0)
  std::vector<CriticalPathShare> shares;  // (layer, pass) with a task on the path, by layer, then pass
  double other_s = 0;            // s charged to tasks of no layer (layer -1)
  double makespan_s = 0;         // s: finish of the last task (0 for an empty Program)
};

/// The critical path of `program` as `evaluation` timed it. Throws Error when the evaluation is not
/// one of this program (a different number of tasks) or breaks a dependency (a task finishes before
/// a task it depends on): an evaluator bug, not user input.
CriticalPath critical_path(const Program& program, const Evaluation& evaluation);

}  // namespace partsim::program
