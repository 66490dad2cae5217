#pragma once
// The flow-level evaluator: the SimGrid replay's timing (sim/replay/program_replay.hpp) without
// SimGrid. It is SimGrid's CM02 network model as the replay configures it (replay.cpp: CM02,
// TCP-gamma 0, crosstraffic 0, links without latency, the route latency paid by a timer before the
// comm starts), solved here directly: no Engine, no actors, no activities, so it runs in any process,
// any number of times, and at a fraction of the replay's wall time. Where the two differ, the
// difference is SimGrid's numerics (its solver's precision, whole bytes), never the model.
//
// Semantics (those of the replay):
// - every task starts when its last predecessor finishes; compute and delay tasks take `seconds`;
// - a transfer's bytes are rounded to whole bytes (SimGrid sends an integer payload); a transfer
//   whose endpoints are the same node finishes at once; one of 0 bytes finishes after its route
//   latency;
// - otherwise it waits its route latency (TransferRoutes' route, latencies summed), then becomes a
//   fluid flow over the route's links. The flows in flight share every link's bandwidth under
//   max-min fairness with equal weights (CM02 with weight-S 0 and links without latency gives every
//   flow a sharing penalty of 1): progressive filling fixes, round after round, the flows of the
//   link with the smallest fair share (remaining capacity / its unfixed flows) at that share and
//   takes it from their other links. A lone flow runs at its slowest link's bandwidth: a lone
//   transfer takes latency + bytes / bandwidth, as in the closed form (closed_form.hpp).
//
// Left out, because the replay leaves them out too: TCP-gamma's window bound, cross-traffic (the
// acknowledgements' share of the reverse direction), bandwidth and latency factors (1 in CM02).
// Not modelled: SimGrid's solver precision (maxmin/precision 1e-5, relative), which moves a
// completion by far less than the 0.5 % the replay tests allow.
//
// Cost: event driven; when the set of flows in flight changes, only the connected component of the
// flow-link sharing graph that the change touches is re-solved (a ring all-reduce whose links each
// carry one flow costs O(1) per event, whatever the ring's size). Completions come from a heap with
// stale entries skipped. Events at the same time are taken together (one re-solve for all of them).
// Deterministic: ties are broken by task index.
//
// Contract: the evaluator is bound to the Program its TransferRoutes were resolved for (Error for
// another) and to their graph; both must outlive it. Evaluation::activities counts what the replay
// counts: transfers between different nodes and compute or delay tasks of positive length.

#include <string>
#include <vector>

#include "sim/common/error.hpp"
#include "sim/program/evaluation.hpp"
#include "sim/program/jitter.hpp"
#include "sim/program/platform_binding.hpp"
#include "topology/topology_graph.hpp"

namespace partsim::program {

/// An evaluation stopped at its work limit (FlowEvaluator::set_work_limit).
class WorkLimitExceeded : public Error {
 public:
  explicit WorkLimitExceeded(double limit)
      : Error("flow evaluator: over " + std::to_string(static_cast<long long>(limit)) + " flow re-solves"), limit_(limit) {}
  double limit() const noexcept { return limit_; }

 private:
  double limit_;
};

class FlowEvaluator final : public Evaluator {
 public:
  /// `routes` resolved on `graph` (the link bandwidths come from it); both must outlive the evaluator.
  /// `coalesce` (relative, >= 0): the events within `coalesce` x t of an event at time t are taken
  /// at their own times but re-solved once, after the last of them: meanwhile the flows in flight
  /// keep their rates, a share freed by a flow that ends waits to be handed on and a flow that
  /// starts waits for its rate, each at most coalesce x t (the delays add up along a chain of
  /// events, and a flow that keeps a rate it should have shared finishes early). A redistribution whose thousands of flows start and end at nearly
  /// the same times is then re-solved a few thousand times instead of once per flow. Measured
  /// (bench/replay/flow_evaluator_bench --coalesce, against the exact evaluation) on
  /// tpu_v2_256_torus_boardbw vgg16 b512: hypar, exact 24.5 s; 3e-5: +0.28 % in 4.6 s; 1e-4: +0.16 %
  /// in 1.8 s; 1e-3: +1.5 % in 0.32 s; owt (391k tasks), exact 9.2 s; 3e-5: -1.0 % in 4.6 s; 1e-4:
  /// +4.6 % in 2.6 s. The window grows with the time, so late events of a long iteration wait
  /// longest. 0 (the default): exact, as the replay.
  ///
  /// `exact_work`: coalescing begins only once the exact re-solves have cost that much (flows
  /// re-solved, each counted once per re-solve it takes part in), so a program cheap to evaluate
  /// exactly is evaluated exactly: coalescing can err either way (holding rates lets flows in flight
  /// finish before a newcomer takes its share: tpu_v2v3_256 resnet50, a search's plan, exact 93.2 ms
  /// in 0.15 s, coalesced 3e-5 85.7 ms).
  FlowEvaluator(const TransferRoutes& routes, const topology::TopologyGraph& graph, double coalesce = 0,
                double exact_work = 0);
  /// Evaluations from now on perturb the timed tasks (program/jitter.hpp; as on a jittered() copy,
  /// without the copy); Error unless 0 <= relative < 1.
  void set_jitter(const Jitter& jitter);
  /// Evaluations from now on stop with WorkLimitExceeded once their re-solves (flows re-solved,
  /// each counted once per re-solve it takes part in; about 5 M a second) pass `max_work` (0: no
  /// limit). A bound in work, not wall time, so whether a plan passes it is deterministic.
  void set_work_limit(double max_work) { max_work_ = max_work; }
  std::string name() const override { return "flow"; }
  Evaluation evaluate(const Program& program) override;

 private:
  const TransferRoutes& routes_;
  double coalesce_ = 0;
  double exact_work_ = 0;
  Jitter jitter_;
  double max_work_ = 0;
  std::vector<double> link_bandwidth_;  // B/s, per graph link
  std::vector<double> pair_latency_;    // s, per TransferRoutes pair (the route's links summed)
};

}  // namespace partsim::program
