#pragma once
// What the platform's device model takes for a plan's compute: each layer's shards (the boxes the
// sharding lowering gives its compute tasks) priced by devices::shard_time, per pass the slowest
// shard. Strategies that price their compute with the device model (AccPar's compute=device) and
// simplan's prediction check (prediction_check.hpp) read the same numbers.
//
// Contract: pure; seconds.

#include <vector>

#include "sim/plan/plan.hpp"
#include "topology/system_spec.hpp"
#include "workloads/graph.hpp"

namespace partsim::planner {

struct ComputeCheck {
  double predicted_compute_s = 0;  // the plan's compute, summed over its layers (or of one layer)
  double device_compute_s = 0;     // per layer and pass the slowest shard by the device model, summed
  double flops_at_peak_s = 0;      // the same shards' FLOPs at the devices' peaks, summed
  double memory_bound_s = 0;       // how much of device_compute_s the memory term adds
};

/// The device model's compute of each layer's shards (the sharding lowering's compute tasks, without
/// any communication), one entry per plan layer; what strategies that price their compute with the
/// device model (AccPar's compute=device) charge.
std::vector<ComputeCheck> check_compute_by_layer(const plan::Plan& plan, const topology::SystemSpec& spec,
                                                 const workloads::Graph& graph);
/// The same summed over the layers.
ComputeCheck check_compute(const plan::Plan& plan, const topology::SystemSpec& spec, const workloads::Graph& graph);

}  // namespace partsim::planner
