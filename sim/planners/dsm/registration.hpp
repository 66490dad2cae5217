#pragma once
// The `dsm` planning strategy (seed 003): registry entry, plan building and --explain.
//
// Contract: register_strategies() adds "dsm" to a StrategyRegistry with one call. Its plan function
// reads the option "opt=hybrid,memreuse,dysm,tpipe" (or none / all; default all) and the mode from
// PlanInputs, and returns a Plan with one LayerPlan per workload layer: every layer's sharding over
// the chips (its group's ChipD); the primary layer of each DeepSpatialMatrix group carries the
// passes (family fields, plan_fields.hpp) and the group's predicted time; the auxiliary layers folded
// into it carry no passes and zero time (docs/model.md).

#include <string>
#include <vector>

#include "sim/planners/dsm/search.hpp"
#include "sim/planners/option_bindings.hpp"
#include "sim/planners/registry.hpp"

namespace partsim::dsm {

void register_strategies(planner::StrategyRegistry& registry);

/// The `dsm` option (opt: the optimizations), declared and bound to DsmOptions' switches.
planner::OptionBindings<DsmOptions> option_bindings();

/// The optimizations a dsm plan request's resolved options name, for `mode`.
DsmOptions options_from(const planner::StrategyOptions& options, plan::Mode mode);

/// The lowering of dsm plans (dsm_lowering.cpp): ChipD / CoreD / ArrayD events per group and pass.
program::Program lower_dsm(const lowering::Context& context);

/// The plan (without the header fields make_plan() fills) for a finalized graph.
plan::Plan make_dsm_plan(const planner::PlanInputs& inputs);

/// The best `top` configurations of workload layer `layer` (any member of its group) for every
/// pass, as a text table with their cost terms (seed 001 Table 2 style), for `simplan --explain`.
std::string explain_text(const planner::PlanInputs& inputs, const std::string& layer, int top = 5);

}  // namespace partsim::dsm
