#include "sim/mcm/rl/registration.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "sim/common/error.hpp"
#include "sim/mcm/registration.hpp"
#include "sim/mcm/rl/plugin.hpp"

namespace partsim::mcm::rl {
namespace {

/// The directories searched for the plugin: $PARTSIM_PLUGIN_DIR alone when set (tests), else the
/// running program's directory, then its ../lib (build/lib, where CMake puts it).
std::vector<std::filesystem::path> plugin_candidates() {
  const std::filesystem::path file = PARTSIM_MCM_RL_PLUGIN_FILE;
  if (const char* dir = std::getenv("PARTSIM_PLUGIN_DIR"); dir != nullptr && *dir != '\0')
    return {std::filesystem::path(dir) / file};
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {file};  // no /proc: dlopen's own search (LD_LIBRARY_PATH)
  return {exe.parent_path() / file, exe.parent_path().parent_path() / "lib" / file};
}

const RlPluginApi& load_plugin() {
  std::string tried;
  for (const std::filesystem::path& candidate : plugin_candidates()) {
    // Never dlclose()d: libtorch stays loaded until the program exits.
    void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* why = dlerror();
      tried += (tried.empty() ? "" : "; ") + (why != nullptr ? std::string(why) : candidate.string() + ": not loaded");
      continue;
    }
    const auto entry = reinterpret_cast<RlPluginEntry>(dlsym(handle, kRlPluginEntry));
    if (entry == nullptr) {
      const char* why = dlerror();
      throw Error("mcm_rl: " + candidate.string() + " is not the mcm_rl plugin (" +
                  (why != nullptr ? std::string(why) : std::string("no ") + kRlPluginEntry) + ")");
    }
    const RlPluginApi* api = entry();
    if (api == nullptr || api->abi != kRlPluginAbi || std::string(api->version) != PARTSIM_VERSION)
      throw Error("mcm_rl: " + candidate.string() + " is from another build of partsim (version " +
                  (api != nullptr ? std::string(api->version) : std::string("?")) + ", this is " + PARTSIM_VERSION +
                  "); rebuild the project");
    return *api;
  }
  throw Error("mcm_rl: cannot load its plugin " + std::string(PARTSIM_MCM_RL_PLUGIN_FILE) +
              " (built with the project into build/lib; holds libtorch; PARTSIM_PLUGIN_DIR names its folder): " + tried);
}

/// mcm_rl's plan: loads the plugin (once per process) and runs its plan function.
plan::Plan make_plan(const planner::PlanInputs& in) {
  static const RlPluginApi& api = load_plugin();  // a failure is retried by the next call
  return api.plan(in);
}

}  // namespace

void register_strategies(planner::StrategyRegistry& registry) {
  using planner::OptionSpec;
  using planner::OptionType;
  const planner::OptionRange at_least_one{1};
  std::vector<OptionSpec> options{
      {"samples", OptionType::integer, "200", "placements drawn, repaired and evaluated (rollouts in all)", {}, at_least_one},
      {"rollouts", OptionType::integer, "20", "rollouts per PPO update (MCM paper §5.1: 20)", {}, at_least_one},
      {"minibatches", OptionType::integer, "4", "PPO mini-batches per epoch, at most rollouts (§5.1: 4)", {}, at_least_one},
      {"epochs", OptionType::integer, "10", "PPO epochs per update (§5.1: 10)", {}, at_least_one},
      {"refinements", OptionType::integer, "2", "T of eq. 7: policy steps per sample, each fed the previous placement",
       {}, {1, 16}},
      {"learning_rate", OptionType::number, "0.001", "Adam learning rate", {}, {0, 1, true}},
      {"clip", OptionType::number, "0.2", "PPO clip epsilon", {}, {0, 1, true, true}},
      {"entropy", OptionType::number, "0.01", "weight of the entropy bonus in the PPO loss", {}},
      {"stay_bias", OptionType::number, "0",
       "added to the logit of each node's previous chip, so each eq. 7 step refines the last (0: the policy's own "
       "distribution, as eq. 7 has it)", {}},
      {"train", OptionType::boolean, "true", "update the policy (false: zero-shot, samples from the policy as it is)", {}},
      {"solver", OptionType::boolean, "true",
       "repair every sample with the FIX-mode solver (false: the paper's RL-without-solver baseline, §5.1)", {}},
      greedy_split_option_spec(),
      {"start", OptionType::choice, "baseline",
       "y^(0) of eq. 7: baseline = the greedy split (split=) for every rollout, random = per rollout a placement "
       "drawn as mcm_random draws one",
       {"baseline", "random"}},
      {"ratio", OptionType::choice, "node",
       "PPO's probability ratio: joint = of the whole placement, node = per node, sharing the rollout's advantage",
       {"joint", "node"}},
      {"advantage", OptionType::choice, "batch",
       "the advantage's baseline: batch = the update's mean reward, start = the reward of the rollout's y^(0)",
       {"batch", "start"}},
      {"checkpoint", OptionType::text, "", "start from these pre-trained weights (written by mcm_rl_train)", {}},
  };
  for (OptionSpec s : solver_option_specs()) {
    // A repair that needs this many backtracks is rare and costs a minute at 100000 on BERT; RL then
    // draws in SAMPLE mode from the policy instead (rl_search.hpp), so it gets a smaller budget.
    if (s.key == "max_backtracks") s.default_value = "5000";
    options.push_back(s);
  }
  planner::StrategyInfo info;
  info.name = "mcm_rl";
  info.description =
      "MCM placement, constrained RL (MCM paper §4): GraphSAGE + policy, eq. 7 iteration, FIX-mode solver, PPO";
  info.options = std::move(options);
  info.stochastic = true;
  info.plan = make_plan;
  info.check = check_mcm_plan;
  registry.add(std::move(info));
}

}  // namespace partsim::mcm::rl
