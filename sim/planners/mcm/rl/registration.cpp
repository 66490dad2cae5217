#include "sim/planners/mcm/rl/registration.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "sim/common/error.hpp"
#include "sim/planners/mcm/registration.hpp"
#include "sim/planners/mcm/rl/plugin.hpp"
#include "sim/planners/mcm/rl/rl_options.hpp"

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
  planner::StrategyInfo info;
  info.name = "mcm_rl";
  info.description =
      "MCM placement, constrained RL (MCM paper §4): GraphSAGE + policy, eq. 7 iteration, FIX-mode solver, PPO";
  info.options = option_bindings().specs();
  info.stochastic = true;
  info.plan = make_plan;
  info.check = check_mcm_plan;
  registry.add(std::move(info));
}

}  // namespace partsim::mcm::rl
