#pragma once
// The `dsm` planning strategy (seed 003): registry entry, plan building and --explain.
//
// Contract: register_strategies() adds "dsm" to a StrategyRegistry with one call. Its plan function
// reads the option "opt=hybrid,memreuse,dysm,tpipe" (or none / all; default all) and the mode from
// PlanInputs, and returns a Plan with one LayerPlan per workload layer: the primary layer of each
// DeepSpatialMatrix group carries the passes (DsmPassPlan) and the group's predicted time; the
// auxiliary layers folded into it carry no passes and zero time (docs/model.md).

#include <string>
#include <vector>

#include "sim/dsm/search.hpp"
#include "sim/planner/registry.hpp"

namespace partsim::dsm {

void register_strategies(planner::StrategyRegistry& registry);

/// The option words of a dsm plan request ("opt=..." entries); default: all optimizations.
DsmOptions options_from(const std::vector<std::string>& key_values, plan::Mode mode);

/// The plan (without the header fields make_plan() fills) for a finalized graph.
plan::Plan make_dsm_plan(const planner::PlanInputs& inputs);

/// The best `top` configurations of workload layer `layer` (any member of its group) for every
/// pass, as a text table with their cost terms (seed 001 Table 2 style), for `simplan --explain`.
std::string explain_text(const planner::PlanInputs& inputs, const std::string& layer, int top = 5);

}  // namespace partsim::dsm
