#pragma once
// The AccPar family in the strategy registry: dp, owt, hypar, accpar (seed 000 §6.1).
//
// Options: "levels=H" (hierarchy levels searched, 0..depth; default: all); accpar also
// "ratio=level|layer" (eq. 10 once per level for all layers (default), or per layer).

#include "sim/planner/registry.hpp"
#include "sim/accpar/accpar_planner.hpp"

namespace partsim::accpar {

/// Adds dp, owt, hypar and accpar (planning function and plan checker) to `registry`.
void register_strategies(planner::StrategyRegistry& registry);

/// Plans `inputs` with one of the four strategies into a Plan (header fields left to make_plan).
plan::Plan make_accpar_plan(Strategy strategy, const planner::PlanInputs& inputs);

/// Checks an AccPar-family plan: one level per hierarchy level, types allowed by the strategy,
/// ratios in (0, 1).
void check_accpar_plan(const plan::Plan& plan, const topology::SystemSpec& spec, const workloads::Graph& graph,
                       const std::string& file);

}  // namespace partsim::accpar
