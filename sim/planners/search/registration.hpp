#pragma once
// The `search` strategy (issue 44): every registered strategy's plan as seeds, then the walk of
// search.hpp over the union of what the families express, each candidate lowered and priced by a
// fast evaluator (pricing.hpp). Plan fields (docs/plan-format.md "search"): plan family {origin,
// lowered_by and seed_family when the chosen plan is a seed with a lowering of its own, evaluator,
// closed_form_s, candidates, seeds_priced, stopped_by, elapsed_s}. The search log (every candidate
// priced) is written next to the plan by simplan (PlanInputs::side_file, "search.csv").

#include "sim/planners/registry.hpp"

namespace partsim::search {

/// Registers `search`. `registry` gives the registry the seeds come from (the built-in one), read
/// when the strategy plans: it may be the registry being filled.
void register_strategies(planner::StrategyRegistry& registry, const planner::StrategyRegistry& (*seeds_from)());

/// The planner family a strategy belongs to, for the `families` option ("" for one outside them).
std::string family_of(const std::string& strategy);

}  // namespace partsim::search
