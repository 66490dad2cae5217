#pragma once
// The AccPar family in the strategy registry: dp, owt, hypar, accpar (seed 000 §6.1).
//
// Options (option_bindings): levels=H|all (hierarchy levels searched);
// bandwidth=cut|device (eq. 7's b at a split, hierarchy.hpp); compute=peak|device (eq. 8 at peak,
// or the chosen plan's shards priced by the platform's device model); accpar also ratio=level|layer
// (eq. 10 once per level for all layers (default), or per layer). Lowering: the
// shared sharding lowering (each layer's sharding is its typing, plan_fields.hpp).

#include "sim/planners/option_bindings.hpp"
#include "sim/planners/registry.hpp"
#include "sim/planners/accpar/accpar_planner.hpp"
#include "sim/planners/accpar/hierarchy.hpp"

namespace partsim::accpar {

/// Adds dp, owt, hypar and accpar (planning function and plan checker) to `registry`.
void register_strategies(planner::StrategyRegistry& registry);

/// A family strategy's options: the search's, and how the hierarchy and the plan read the platform.
struct AccparOptions : PlanOptions {
  BandwidthReading bandwidth = BandwidthReading::cut;  // eq. 7's b at a split (hierarchy.hpp)
  bool device_compute = false;                         // compute=device: the chosen plan priced by the device model
};

/// The options of `strategy` (accpar also has ratio), declared and bound to their fields.
planner::OptionBindings<AccparOptions> option_bindings(Strategy strategy);

/// Plans `inputs` with one of the four strategies into a Plan (header fields left to make_plan).
plan::Plan make_accpar_plan(Strategy strategy, const planner::PlanInputs& inputs);

/// Checks an AccPar-family plan: its family fields decode (one level per hierarchy level, ratios in
/// (0, 1)), types allowed by the strategy, and each layer's sharding is the one its levels give.
void check_accpar_plan(const plan::Plan& plan, const topology::SystemSpec& spec, const workloads::Graph& graph,
                       const std::string& file);

}  // namespace partsim::accpar
