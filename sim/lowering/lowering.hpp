#pragma once
// Lowering: a partition plan becomes a program::Program, the primitive events one training
// iteration (or one inference) performs on the platform, with their dependencies (DESIGN.md
// principle 1: one lowering, two evaluators). The closed-form evaluator and the SimGrid replay time
// the same Program; simrun reports both beside the planner's own prediction.
//
// Contract:
// - `plan` has passed planner::check_plan against `spec` and `workload` (same platform, same layers).
// - `topology` is the platform at the replay's granularity. At chip granularity an Endpoint is a
//   device (core -1); at core granularity compute runs on cores and transfers go core to core, and a
//   template chip's external memory is an endpoint of its own (Endpoint::memory).
// - Every task names its layer (Program::add_layer in plan order) and pass; compute durations come
//   from the platform's device model (template chip: the PE-array model; roofline device: FLOPs and
//   bytes against its peaks); transfers are what the plan's sharding implies, routed on the real
//   topology. A lowering never reads the plan's predicted times (DESIGN.md principle 1).
// - Deterministic: the same inputs give the same Program, task for task.

#include "sim/plan/plan.hpp"
#include "sim/program/program.hpp"
#include "topology/system_spec.hpp"
#include "topology/topology_graph.hpp"
#include "workloads/graph.hpp"

namespace partsim::lowering {

struct Context {
  const plan::Plan& plan;
  const topology::SystemSpec& spec;          // the resolved platform (plan.config matches it)
  const workloads::Graph& workload;          // finalized, at plan.workload.batch and mode
  const topology::TopologyGraph& topology;   // the platform at the replay's granularity
  std::size_t max_tasks = 0;                 // the Program's task limit (program::TaskLimitExceeded); 0: none
};

/// Which lowering a strategy uses is its registry entry's choice (planner::StrategyRegistry::lower):
/// the shared sharding lowering (sharding_lowering.hpp) unless the family needs more (dsm).

}  // namespace partsim::lowering
