#pragma once
// Every strategy partsim has, in one registry. Each family adds itself with one line in
// builtin_strategies.cpp.

#include "sim/plan/plan.hpp"
#include "sim/planners/check_plan.hpp"
#include "sim/planners/registry.hpp"

namespace partsim::planner {

/// The registry of all built-in strategies (built once).
const StrategyRegistry& builtin_strategies();

/// The plan's Program, by its strategy's lowering in `registry`: the strategy's own, or the shared
/// sharding lowering (the registry itself does not link the lowering).
program::Program lower_plan(const StrategyRegistry& registry, const lowering::Context& context);

/// The plan's Program, by its strategy's lowering (the built-in registry).
program::Program lower_plan(const lowering::Context& context);

/// check_plan() against the built-in strategies.
void check_plan(const plan::Plan& plan, const topology::SystemSpec& spec, const workloads::Graph& graph,
                const std::string& file = "plan");

}  // namespace partsim::planner
