#include "sim/planners/mars/latency_model.hpp"

#include <algorithm>
#include <limits>

#include "sim/collectives/formulas.hpp"
#include "sim/common/error.hpp"
#include "sim/devices/shard_compute.hpp"
#include "sim/geometry/layer_geometry.hpp"
#include "sim/planners/mars/acc_sets.hpp"

namespace partsim::mars {
namespace {

using plan::ShardDim;

plan::Range plan::LoopBox::*axis_of(ShardDim d) {
  switch (d) {
    case ShardDim::batch: return &plan::LoopBox::batch;
    case ShardDim::out_channels: return &plan::LoopBox::out_channels;
    case ShardDim::in_channels: return &plan::LoopBox::in_channels;
    case ShardDim::width: return &plan::LoopBox::width;
    default: return &plan::LoopBox::height;
  }
}

bool shares_weights(ShardDim d) { return d == ShardDim::out_channels || d == ShardDim::in_channels; }

}  // namespace

LatencyModel::LatencyModel(const topology::SystemSpec& spec, const workloads::Graph& graph, DesignChoice choice)
    : spec_(spec), graph_(graph), topology_(spec), fixed_(choice == DesignChoice::fixed) {
  if (fixed_) {
    designs_.push_back(kFixedDesigns);
  } else {
    for (const auto& [name, type] : spec.device_types)
      if (std::holds_alternative<topology::FpgaDesign>(type.model)) designs_.push_back(name);
    if (designs_.empty())
      throw InputError("mars: platform '" + spec.name +
                       "' lists no accelerator designs (device types of kind design, e.g. configs/f1_16xlarge.yaml); "
                       "give --option designs=fixed to keep every device as configured");
    for (int d = 0; d < spec.device_count(); ++d)
      if (!std::holds_alternative<topology::FpgaDesign>(spec.device_type(d).model))
        throw InputError("mars: device " + spec.device_names[static_cast<std::size_t>(d)] + " of platform '" + spec.name +
                         "' is not an accelerator design (kind design): MARS configures every accelerator; give "
                         "--option designs=fixed to keep every device as configured");
  }
  sets_ = candidate_sets(topology_);
  for (const auto& s : sets_) ring_bw_.push_back(mars::ring_bandwidth(topology_, s));
  bpe_ = static_cast<double>(topology::bytes_per_element(spec.precision));
  is_primary_.assign(graph.size(), 0);
  for (std::size_t v = 0; v < graph.size(); ++v) {
    const auto& L = graph.layer(v);
    if (L.q.primary && L.q.params > 0 && geometry::has_two_channel_axes(L)) {
      primary_.push_back(v);
      is_primary_[v] = 1;
    }
  }
  if (primary_.empty()) throw InputError("mars: workload '" + graph.name() + "' has no convolution or FC layer to map");
}

bool LatencyModel::is_primary(std::size_t layer) const { return is_primary_.at(layer) != 0; }

double LatencyModel::memory_bytes(int design) const {
  if (fixed_) {
    double smallest = std::numeric_limits<double>::infinity();
    for (int d = 0; d < spec_.device_count(); ++d) smallest = std::min(smallest, spec_.device_type(d).memory_bytes());
    return smallest;
  }
  return spec_.device_types.at(designs_.at(static_cast<std::size_t>(design))).memory_bytes();
}

const LayerCost& LatencyModel::layer_cost(std::size_t v, int set, int design, const LayerStrategy& s) const {
  const auto key = std::make_tuple(v, set, design, s);
  if (auto it = cost_cache_.find(key); it != cost_cache_.end()) return it->second;
  const workloads::Layer& L = graph_.layer(v);
  const auto& devices = sets_.at(static_cast<std::size_t>(set));
  const plan::LoopExtent e = geometry::loop_extent(L, graph_.batch());
  const plan::Sharding sh = to_sharding(s, devices);
  std::vector<plan::DeviceBox> boxes;
  for (const auto& db : plan::shard_boxes(sh, e, spec_.device_count()))
    if (!db.box.empty()) boxes.push_back(db);
  const double bw = ring_bw_.at(static_cast<std::size_t>(set));
  LayerCost c;
  // SS ring size: the devices needing the same operand (as the lowering groups them).
  std::size_t ring = 1;
  const bool weights_ss = s.ss && shares_weights(*s.ss);
  if (s.ss && !(weights_ss && L.q.params <= 0)) {
    std::map<std::vector<plan::Range>, std::size_t> groups;
    for (const auto& db : boxes) {
      const auto& b = db.box;
      ++groups[weights_ss ? geometry::weight_key(L, b) : std::vector<plan::Range>{b.batch, b.in_channels, b.height, b.width}];
    }
    for (const auto& [k, n] : groups) ring = std::max(ring, n);
  }
  int reduction = 1;
  for (const auto& [dim, parts] : s.es)
    if (dim == ShardDim::in_channels && geometry::has_two_channel_axes(L)) reduction *= parts;
  for (const auto& db : boxes) {
    plan::LoopBox piece = db.box;
    if (ring > 1) {  // one phase: 1/ring of the shared dimension
      plan::Range& r = piece.*axis_of(*s.ss);
      r = {r.lo, r.lo + (r.size() + static_cast<std::int64_t>(ring) - 1) / static_cast<std::int64_t>(ring)};
    }
    const auto w = geometry::shard_work(L, piece, e, graph_.batch(), plan::Pass::fwd, bpe_);
    // fixed: each member on its own type; the set waits for the slowest (seed 004 §VI-C).
    const topology::DeviceType& type =
        fixed_ ? spec_.device_type(db.device) : spec_.device_types.at(designs_.at(static_cast<std::size_t>(design)));
    const double phase = devices::shard_time(type, w, plan::Pass::fwd).compute_s;
    c.compute_s = std::max(c.compute_s, phase * static_cast<double>(ring));
    const double out = geometry::output_box(L, db.box, e, graph_.batch()).elements() * bpe_;
    double in = 0;
    for (std::size_t slot = 0; slot < L.input_shapes.size(); ++slot)
      in += geometry::input_box(L, slot, db.box, e, graph_.batch()).elements() * bpe_;
    double weights = L.q.weight_elements * geometry::weight_fraction(L, db.box, e) * bpe_;
    if (ring > 1) {
      const double slice = weights_ss ? weights / static_cast<double>(ring) : in / static_cast<double>(ring);
      // SS (§IV): ring - 1 rotations of a slice to the next accelerator of the set (no latency in §V's model).
      c.rotation_s = std::max(c.rotation_s, static_cast<double>(ring - 1) *
                                                collectives::rotate_time({static_cast<int>(ring), 0.0, bw, false}, slice));
      if (weights_ss) weights /= static_cast<double>(ring);
      else in /= static_cast<double>(ring) / 2.0;  // the slice computed and the one arriving
    }
    // Partial sums of the output reduced over the set: a ring reduce-scatter of the output (the
    // registry's ring formula, collectives/formulas.hpp, without latency as §V's model has none).
    if (reduction > 1)
      c.allreduce_s = std::max(c.allreduce_s, collectives::ring_reduce_scatter_time(
                                                  {static_cast<int>(reduction), 0.0, bw, false}, out));
    c.weights_bytes = std::max(c.weights_bytes, weights);
    c.activation_bytes = std::max(c.activation_bytes, in + out);
  }
  return cost_cache_.emplace(key, c).first->second;
}

double LatencyModel::redistribution_s(std::size_t u, const LayerStrategy& su, std::size_t v, const LayerStrategy& sv,
                                      int set) const {
  const auto key = std::make_tuple(u, v, set, su, sv);
  if (auto it = redistribution_cache_.find(key); it != redistribution_cache_.end()) return it->second;
  const auto& devices = sets_.at(static_cast<std::size_t>(set));
  const workloads::Layer& U = graph_.layer(u);
  const workloads::Layer& V = graph_.layer(v);
  const plan::LoopExtent eu = geometry::loop_extent(U, graph_.batch());
  const plan::LoopExtent ev = geometry::loop_extent(V, graph_.batch());
  const auto boxes_u = plan::shard_boxes(to_sharding(su, devices), eu, spec_.device_count());
  const auto boxes_v = plan::shard_boxes(to_sharding(sv, devices), ev, spec_.device_count());
  const auto preds = graph_.predecessors(v);
  double worst = 0;
  for (std::size_t slot = 0; slot < preds.size(); ++slot) {
    if (preds[slot] != u) continue;
    for (const auto& dv : boxes_v) {
      if (dv.box.empty()) continue;
      const geometry::TensorBox need = geometry::input_box(V, slot, dv.box, ev, graph_.batch());
      double have = 0;
      for (const auto& du : boxes_u)
        if (du.device == dv.device && !du.box.empty())
          have += geometry::intersect(need, geometry::output_box(U, du.box, eu, graph_.batch())).elements();
      worst = std::max(worst, std::max(0.0, need.elements() - have) * bpe_);
    }
  }
  const double bw = ring_bw_.at(static_cast<std::size_t>(set));
  const double t = worst > 0 ? worst / bw : 0;
  return redistribution_cache_.emplace(key, t).first->second;
}

double LatencyModel::output_bytes(std::size_t u) const {
  const workloads::Layer& U = graph_.layer(u);
  return static_cast<double>(U.output_shape.c * U.output_shape.h * U.output_shape.w) * static_cast<double>(graph_.batch()) *
         bpe_;
}

double LatencyModel::inter_set_s(std::size_t u, int a, int b) const {
  if (a == b) return 0;
  return output_bytes(u) /
         set_to_set_bandwidth(topology_, sets_.at(static_cast<std::size_t>(a)), sets_.at(static_cast<std::size_t>(b)));
}

double LatencyModel::device_to_device_s(std::size_t u, int a, int b) const {
  if (a == b) return 0;
  return output_bytes(u) / set_to_set_bandwidth(topology_, {a}, {b});
}

double LatencyModel::whole_layer_s(std::size_t v, const topology::DeviceType& type) const {
  const workloads::Layer& L = graph_.layer(v);
  const plan::LoopExtent e = geometry::loop_extent(L, graph_.batch());
  const plan::LoopBox whole{{0, e.batch}, {0, e.out_channels}, {0, e.in_channels}, {0, e.height}, {0, e.width}};
  const auto w = geometry::shard_work(L, whole, e, graph_.batch(), plan::Pass::fwd, bpe_);
  return devices::shard_time(type, w, plan::Pass::fwd).compute_s;
}

double LatencyModel::device_compute_s(std::size_t v, int device) const {
  if (on_device_.empty()) {
    on_device_.assign(static_cast<std::size_t>(spec_.device_count()), std::vector<double>(graph_.size(), 0.0));
    for (int d = 0; d < spec_.device_count(); ++d)
      for (std::size_t u = 0; u < graph_.size(); ++u)  // graph inputs compute nothing (the lowering's rule)
        on_device_[static_cast<std::size_t>(d)][u] =
            graph_.layer(u).kind == workloads::LayerKind::input ? 0.0 : whole_layer_s(u, spec_.device_type(d));
  }
  return on_device_.at(static_cast<std::size_t>(device)).at(v);
}

double LatencyModel::profile_s(int design, std::size_t first, std::size_t last) const {
  if (single_device_.empty()) {
    single_device_.assign(designs_.size(), std::vector<double>(graph_.size(), 0.0));
    for (std::size_t d = 0; d < designs_.size(); ++d)
      for (std::size_t v = 0; v < graph_.size(); ++v) {
        if (!fixed_) {
          single_device_[d][v] = whole_layer_s(v, spec_.device_types.at(designs_[d]));
          continue;
        }
        // fixed: the slowest of the platform's accelerators (a set waits for it).
        for (int dev = 0; dev < spec_.device_count(); ++dev)
          single_device_[d][v] = std::max(single_device_[d][v], device_compute_s(v, dev));
      }
  }
  double t = 0;
  for (std::size_t v = first; v <= last && v < graph_.size(); ++v) t += single_device_.at(static_cast<std::size_t>(design))[v];
  return t;
}

double LatencyModel::profile_s(int design) const { return profile_s(design, 0, graph_.size() - 1); }

}  // namespace partsim::mars
