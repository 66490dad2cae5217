#pragma once
// The SimGrid evaluator of a placement's pipelined execution (issue 17's second evaluator): M
// micro-batches in flight on the ring. The graph is copied M times ("mb0/...", "mb1/...", every
// copy placed as the placement says), the copies are lowered by the shared sharding lowering
// (each node's compute on its chip, every cross-chip tensor over the ring's links hop by hop, with
// contention) and replayed on SimGrid. A chip runs its work in program order, copy after copy, so
// chip d starts micro-batch k+1 while chip d+1 works on micro-batch k: the steady state is the
// pipeline's period, which is what the analytical model predicts (cost_model.hpp).
//
// period_s = (finish of the last micro-batch - finish of the first) / (M - 1).
//
// Contract: one SimGrid simulation per process (replay_pipeline may be called once); M >= 2.

#include <vector>

#include "sim/planners/mcm/problem.hpp"
#include "topology/system_spec.hpp"
#include "workloads/graph.hpp"

namespace partsim::mcm {

/// `graph` (finalized) copied `copies` times, layer "x" of copy k named "mb<k>/x", at the same batch.
workloads::Graph micro_batches(const workloads::Graph& graph, int copies);

struct PipelineReplay {
  int micro_batches = 0;
  double makespan_s = 0;               // last finish
  std::vector<double> finish_s;        // per micro-batch, its last task's finish
  double period_s = 0;                 // steady-state time between micro-batches (1 / throughput)
  long long activities = 0;
};

/// Replays `placement` of `graph` on `spec` with `copies` micro-batches in flight (SimGrid).
PipelineReplay replay_pipeline(const topology::SystemSpec& spec, const workloads::Graph& graph,
                               const Placement& placement, int copies);

}  // namespace partsim::mcm
