#pragma once
// Saying when a prediction cannot hold (DESIGN.md principle 2): a plan's predicted compute set
// against the platform's device model for the same shards. A strategy's cost model may leave out a
// term the device model says dominates: AccPar (seed 000 eq. 8) charges FLOPs at peak, while a
// template chip maps each shard onto its PE arrays (padding, start-up), runs auxiliary work on its
// special-function units and streams operands through its memory, and a roofline device can be
// memory-bound on element-wise layers.
//
// Contract: pure; only for strategies lowered by the shared sharding lowering (a strategy with a
// lowering of its own, dsm, costs the device itself). Seconds.

#include <string>
#include <vector>

#include "sim/plan/plan.hpp"
#include "topology/system_spec.hpp"
#include "workloads/graph.hpp"

namespace partsim::planner {

struct ComputeCheck {
  double predicted_compute_s = 0;  // the plan's compute, summed over its layers
  double device_compute_s = 0;     // per layer and pass the slowest shard by the device model, summed
  double flops_at_peak_s = 0;      // the same shards' FLOPs at the devices' peaks, summed
  double memory_bound_s = 0;       // how much of device_compute_s the memory term adds
};

/// The device model's compute of the plan's shards (the sharding lowering's compute tasks, without
/// any communication).
ComputeCheck check_compute(const plan::Plan& plan, const topology::SystemSpec& spec, const workloads::Graph& graph);

/// One line per term that changes the iteration by more than `threshold` of the prediction (empty
/// when the prediction can hold as far as compute goes): the term, its size and the prediction's.
std::vector<std::string> prediction_warnings(const plan::Plan& plan, const topology::SystemSpec& spec,
                                             const workloads::Graph& graph, double threshold = 0.10);

}  // namespace partsim::planner
