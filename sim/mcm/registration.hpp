#pragma once
// The mcm strategies (seed 002) in the registry: mcm_greedy, mcm_random, mcm_sa. Each places every
// node of an inference graph on one chiplet of a uni-directional ring (configs/mcm_ring36.yaml):
// layer sharding {devices: [chip]}, no splits, so the shared sharding lowering replays it with
// simrun. plan.predicted_iteration_s is the analytical model's latency (the pipeline's period,
// max per-chip latency, cost_model.hpp); docs/plan-format.md "mcm" lists the family fields.

#include "sim/planner/registry.hpp"

namespace partsim::mcm {

void register_strategies(planner::StrategyRegistry& registry);

}  // namespace partsim::mcm
