#pragma once
// The mcm strategies (seed 002) in the registry: mcm_greedy, mcm_random, mcm_sa (and mcm_rl, sim/planners/mcm/rl/). Each places every
// node of an inference graph on one chiplet of a uni-directional ring (configs/mcm_ring36.yaml):
// layer sharding {devices: [chip]}, no splits, so the shared sharding lowering replays it with
// simrun. plan.predicted_iteration_s is the analytical model's latency (the pipeline's period,
// max per-chip latency, cost_model.hpp); docs/plan-format.md "mcm" lists the family fields.

#include <string>
#include <vector>

#include "sim/planners/mcm/problem.hpp"
#include "sim/planners/mcm/searches.hpp"
#include "sim/planners/option_bindings.hpp"
#include "sim/planners/registry.hpp"

namespace partsim::mcm {

void register_strategies(planner::StrategyRegistry& registry);

// Shared with mcm_rl (sim/planners/mcm/rl/registration.cpp), which registers beside these but lives in its
// own library so that only it links libtorch.

/// The placement problem of an inference run (InputError for training).
PlacementProblem inference_problem(const planner::PlanInputs& in);
/// The plan of a finished search: every layer on its chip, the analytical model's figures in family
/// (InputError when the search found no valid placement).
plan::Plan plan_from_search(const PlacementProblem& problem, const SearchResult& result, const planner::PlanInputs& in);
/// A loaded mcm plan: every layer on one chip, and the placement satisfies eq. 2-4 and H.
void check_mcm_plan(const plan::Plan& plan, const topology::SystemSpec& spec, const workloads::Graph& graph,
                    const std::string& file);
/// weights_fit, max_backtracks, restart_backtracks: the solver options every mcm strategy declares
/// (nested into its options struct's SolverOptions; mcm_rl gives max_backtracks a smaller default).
planner::OptionBindings<SolverOptions> solver_option_bindings(const std::string& max_backtracks_default = "100000");
/// split: the greedy baseline's split (mcm_greedy's placement; mcm_rl's reward unit and y^(0)),
/// declared and read into `field`.
template <class Options, class Owner>
void bind_greedy_split(planner::OptionBindings<Options>& bindings, GreedySplit Owner::*field) {
  bindings.choice("split", field, {"compute", "memory"}, parse_greedy_split, "compute",
                  "greedy baseline: a chip is full at 1/C of the total compute or its SRAM (compute), or at its SRAM "
                  "only, weights and live tensors (memory: the fewest chips)");
}

}  // namespace partsim::mcm
