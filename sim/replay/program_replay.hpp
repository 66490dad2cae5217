#pragma once
// The SimGrid evaluator of a Program (DESIGN.md: the second evaluator of the one lowering). Same
// semantics as the closed form (program/closed_form.hpp): every task starts when its last
// predecessor finishes; but the transfers share the platform's links under SimGrid's max-min model
// (CM02, replay.hpp), so where the closed form and this differ, the difference is contention.
//
// Execution (notes/simgrid-3.32.md: create activities lazily): a task is started when its last
// predecessor completes, from SimGrid's completion callback or a kernel timer, so only the tasks in
// flight exist. A transfer waits its route's latency (a timer), then runs as an actor-free comm of
// its bytes on the route between its endpoints' nodes (program::node_of) over links without latency
// (LinkLatency::by_caller): flows share a link equally, and a lone transfer takes exactly latency +
// bytes / slowest link, as in the closed form. With LoneTransfers::timed (replay.hpp, the default)
// a transfer whose links carry no other transfer is a timer of exactly that instead of a comm, and
// becomes a comm of the bytes it has left when another transfer starts on one of its links: SimGrid
// 3.32 walks a list of every comm in flight at each completion, which dominated replays whose
// transfers rarely meet. Compute and delay tasks are timers of their seconds: they never share a
// device (the Program says where work overlaps). Zero-length tasks and transfers within one node
// complete at once. Evaluation::activities counts the timed tasks (comms + timers).
//
// Code: Simulation::run hands the Program to a ReplayEngine (program_replay.cpp), one member per
// event (start a task, start a transfer, a timer fired, a comm completed, a task completed); the
// pieces that need no SimGrid, the ready tasks and who holds each link, are engine_parts.hpp.

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "sim/program/evaluation.hpp"
#include "sim/program/platform_binding.hpp"
#include "sim/replay/replay.hpp"

namespace partsim::replay {

/// The (src, dst) node pairs of a Program's transfers, without repeats (the routes to install).
std::vector<std::pair<int, int>> communicating_pairs(const program::Program& program,
                                                     const topology::TopologyGraph& graph);

class SimGridEvaluator final : public program::Evaluator {
 public:
  /// `graph` must outlive the evaluator. One evaluate() per process (SimGrid: one Engine).
  /// `lone`: how transfers that share no link run (replay.hpp); by default timed with partsim's own
  /// settings and simgrid with `simgrid_config`. Timed with `simgrid_config` is an InputError.
  explicit SimGridEvaluator(const topology::TopologyGraph& graph, std::vector<std::string> simgrid_config = {},
                            std::optional<LoneTransfers> lone = std::nullopt);
  std::string name() const override { return "simgrid"; }
  program::Evaluation evaluate(const program::Program& program) override;
  /// The same on routes already resolved for `program` (program/platform_binding.hpp
  /// TransferRoutes, shared with the closed form and the report): it installs their pairs.
  program::Evaluation evaluate(const program::Program& program, const program::TransferRoutes& routes);
  /// Wall-clock figures of the last evaluate().
  const ReplayStats& stats() const noexcept { return stats_; }
  /// Called during evaluate() about once a second of wall clock (replay.hpp ReplayProgress).
  void set_progress(ReplayProgress progress) { progress_ = std::move(progress); }
  /// Stop the next evaluate() at these simulated times, to look at the replay so far (replay.hpp
  /// ReplayPrefixes; for the replay lower bound after it, program/replay_lower_bound.hpp).
  void set_prefixes(ReplayPrefixes prefixes) { prefixes_ = std::move(prefixes); }

 private:
  // Runs `program` on the built `simulation`, filling stats_ (set-up timed from t0).
  program::Evaluation run(Simulation& simulation, const program::Program& program,
                          std::chrono::steady_clock::time_point t0);

  const topology::TopologyGraph& graph_;
  std::vector<std::string> simgrid_config_;
  LoneTransfers lone_;
  ReplayStats stats_;
  ReplayProgress progress_;
  ReplayPrefixes prefixes_;
};

}  // namespace partsim::replay
