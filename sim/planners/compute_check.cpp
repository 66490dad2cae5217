#include "sim/planners/compute_check.hpp"

#include <algorithm>
#include <variant>

#include "sim/devices/shard_compute.hpp"
#include "sim/geometry/layer_geometry.hpp"

namespace partsim::planner {

std::vector<ComputeCheck> check_compute_by_layer(const plan::Plan& plan, const topology::SystemSpec& spec,
                                                 const workloads::Graph& graph) {
  std::vector<ComputeCheck> layers(plan.layers.size());
  const double bpe = static_cast<double>(topology::bytes_per_element(spec.precision));
  const bool training = plan.workload.mode == plan::Mode::training;
  for (std::size_t v = 0; v < graph.size() && v < plan.layers.size(); ++v) {
    ComputeCheck& c = layers[v];
    const workloads::Layer& L = graph.layer(v);
    c.predicted_compute_s = plan.layers[v].predicted.compute_s;
    if (L.kind == workloads::LayerKind::input) continue;
    bool needs_input_error = false;
    for (std::size_t u : graph.predecessors(v)) needs_input_error |= graph.layer(u).kind != workloads::LayerKind::input;
    const plan::LoopExtent e = geometry::loop_extent(L, graph.batch());
    const auto boxes = plan::shard_boxes(plan.layers[v].sharding, e, spec.device_count());
    for (const plan::Pass pass : {plan::Pass::fwd, plan::Pass::bwd, plan::Pass::upd}) {
      if (!training && pass != plan::Pass::fwd) continue;
      if (pass == plan::Pass::bwd && !needs_input_error) continue;
      double slowest = 0, slowest_flops = 0, slowest_no_memory = 0;
      for (const auto& db : boxes) {
        if (db.box.empty()) continue;
        const auto& device = spec.device_type(db.device);
        const devices::ShardWork w = geometry::shard_work(L, db.box, e, graph.batch(), pass, bpe);
        if (w.primary_flops + w.aux_flops <= 0) continue;  // no work: the lowering has no task either
        const devices::ShardTime t = devices::shard_time(device, w, pass);
        double time = t.compute_s, no_memory = t.compute_s;
        if (const auto* chip = std::get_if<topology::TemplateDevice>(&device.model))  // its memory link, at once
          time = std::max(time, chip->memory_latency + t.memory_bytes / chip->effective_memory_bandwidth());
        if (const auto* r = std::get_if<topology::RooflineDevice>(&device.model))
          no_memory = r->peak_flops > 0 ? (w.primary_flops + w.aux_flops) / r->peak_flops : 0;
        slowest = std::max(slowest, time);
        slowest_no_memory = std::max(slowest_no_memory, no_memory);
        slowest_flops = std::max(slowest_flops, (w.primary_flops + w.aux_flops) / device.peak_flops(spec.precision));
      }
      c.device_compute_s += slowest;
      c.flops_at_peak_s += slowest_flops;
      c.memory_bound_s += std::max(0.0, slowest - slowest_no_memory);
    }
  }
  return layers;
}

ComputeCheck check_compute(const plan::Plan& plan, const topology::SystemSpec& spec, const workloads::Graph& graph) {
  ComputeCheck sum;
  for (const ComputeCheck& c : check_compute_by_layer(plan, spec, graph)) {
    sum.predicted_compute_s += c.predicted_compute_s;
    sum.device_compute_s += c.device_compute_s;
    sum.flops_at_peak_s += c.flops_at_peak_s;
    sum.memory_bound_s += c.memory_bound_s;
  }
  return sum;
}

}  // namespace partsim::planner
