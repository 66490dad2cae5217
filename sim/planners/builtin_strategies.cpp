#include "sim/planners/builtin_strategies.hpp"

#include "sim/planners/accpar/registration.hpp"
#include "sim/lowering/sharding_lowering.hpp"
#include "sim/planners/dsm/registration.hpp"
#include "sim/planners/mars/registration.hpp"
#include "sim/planners/deepa/registration.hpp"
#include "sim/planners/mcm/registration.hpp"
#include "sim/planners/megatron/registration.hpp"
#include "sim/planners/mcm/rl/registration.hpp"
#include "sim/planners/search/registration.hpp"

namespace partsim::planner {

const StrategyRegistry& builtin_strategies() {
  static const StrategyRegistry registry = [] {
    StrategyRegistry r;
    accpar::register_strategies(r);  // dp, owt, hypar, accpar (seed 000)
    dsm::register_strategies(r);     // dsm (seed 003)
    mars::register_strategies(r);    // mars (seed 004)
    deepa::register_strategies(r);   // deepa (seed 001)
    mcm::register_strategies(r);     // mcm_greedy, mcm_random, mcm_sa (seed 002)
    mcm::rl::register_strategies(r); // mcm_rl (seed 002 §4; its own library: libtorch)
    megatron::register_strategies(r); // megatron (issue 40: Narayanan 2021, Korthikanti 2022, ZeRO)
    search::register_strategies(r, &builtin_strategies);  // search (issue 44): seeded with every one above
    return r;
  }();
  return registry;
}

program::Program lower_plan(const StrategyRegistry& registry, const lowering::Context& context) {
  const StrategyInfo& info = registry.find(context.plan.strategy);
  return info.lower ? info.lower(context) : lowering::lower_sharding(context);
}

program::Program lower_plan(const lowering::Context& context) { return lower_plan(builtin_strategies(), context); }

void check_plan(const plan::Plan& plan, const topology::SystemSpec& spec, const workloads::Graph& graph,
                const std::string& file) {
  check_plan(plan, spec, graph, builtin_strategies(), file);
}

}  // namespace partsim::planner
