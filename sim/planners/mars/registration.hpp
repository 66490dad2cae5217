#pragma once
// The MARS strategy (seed 004): `mars`, the two-level GA of §V (option mapping=search) or the
// baseline of §VI-A (mapping=baseline). An inference plan whose `configuration` sets every used
// accelerator's design and whose layers carry ES splits and SS (plan::Sharding::shared); it replays
// on the shared sharding lowering.
// Option designs=fixed keeps every accelerator as the platform configures it (Table IV's fixed
// heterogeneous systems). And `h2h`, Table IV's comparison (h2h_mapping.hpp): every layer whole on
// one accelerator of fixed design, branches in parallel.
// Plan fields (docs/plan-format.md "mars", "h2h"): mars: plan family {sets: [{devices, design,
// first, last, latency_s}], transfers_s}; per layer {set, design, strategy}. h2h: plan family
// {initial_latency_s, moves}; per layer {device, start_s, finish_s}.

#include "sim/planners/mars/h2h_mapping.hpp"
#include "sim/planners/mars/search.hpp"
#include "sim/planners/option_bindings.hpp"
#include "sim/planners/registry.hpp"

namespace partsim::mars {

void register_strategies(planner::StrategyRegistry& registry);

/// The `mars` strategy's options: the two-level GA's (the seed is simplan's --seed), and which
/// mapping and designs.
struct MarsOptions : SearchOptions {
  bool run_search = true;  // mapping=search; false: §VI-A's baseline
  DesignChoice designs = DesignChoice::configure;
};
/// Every option of `mars` and of `h2h`, declared and bound to its field.
planner::OptionBindings<MarsOptions> mars_option_bindings();
planner::OptionBindings<H2hOptions> h2h_option_bindings();

/// The plan of a mapping (what both mappings write).
plan::Plan mapping_plan(const LatencyModel& model, const Mapping& mapping);

}  // namespace partsim::mars
