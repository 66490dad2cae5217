#pragma once
// Megatron-LM's optimizer step on one device (issue 40 item 3: "... the optimizer step"), priced by
// the platform's device model, shared by the planner and the lowering (like the TP shard):
//   Adam (Megatron-LM's default, fused) with fp32 main parameters and moments over the parameters
//   the device updates: its stage's TP shard, and with ZeRO >= 1 (the distributed optimizer) only
//   its 1/dp of that (Rajbhandari 2020 §5.1: each data-parallel rank updates its partition);
//   per parameter devices::optimizer_step's 28 B moved (read parameter, gradient and two moments,
//   write parameter and moments, fp32) and 12 FLOP, a memory-bound kernel of the `optimizer` class
//   (a calibrated device's table rows of that class where it has them, e.g. the H100's measured
//   fused AdamW; its defaults otherwise). The bf16 copy of the updated parameters and the gradient
//   clipping's norm are not counted.
//
// Contract: pure; seconds; 0 parameters take 0.

#include "sim/devices/shard_compute.hpp"
#include "topology/system_spec.hpp"

namespace partsim::megatron {

/// The parameters one device updates: `rank_parameters` (its stage's TP shard), / dp with ZeRO >= 1.
double updated_parameters(double rank_parameters, int zero, int dp);

/// The optimizer step's work on a device, as the device model takes it (pass fwd, see the .cpp).
devices::ShardWork optimizer_step_work(double updated_parameters);

/// Its time on `device`.
double optimizer_step_s(const topology::DeviceType& device, double updated_parameters);

}  // namespace partsim::megatron
