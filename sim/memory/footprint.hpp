#pragma once
// A plan's memory per device on the shared sharding lowering's terms (docs/model.md "Memory
// footprint"): what each device holds is read off the boxes of every layer's sharding with the
// lowering's own geometry (sim/geometry/layer_geometry.hpp), never derived again here.
//
// Per device d, over the layers whose sharding gives d a box (e = the platform's element size):
//   weights, gradients, optimizer  params x weight_fraction(box) x bytes_per_parameter()
//                                  (parameter_bytes.hpp): the weights of the box's (out_channels,
//                                  in_channels) range, replicated over batch / height / width splits;
//                                  gradients and optimizer states likewise (training only).
//   activations   training: the sum over layers of the box's output (output_box) x e, kept from
//                 FWD until the layer's BWD (every layer's output, input layers' samples included);
//                 inference: the largest one output box x e (a layer's output lives until its
//                 consumers have run; nothing is kept).
//   working       the largest operand set of one layer in flight besides: training, a layer's BWD
//                 reads dY (its output box) and writes dX (its input boxes, as many as it reads
//                 in FWD, which may be gathered copies of another sharding's shards); inference, the
//                 input boxes a layer reads. Collective buffers are not counted (issue 39 item 1 leaves
//                 them to the replay's memory timeline).
// Shared shards (MARS SS) are counted as replicated, as the lowering's backward pass treats them.
//
// Contract: pure; bytes. The plan must match the graph (one plan layer per workload layer, in the
// workload's order) and its shardings must be valid for the platform (InputError otherwise).

#include <cstddef>
#include <string>
#include <vector>

#include "sim/memory/parameter_bytes.hpp"
#include "sim/plan/plan.hpp"
#include "topology/system_spec.hpp"
#include "workloads/graph.hpp"

namespace partsim::memory {

/// One layer's part of one device's memory (bytes).
struct LayerMemory {
  std::string layer;
  double weights_bytes = 0;
  double gradients_bytes = 0;
  double optimizer_bytes = 0;
  double activations_bytes = 0;  // its output box on the device
  double working_bytes = 0;      // its operands in flight (file comment)
};

/// One non-empty box of one layer: the device it is on and its part of that device's memory.
struct BoxMemory {
  std::size_t layer = 0;  // index in the plan and the workload
  int device = -1;
  LayerMemory bytes;
};

/// Every non-empty box of every layer, in plan order (the replay's memory timeline places them in
/// time: memory_timeline.hpp).
std::vector<BoxMemory> box_memory(const plan::Plan& plan, const topology::SystemSpec& spec,
                                  const workloads::Graph& graph, const plan::MemorySettings& settings);

/// Every layer of the plan on `device` (layers without a box on it included, at 0), in plan order.
std::vector<LayerMemory> layer_memory(const plan::Plan& plan, const topology::SystemSpec& spec,
                                      const workloads::Graph& graph, const plan::MemorySettings& settings, int device);

/// One device's total from its layers: model states and (training) activations summed, inference
/// activations and working the largest. `capacity_bytes` and `device` are left for the caller.
plan::MemoryUse total_memory(const std::vector<LayerMemory>& layers, plan::Mode mode);

/// Every device's memory use, in device order, each with its name and its type's memory capacity.
std::vector<plan::MemoryUse> device_memory(const plan::Plan& plan, const topology::SystemSpec& spec,
                                           const workloads::Graph& graph, const plan::MemorySettings& settings);

/// plan.json's `memory`: the fullest device's use (the largest use over capacity, the lowest index on
/// a tie), the settings, and every device's use in `devices` when they are not all the same.
plan::MemoryUse plan_memory(const plan::Plan& plan, const topology::SystemSpec& spec, const workloads::Graph& graph,
                            const plan::MemorySettings& settings);

}  // namespace partsim::memory
