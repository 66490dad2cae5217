// libpartsim_mcm_rl_plugin.so: mcm_rl's plan function, the one user of libtorch among the programs,
// loaded by registration.cpp only when mcm_rl plans (plugin.hpp says why and how).
#include "sim/planners/mcm/rl/plugin.hpp"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "sim/common/error.hpp"
#include "sim/planners/mcm/registration.hpp"
#include "sim/planners/mcm/rl/rl_search.hpp"

namespace partsim::mcm::rl {
namespace {

RlStrategyOptions rl_options(const planner::PlanInputs& in) {
  RlStrategyOptions o = option_bindings().read(in.resolved);
  o.seed = in.seed.value_or(1);
  o.progress = in.progress;
  return o;
}

plan::Plan make_plan(const planner::PlanInputs& in) {
  const PlacementProblem problem = inference_problem(in);
  const RlStrategyOptions o = rl_options(in);
  const std::string& checkpoint = o.checkpoint;
  const RlResult r = rl_search(problem, o, checkpoint.empty() ? std::nullopt : std::optional<std::string>(checkpoint));
  if (!o.use_solver && r.search.best.empty())
    throw InputError("mcm_rl without the solver: no valid placement of '" + in.workload_name + "' in " +
                     std::to_string(r.search.samples) + " samples (every one broke eq. 2-4 or H(G, f); MCM paper §5.1 "
                     "saw the same)");
  plan::Plan p = plan_from_search(problem, r.search, in);
  (*p.family)["rl"] = {{"reference_throughput_per_s", r.reference_throughput},
                    {"reference", "mcm_greedy (rewards are throughput / this)"},
                    {"baseline_split", to_string(o.baseline)},
                    {"start", to_string(o.start)},
                    {"ratio", to_string(o.ratio)},
                    {"advantage", to_string(o.advantage)},
                    {"checkpoint", checkpoint.empty() ? nlohmann::json(nullptr) : nlohmann::json(checkpoint)},
                    {"updates", r.updates},
                    {"mean_reward_per_update", r.mean_reward},
                    {"raw_invalid_samples", r.raw_invalid_samples},
                    {"solver_gave_up", r.solver_gave_up},
                    {"sample_gave_up", r.sample_gave_up},
                    {"solver", o.use_solver}};
  return p;
}

const RlPluginApi kApi{kRlPluginAbi, PARTSIM_VERSION, make_plan};

}  // namespace
}  // namespace partsim::mcm::rl

// The plugin's one exported symbol (everything else is hidden: see sim/planners/mcm/rl/CMakeLists.txt).
extern "C" __attribute__((visibility("default"))) const partsim::mcm::rl::RlPluginApi* partsim_mcm_rl_plugin() {
  return &partsim::mcm::rl::kApi;
}
