#include "sim/cli/inputs.hpp"

#include "sim/cli/config_change.hpp"
#include "sim/common/error.hpp"
#include "sim/plan/plan_io.hpp"
#include "sim/planners/check_plan.hpp"
#include "sim/planners/builtin_strategies.hpp"
#include "workloads/workload_file.hpp"

namespace partsim::cli {

PlanningInputs load_planning_inputs(const PlatformOptions& platform, const std::string& workload, long long batch,
                                    const std::string& strategy, const std::vector<std::string>& options,
                                    OutputSet& outputs) {
  const auto& registry = planner::builtin_strategies();
  registry.find(strategy);  // an unknown strategy fails before anything is loaded
  if (workload.empty()) throw InputError("--strategy needs --workload NAME|FILE (see simplan --list)");
  if (platform.config_file.empty()) throw InputError("--strategy needs --config FILE (a platform, see configs/)");
  topology::SystemSpec spec = load_platform(platform, outputs);
  print_platform_warnings(spec);
  workloads::Graph graph = workloads::load_workload(workload, batch);
  registry.resolve_options(strategy, options);  // a bad option fails before the platform is planned
  return {std::move(spec), std::move(graph), options};
}

ReplayInputs load_replay_inputs(const PlatformOptions& platform, const std::string& plan_file,
                                bool allow_config_change, OutputSet& outputs) {
  if (platform.config_file.empty()) throw InputError("--plan needs --config FILE (the platform the plan was made for)");
  plan::Plan plan = plan::load_plan(plan_file);
  topology::SystemSpec spec = load_platform(platform, outputs);
  print_platform_warnings(spec);
  workloads::Graph graph = workloads::load_workload(plan.workload.name, plan.workload.batch);
  planner::check_plan(plan, spec, graph, planner::builtin_strategies(), plan_file, allow_config_change);
  std::vector<std::string> changes = config_changes(plan, spec);
  // The platform as the plan configures it (a MARS plan picks each FPGA's design).
  topology::SystemSpec configured = planner::configured_platform(plan, spec, plan_file);
  return {std::move(plan), std::move(configured), std::move(graph), std::move(changes)};
}

program::Program lower_replay_inputs(const ReplayInputs& inputs, const topology::TopologyGraph& graph,
                                     const std::string& plan_file) {
  try {
    return planner::lower_plan({inputs.plan, inputs.spec, inputs.graph, graph});
  } catch (const InputError& e) {
    const std::string message = e.what();
    if (message.rfind(plan_file + ":", 0) == 0) throw;
    throw InputError(plan_file + ": " + message);
  }
}

}  // namespace partsim::cli
