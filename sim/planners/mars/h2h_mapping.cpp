#include "sim/planners/mars/h2h_mapping.hpp"

#include <algorithm>
#include <limits>

namespace partsim::mars {
namespace {

/// What the schedule model reads of each layer, worked out once per mapping search.
struct LayerFacts {
  std::vector<std::vector<std::size_t>> producers;  // each producer once (one transfer however many inputs it feeds)
  std::vector<double> weight_bytes;
  std::vector<double> activation_bytes;  // inputs and output, all resident while the layer runs
};

LayerFacts facts_of(const LatencyModel& m) {
  const std::size_t n = m.graph().size();
  LayerFacts f;
  f.producers.resize(n);
  f.weight_bytes.resize(n);
  f.activation_bytes.resize(n);
  for (std::size_t v = 0; v < n; ++v) {
    auto preds = m.graph().predecessors(v);
    std::sort(preds.begin(), preds.end());
    preds.erase(std::unique(preds.begin(), preds.end()), preds.end());
    f.producers[v] = std::move(preds);
    const workloads::Layer& L = m.graph().layer(v);
    f.weight_bytes[v] = L.q.weight_elements * m.bytes_per_element();
    double in = 0;
    for (const auto& s : L.input_shapes) in += static_cast<double>(s.c * s.h * s.w);
    f.activation_bytes[v] = in * static_cast<double>(m.graph().batch()) * m.bytes_per_element() + m.output_bytes(v);
  }
  return f;
}

/// A schedule built layer by layer in workload order (the module comment's model): where each layer
/// would finish on a device, and placing it there.
class Placement {
 public:
  Placement(const LatencyModel& m, const LayerFacts& f, H2hMapping& mapping)
      : m_(m), f_(f), mapping_(mapping), free_(devices(), 0.0), weights_(devices(), 0.0), largest_(devices(), 0.0) {
    const std::size_t n = m.graph().size();
    mapping.device.resize(n, 0);
    mapping.start_s.assign(n, 0.0);
    mapping.finish_s.assign(n, 0.0);
    mapping.arrival_s.assign(n, 0.0);
  }

  /// Whether `device` holds layer v besides the weights and the largest layer it holds already.
  bool fits(std::size_t v, int device) const {
    const auto d = static_cast<std::size_t>(device);
    return weights_[d] + f_.weight_bytes[v] + std::max(largest_[d], f_.activation_bytes[v]) <=
           m_.spec().device_type(device).memory_bytes();
  }
  /// When layer v's inputs are all on `device` (its producers, already placed, and their transfers).
  double arrival(std::size_t v, int device) const {
    double t = 0;
    for (std::size_t u : f_.producers[v])
      t = std::max(t, mapping_.finish_s[u] + m_.device_to_device_s(u, mapping_.device[u], device));
    return t;
  }
  double finish_if(std::size_t v, int device) const {
    return std::max(free_[static_cast<std::size_t>(device)], arrival(v, device)) + m_.device_compute_s(v, device);
  }
  void place(std::size_t v, int device) {
    const auto d = static_cast<std::size_t>(device);
    fit_ = fit_ && fits(v, device);
    mapping_.device[v] = device;
    mapping_.arrival_s[v] = arrival(v, device);
    mapping_.start_s[v] = std::max(free_[d], mapping_.arrival_s[v]);
    mapping_.finish_s[v] = mapping_.start_s[v] + m_.device_compute_s(v, device);
    free_[d] = mapping_.finish_s[v];
    latency_ = std::max(latency_, mapping_.finish_s[v]);
    weights_[d] += f_.weight_bytes[v];
    largest_[d] = std::max(largest_[d], f_.activation_bytes[v]);
  }
  /// The last finish; infinity when some device's DRAM does not hold its layers.
  double latency() const { return fit_ ? latency_ : kInfinity; }

 private:
  std::size_t devices() const { return static_cast<std::size_t>(m_.spec().device_count()); }

  const LatencyModel& m_;
  const LayerFacts& f_;
  H2hMapping& mapping_;
  std::vector<double> free_, weights_, largest_;  // per device
  double latency_ = 0;
  bool fit_ = true;
};

/// The schedule of `mapping.device` (fills the times and latency_s; returns latency_s).
double schedule(const LatencyModel& m, const LayerFacts& f, H2hMapping& mapping) {
  Placement placement(m, f, mapping);
  for (std::size_t v = 0; v < m.graph().size(); ++v) placement.place(v, mapping.device[v]);
  mapping.latency_s = placement.latency();
  return mapping.latency_s;
}

/// Step (1): each layer, in workload order, where it would finish earliest (DRAM permitting).
H2hMapping earliest_finish(const LatencyModel& m, const LayerFacts& f) {
  H2hMapping mapping;
  Placement placement(m, f, mapping);
  for (std::size_t v = 0; v < m.graph().size(); ++v) {
    int best = 0;  // when nothing fits, the latency says so (infinity)
    double best_finish = kInfinity;
    for (int d = 0; d < m.spec().device_count(); ++d) {
      if (!placement.fits(v, d)) continue;
      const double finish = placement.finish_if(v, d);
      if (finish < best_finish) {
        best_finish = finish;
        best = d;
      }
    }
    placement.place(v, best);
  }
  mapping.latency_s = placement.latency();
  return mapping;
}

/// The whole network on the one accelerator that runs it fastest (no transfers at all).
H2hMapping fastest_single(const LatencyModel& m, const LayerFacts& f) {
  H2hMapping best;
  best.latency_s = kInfinity;
  for (int d = 0; d < m.spec().device_count(); ++d) {
    H2hMapping one;
    one.device.assign(m.graph().size(), d);
    if (schedule(m, f, one) < best.latency_s || best.device.empty()) best = std::move(one);
  }
  return best;
}

/// Step (2): the single-layer move that lowers the latency most, while one does.
void refine(const LatencyModel& m, const LayerFacts& f, H2hMapping& mapping, int max_moves) {
  const std::size_t n = m.graph().size();
  const int devices = m.spec().device_count();
  while (mapping.moves < max_moves && mapping.latency_s < kInfinity) {
    double best_latency = mapping.latency_s * (1 - 1e-12);  // a real improvement, not rounding
    std::size_t best_layer = n;
    int best_device = -1;
    H2hMapping trial = mapping;
    for (std::size_t v = 0; v < n; ++v)
      for (int d = 0; d < devices; ++d) {
        if (d == mapping.device[v]) continue;
        trial.device[v] = d;
        if (schedule(m, f, trial) < best_latency) {
          best_latency = trial.latency_s;
          best_layer = v;
          best_device = d;
        }
        trial.device[v] = mapping.device[v];
      }
    if (best_layer == n) break;
    mapping.device[best_layer] = best_device;
    schedule(m, f, mapping);
    ++mapping.moves;
  }
}

}  // namespace

DramNeeds dram_needs(const LatencyModel& m) {
  const LayerFacts f = facts_of(m);
  DramNeeds needs;
  for (std::size_t v = 0; v < m.graph().size(); ++v) {
    needs.largest_layer_bytes = std::max(needs.largest_layer_bytes, f.weight_bytes[v] + f.activation_bytes[v]);
    needs.weight_bytes += f.weight_bytes[v];
  }
  return needs;
}

double schedule_latency(const LatencyModel& m, H2hMapping& mapping) { return schedule(m, facts_of(m), mapping); }

H2hMapping h2h_mapping(const LatencyModel& m, const H2hOptions& options) {
  const LayerFacts f = facts_of(m);
  H2hMapping spread = earliest_finish(m, f);
  spread.initial_latency_s = spread.latency_s;
  refine(m, f, spread, options.max_moves);
  H2hMapping single = fastest_single(m, f);
  single.initial_latency_s = single.latency_s;
  refine(m, f, single, options.max_moves);
  return single.latency_s < spread.latency_s ? single : spread;
}

}  // namespace partsim::mars
