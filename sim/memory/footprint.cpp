#include "sim/memory/footprint.hpp"

#include <algorithm>
#include <cstddef>
#include <functional>

#include "sim/common/error.hpp"
#include "sim/geometry/layer_geometry.hpp"

namespace partsim::memory {
namespace {

using Visit = std::function<void(std::size_t layer, int device, const LayerMemory& part)>;

// Calls `visit` for every non-empty box of every layer with that box's part of the device's memory,
// sized by the lowering's geometry (layer_geometry.hpp) at the platform's element size.
void for_each_box(const plan::Plan& plan, const topology::SystemSpec& spec, const workloads::Graph& graph,
                  const plan::MemorySettings& settings, const Visit& visit) {
  const auto& layers = graph.layers();
  if (plan.layers.size() != layers.size())
    throw InputError("plan has " + std::to_string(plan.layers.size()) + " layers, workload '" + graph.name() + "' has " +
                     std::to_string(layers.size()));
  const plan::Mode mode = plan.workload.mode;
  const int e = topology::bytes_per_element(spec.precision);
  const auto bytes = static_cast<double>(e);
  const ModelStateBytes per_parameter = bytes_per_parameter(settings, mode, e);
  const std::int64_t batch = graph.batch();
  for (std::size_t v = 0; v < layers.size(); ++v) {
    const workloads::Layer& L = layers[v];
    const plan::Sharding& sharding = plan.layers[v].sharding;
    try {
      plan::validate(sharding, spec.device_count());
    } catch (const InputError& error) {
      throw InputError("plan: /layers/" + std::to_string(v) + "/sharding ('" + L.name + "'): " + error.what());
    }
    const plan::LoopExtent extent = geometry::loop_extent(L, batch);
    for (const plan::DeviceBox& db : plan::shard_boxes(sharding, extent, spec.device_count())) {
      if (db.box.empty()) continue;
      LayerMemory part;
      part.layer = L.name;
      const double params = static_cast<double>(L.q.params) * geometry::weight_fraction(L, db.box, extent);
      const ModelStateBytes states = per_parameter.times(params);
      part.weights_bytes = states.weights_bytes;
      part.gradients_bytes = states.gradients_bytes;
      part.optimizer_bytes = states.optimizer_bytes;
      const double output = geometry::output_box(L, db.box, extent, batch).elements() * bytes;
      double inputs = 0;
      for (std::size_t slot = 0; slot < L.input_shapes.size(); ++slot)
        inputs += geometry::input_box(L, slot, db.box, extent, batch).elements() * bytes;
      part.activations_bytes = output;
      // Training: BWD holds dY (output-sized) and writes dX (input-sized). Inference: the inputs read.
      part.working_bytes = mode == plan::Mode::training ? inputs + output : inputs;
      visit(v, db.device, part);
    }
  }
}

void add(plan::MemoryUse& total, const LayerMemory& part, plan::Mode mode) {
  total.weights_bytes += part.weights_bytes;
  total.gradients_bytes += part.gradients_bytes;
  total.optimizer_bytes += part.optimizer_bytes;
  if (mode == plan::Mode::training)
    total.activations_bytes += part.activations_bytes;
  else
    total.activations_bytes = std::max(total.activations_bytes, part.activations_bytes);
  total.working_bytes = std::max(total.working_bytes, part.working_bytes);
}

void finish(plan::MemoryUse& use) {
  use.per_device_bytes =
      use.weights_bytes + use.gradients_bytes + use.optimizer_bytes + use.activations_bytes + use.working_bytes;
}

bool same_use(const plan::MemoryUse& a, const plan::MemoryUse& b) {
  return a.per_device_bytes == b.per_device_bytes && a.capacity_bytes == b.capacity_bytes &&
         a.weights_bytes == b.weights_bytes && a.gradients_bytes == b.gradients_bytes &&
         a.optimizer_bytes == b.optimizer_bytes && a.activations_bytes == b.activations_bytes &&
         a.working_bytes == b.working_bytes;
}

}  // namespace

std::vector<LayerMemory> layer_memory(const plan::Plan& plan, const topology::SystemSpec& spec,
                                      const workloads::Graph& graph, const plan::MemorySettings& settings, int device) {
  std::vector<LayerMemory> rows(plan.layers.size());
  for (std::size_t v = 0; v < rows.size() && v < graph.size(); ++v) rows[v].layer = graph.layer(v).name;
  for_each_box(plan, spec, graph, settings, [&](std::size_t v, int d, const LayerMemory& part) {
    if (d == device) rows[v] = part;
  });
  return rows;
}

std::vector<BoxMemory> box_memory(const plan::Plan& plan, const topology::SystemSpec& spec,
                                  const workloads::Graph& graph, const plan::MemorySettings& settings) {
  std::vector<BoxMemory> boxes;
  for_each_box(plan, spec, graph, settings,
               [&](std::size_t v, int d, const LayerMemory& part) { boxes.push_back({v, d, part}); });
  return boxes;
}

plan::MemoryUse total_memory(const std::vector<LayerMemory>& layers, plan::Mode mode) {
  plan::MemoryUse total;
  for (const LayerMemory& part : layers) add(total, part, mode);
  finish(total);
  return total;
}

std::vector<plan::MemoryUse> device_memory(const plan::Plan& plan, const topology::SystemSpec& spec,
                                           const workloads::Graph& graph, const plan::MemorySettings& settings) {
  std::vector<plan::MemoryUse> uses(static_cast<std::size_t>(spec.device_count()));
  const plan::Mode mode = plan.workload.mode;
  for_each_box(plan, spec, graph, settings,
               [&](std::size_t, int d, const LayerMemory& part) { add(uses.at(static_cast<std::size_t>(d)), part, mode); });
  for (int d = 0; d < spec.device_count(); ++d) {
    plan::MemoryUse& use = uses[static_cast<std::size_t>(d)];
    finish(use);
    use.capacity_bytes = spec.device_type(d).memory_bytes();
    use.device = spec.device_names.at(static_cast<std::size_t>(d));
  }
  return uses;
}

plan::MemoryUse plan_memory(const plan::Plan& plan, const topology::SystemSpec& spec, const workloads::Graph& graph,
                            const plan::MemorySettings& settings) {
  std::vector<plan::MemoryUse> uses = device_memory(plan, spec, graph, settings);
  if (uses.empty()) throw Error("plan_memory: the platform has no devices");
  // The fullest: largest use over capacity (capacities are > 0: every device type requires `memory`).
  std::size_t fullest = 0;
  for (std::size_t d = 1; d < uses.size(); ++d)
    if (uses[d].per_device_bytes * uses[fullest].capacity_bytes > uses[fullest].per_device_bytes * uses[d].capacity_bytes)
      fullest = d;
  plan::MemoryUse result = uses[fullest];
  result.settings = settings;
  const bool all_same =
      std::all_of(uses.begin(), uses.end(), [&](const plan::MemoryUse& u) { return same_use(u, uses.front()); });
  if (!all_same) result.devices = std::move(uses);
  return result;
}

}  // namespace partsim::memory
