#pragma once
// Checking a loaded plan against the platform and workload it names (plan.json is validated on
// load, DESIGN "Partition plans"): same platform (name and content hash), same workload (batch and
// every layer, in order), valid device indices, then the strategy's own checks (registry).
//
// Contract: returns normally or throws InputError "FILE: what is wrong (what to do)", one line.

#include "sim/plan/plan.hpp"
#include "sim/planners/registry.hpp"
#include "topology/system_spec.hpp"
#include "workloads/graph.hpp"

namespace partsim::planner {

/// `file` names the plan in messages ("plan.json"). The strategy must be in `registry`.
/// `allow_config_change`: accept a platform of the same name whose content differs (a fixed plan
/// replayed across a sweep of link bandwidth or scratchpad size); everything else is still checked.
void check_plan(const plan::Plan& plan, const topology::SystemSpec& spec, const workloads::Graph& graph,
                const StrategyRegistry& registry, const std::string& file = "plan", bool allow_config_change = false);

/// The platform as the plan configures it (Plan::configuration, seed 004 §III): each named device
/// gets the named device type. Throws InputError "FILE: /configuration/NAME: ..." naming the
/// allowed devices or types. Without a configuration, `spec` itself.
topology::SystemSpec configured_platform(const plan::Plan& plan, const topology::SystemSpec& spec,
                                         const std::string& file = "plan");

}  // namespace partsim::planner
