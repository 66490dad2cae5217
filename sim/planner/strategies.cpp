#include "sim/planner/strategies.hpp"

#include "sim/accpar/strategies.hpp"
#include "sim/dsm/strategy.hpp"
#include "sim/mcm/strategies.hpp"

namespace partsim::planner {

const StrategyRegistry& builtin_strategies() {
  static const StrategyRegistry registry = [] {
    StrategyRegistry r;
    accpar::register_strategies(r);  // dp, owt, hypar, accpar (seed 000)
    dsm::register_strategies(r);     // dsm (seed 003)
    mcm::register_strategies(r);     // mcm_greedy, mcm_random, mcm_sa (seed 002)
    return r;
  }();
  return registry;
}

program::Program lower_plan(const lowering::Context& context) { return builtin_strategies().lower(context); }

void check_plan(const plan::Plan& plan, const topology::SystemSpec& spec, const workloads::Graph& graph,
                const std::string& file) {
  check_plan(plan, spec, graph, builtin_strategies(), file);
}

}  // namespace partsim::planner
