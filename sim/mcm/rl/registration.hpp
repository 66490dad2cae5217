#pragma once
// mcm_rl in the registry: the constrained RL placement search of seed 002 §4 (rl_search.hpp), beside
// mcm_greedy/mcm_random/mcm_sa (sim/mcm/registration.hpp, whose plan and check it shares). It lives
// in partsim_mcm_rl so that libtorch is linked by this one library and the programs that use it.

#include "sim/planner/registry.hpp"

namespace partsim::mcm::rl {

void register_strategies(planner::StrategyRegistry& registry);

}  // namespace partsim::mcm::rl
