#pragma once
// The `search` strategy (issue 44): every registered strategy's plan as seeds, then the walk of
// search.hpp over the union of what the families express, each candidate lowered and priced by a
// fast evaluator (pricing.hpp). Plan fields (docs/plan-format.md "search"): plan family {origin,
// lowered_by and seed_family when the chosen plan is a seed with a lowering of its own, evaluator,
// closed_form_s, candidates, seeds_priced, stopped_by, elapsed_s}. The search log (every candidate
// priced) is written next to the plan by simplan (PlanInputs::side_file, "search.csv").

#include <map>
#include <string>
#include <vector>

#include "sim/planners/registry.hpp"
#include "sim/planners/search/pricing.hpp"

namespace partsim::search {

/// Registers `search`. `registry` gives the registry the seeds come from (the built-in one), read
/// when the strategy plans: it may be the registry being filled.
void register_strategies(planner::StrategyRegistry& registry, const planner::StrategyRegistry& (*seeds_from)());

/// The planner families the `families` option names, in order.
const std::vector<std::string>& family_names();
/// The planner family a strategy belongs to, for the `families` option ("" for one outside them).
std::string family_of(const std::string& strategy);

/// The seeds of a search: every strategy of `registry` but `search` whose family is in `families`
/// (strategies outside the families always), planned with its defaults; a plan on the shared
/// lowering with two gradient schedules (concurrent, and in_order with 25 MB buckets: the
/// cross-check's) or the user's `in.schedule`, a plan with a lowering of its own once. A strategy that refuses goes into `refusals` with its message.
/// `seed_seconds` (0: none): a seed planner that bounds its own work up front (deepa's xfer_limit)
/// is held to about that many seconds; over it, to a quarter of that on a narrower space (deepa
/// dims=n,c), and a seed planned so goes into `narrowed` (if given) with the narrowing and the full
/// space's refusal.
std::vector<Candidate> plan_seeds(const planner::StrategyRegistry& registry, const planner::PlanInputs& in,
                                  const std::vector<std::string>& families, std::map<std::string, std::string>& refusals,
                                  double seed_seconds = 0, std::map<std::string, std::string>* narrowed = nullptr);

/// One way to plan a seed: the strategy's options (besides its defaults), and the narrowing they
/// make of its space ("" for the full space).
struct SeedRung {
  std::vector<std::string> options;
  std::string narrowing;
};
/// The option sets a seed strategy is tried with, in order, when held to `seconds` (0: its
/// defaults alone): the first that plans is the seed.
std::vector<SeedRung> seed_option_ladder(const std::string& strategy, double seconds);

}  // namespace partsim::search
