#pragma once
// mcm_rl in the registry: the constrained RL placement search of seed 002 §4 (rl_search.hpp), beside
// mcm_greedy/mcm_random/mcm_sa (sim/planners/mcm/registration.hpp, whose plan and check it shares). The entry
// (name, options, check) links no libtorch; its plan function dlopen()s the plugin that does
// (plugin.hpp) the first time mcm_rl plans.

#include "sim/planners/registry.hpp"

namespace partsim::mcm::rl {

void register_strategies(planner::StrategyRegistry& registry);

}  // namespace partsim::mcm::rl
