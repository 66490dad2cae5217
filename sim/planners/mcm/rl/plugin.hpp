#pragma once
// The mcm_rl plugin's interface: what the core (registration.cpp, no libtorch) and the plugin
// (plugin.cpp, libpartsim_mcm_rl_plugin.so, the only module that loads libtorch) agree on.
//
// Why a plugin: linking libtorch into every program cost each start 0.5 s and 165-190 MB RSS
// (simplan --version: 0.52 s / 164 MB against 0.01 s / 9 MB without it), paid by every test and
// sweep point. The core dlopen()s the plugin only when mcm_rl plans.
//
// The plugin exports ONE extern "C" symbol, kRlPluginEntry, returning a small C++ function table.
// Passing C++ types (PlanInputs, Plan, exceptions) across it is sound because the plugin is built
// with the project: the same compiler, flags and headers, and the same shared libstdc++ (a thrown
// InputError is caught by main() as one: libstdc++ matches exception types by name). `abi` and
// `version` catch a plugin left over from another build.

#include "sim/plan/plan.hpp"
#include "sim/planners/registry.hpp"

namespace partsim::mcm::rl {

/// Bumped whenever RlPluginApi, PlanInputs or Plan change shape.
inline constexpr int kRlPluginAbi = 1;
/// The symbol the plugin exports: `const RlPluginApi* partsim_mcm_rl_plugin()`.
inline constexpr const char* kRlPluginEntry = "partsim_mcm_rl_plugin";

struct RlPluginApi {
  int abi;              // kRlPluginAbi of the plugin's build
  const char* version;  // PARTSIM_VERSION of the plugin's build
  /// mcm_rl's plan function (options already resolved); throws partsim's typed errors.
  plan::Plan (*plan)(const planner::PlanInputs& inputs);
};

using RlPluginEntry = const RlPluginApi* (*)();

}  // namespace partsim::mcm::rl
