#pragma once
// A collective replayed as simrun --collective replays it (sim/cli/simrun.cpp): its device schedule
// becomes the Program of its steps (one layer, steps separated by joins, lowering::add_collective,
// zero-byte transfers kept so that each step still takes its route latency), and the SimGrid
// evaluator runs that Program. Shared by the replay's tests and replay_bench. One per process.

#include "sim/collectives/schedule.hpp"
#include "sim/lowering/task_builders.hpp"
#include "sim/program/program.hpp"
#include "sim/replay/program_replay.hpp"
#include "topology/topology_graph.hpp"

namespace partsim::bench {

/// Replays the collective `device_schedule` (collectives::build_schedule) on `graph`; the stats'
/// simulated_s is the makespan, activities the timed tasks (comms and timers).
inline replay::ReplayStats replay_collective(const topology::TopologyGraph& graph,
                                             const collectives::Schedule& device_schedule) {
  program::Program program;
  const int layer = program.add_layer("collective");
  lowering::add_collective(program, device_schedule, graph, layer, plan::Pass::fwd, "collective", {},
                           lowering::EmptyTransfers::keep);
  replay::SimGridEvaluator simgrid(graph);
  simgrid.evaluate(program);
  return simgrid.stats();
}

}  // namespace partsim::bench
