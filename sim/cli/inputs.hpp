#pragma once
// The inputs of planning and of replaying, loaded and checked in one place, so simplan, simrun and
// simsweep (which checks every point's inputs before the first point runs) refuse the same bad
// input with the same one-line message.

#include <string>
#include <vector>

#include "sim/cli/command_line.hpp"
#include "sim/plan/plan.hpp"
#include "sim/program/program.hpp"
#include "topology/topology_graph.hpp"
#include "topology/system_spec.hpp"
#include "workloads/graph.hpp"

namespace partsim::cli {

/// What a strategy plans from (simplan --strategy).
struct PlanningInputs {
  topology::SystemSpec spec;
  workloads::Graph graph;
  std::vector<std::string> options;  // the strategy's key=value options, checked against its declarations
};

/// Checks the strategy name, loads the platform (staging --dump-config in `outputs`) and the
/// workload at `batch`, and checks the strategy's options. Throws InputError.
PlanningInputs load_planning_inputs(const PlatformOptions& platform, const std::string& workload, long long batch,
                                    const std::string& strategy, const std::vector<std::string>& options,
                                    OutputSet& outputs);

/// What simrun --plan replays: the plan, checked against the platform and the workload it names.
struct ReplayInputs {
  plan::Plan plan;
  topology::SystemSpec spec;
  workloads::Graph graph;
  /// With allow_config_change: how the platform differs from the one the plan was made for
  /// (config_change.hpp); empty when it is the same.
  std::vector<std::string> config_changes;
};

/// Loads plan.json, the platform (staging --dump-config in `outputs`) and the plan's workload, and
/// checks the plan against both (planner::check_plan); `spec` is the platform as the plan configures
/// it (planner::configured_platform). Throws InputError naming the plan file.
ReplayInputs load_replay_inputs(const PlatformOptions& platform, const std::string& plan_file,
                                bool allow_config_change, OutputSet& outputs);

/// Lowers the loaded plan onto `graph` (its strategy's lowering). An input error the lowering finds
/// (a dsm pass that does not fit the chip, ...) names its JSON path; this adds the plan's file name.
program::Program lower_replay_inputs(const ReplayInputs& inputs, const topology::TopologyGraph& graph,
                                     const std::string& plan_file);

}  // namespace partsim::cli
