#pragma once
// Where a layer's tensors are, given the loop box a device computes (plan/sharding.hpp): the
// geometry the sharding lowering reads. docs/model.md "The sharding lowering" gives the rules.
//
// A TensorBox is a box of a tensor's (batch, channel, height, width) indices. Loop ranges map onto a
// tensor axis of another size in proportion ([floor(lo*T/E), ceil(hi*T/E))); convolution and
// pooling map output rows and columns to the input window they read; concat offsets its inputs'
// channels; flatten reads whole input channels.
//
// Contract: pure functions of a finalized workload layer.

#include <cstdint>
#include <vector>

#include "sim/devices/shard_compute.hpp"
#include "sim/plan/plan.hpp"
#include "sim/plan/sharding.hpp"
#include "workloads/layer.hpp"

namespace partsim::geometry {

struct TensorBox {
  plan::Range batch, channel, height, width;
  double elements() const;
  bool empty() const { return elements() <= 0; }
};
TensorBox intersect(const TensorBox& a, const TensorBox& b);

/// Layers with separate input and output channel axes and a reduction over the input ones (conv, fc,
/// lstm, matmul, attention, embedding); the others have one channel axis that both name.
bool has_two_channel_axes(const workloads::Layer& layer);

/// The layer's loop space at minibatch `batch`.
plan::LoopExtent loop_extent(const workloads::Layer& layer, std::int64_t batch);

/// The part of the loop space a box computes, as a fraction of the layer's work.
double work_fraction(const workloads::Layer& layer, const plan::LoopBox& box, const plan::LoopExtent& extent);
/// The part of the layer's weights a box uses (0 for a layer without weights).
double weight_fraction(const workloads::Layer& layer, const plan::LoopBox& box, const plan::LoopExtent& extent);
/// The weights a box uses, as ranges (devices with equal keys hold replicas).
std::vector<plan::Range> weight_key(const workloads::Layer& layer, const plan::LoopBox& box);
/// Devices with equal keys compute partial sums of the same outputs (two-channel-axis layers whose
/// in_channels are split).
std::vector<plan::Range> output_key(const plan::LoopBox& box);

/// The output a box computes (partial sums when in_channels is split).
TensorBox output_box(const workloads::Layer& layer, const plan::LoopBox& box, const plan::LoopExtent& extent,
                     std::int64_t batch);
/// The part of input `slot` a box reads.
TensorBox input_box(const workloads::Layer& layer, std::size_t slot, const plan::LoopBox& box,
                    const plan::LoopExtent& extent, std::int64_t batch);

/// What a box computes in `pass` for the device model: the workload's per-pass counts (primary and
/// auxiliary FLOPs) times the box's share of the work, the bytes of the operands it reads and the
/// result it writes (FWD: X, W in, Y out; BWD: dY, W in, dX out; UPD: X, dY in, dW out), and its loop
/// extents for the PE-array model.
/// The device model's operator class of a layer kind (device_model.hpp).
topology::OperatorClass operator_class(workloads::LayerKind kind);
/// The share of an attention layer's primary FLOP in `pass` that is its core (scores and context
/// products) rather than its four projections (0 in the weight-gradient pass).
double attention_core_share(const workloads::Layer& layer, plan::Pass pass);

devices::ShardWork shard_work(const workloads::Layer& layer, const plan::LoopBox& box, const plan::LoopExtent& extent,
                              std::int64_t batch, plan::Pass pass, double bytes_per_element);

}  // namespace partsim::geometry
