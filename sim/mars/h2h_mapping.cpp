#include "sim/mars/h2h_mapping.hpp"

#include <algorithm>
#include <limits>

namespace partsim::mars {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

/// Each producer once, even when it feeds several of the layer's inputs (one transfer).
std::vector<std::size_t> producers(const LatencyModel& m, std::size_t v) {
  auto preds = m.graph().predecessors(v);
  std::sort(preds.begin(), preds.end());
  preds.erase(std::unique(preds.begin(), preds.end()), preds.end());
  return preds;
}

double weight_bytes(const LatencyModel& m, std::size_t v) {
  return m.graph().layer(v).q.weight_elements * m.bytes_per_element();
}

/// The layer's inputs and output, all resident while it runs.
double activation_bytes(const LatencyModel& m, std::size_t v) {
  const workloads::Layer& L = m.graph().layer(v);
  double in = 0;
  for (const auto& s : L.input_shapes) in += static_cast<double>(s.c * s.h * s.w);
  return in * static_cast<double>(m.graph().batch()) * m.bytes_per_element() + m.output_bytes(v);
}

/// Whether `device` holds layer v besides the weights and the largest layer it holds already.
bool fits(const LatencyModel& m, std::size_t v, int device, double weights, double largest) {
  return weights + weight_bytes(m, v) + std::max(largest, activation_bytes(m, v)) <= m.spec().device_type(device).memory_bytes();
}

/// When layer v's inputs are all on `device` (its producers' finishes and their transfers).
double arrival(const LatencyModel& m, std::size_t v, int device, const std::vector<int>& on, const std::vector<double>& finish) {
  double t = 0;
  for (std::size_t u : producers(m, v)) t = std::max(t, finish[u] + m.device_to_device_s(u, on[u], device));
  return t;
}

}  // namespace

double layer_footprint_bytes(const LatencyModel& m, std::size_t v) { return weight_bytes(m, v) + activation_bytes(m, v); }

double schedule_latency(const LatencyModel& m, H2hMapping& mapping) {
  const std::size_t n = m.graph().size();
  const auto devices = static_cast<std::size_t>(m.spec().device_count());
  mapping.start_s.assign(n, 0.0);
  mapping.finish_s.assign(n, 0.0);
  mapping.arrival_s.assign(n, 0.0);
  std::vector<double> free(devices, 0.0), weights(devices, 0.0), largest(devices, 0.0);
  double latency = 0;
  bool fit = true;
  for (std::size_t v = 0; v < n; ++v) {
    const int d = mapping.device[v];
    const auto di = static_cast<std::size_t>(d);
    fit = fit && fits(m, v, d, weights[di], largest[di]);
    mapping.arrival_s[v] = arrival(m, v, d, mapping.device, mapping.finish_s);
    mapping.start_s[v] = std::max(free[di], mapping.arrival_s[v]);
    mapping.finish_s[v] = mapping.start_s[v] + m.device_compute_s(v, d);
    free[di] = mapping.finish_s[v];
    latency = std::max(latency, mapping.finish_s[v]);
    weights[di] += weight_bytes(m, v);
    largest[di] = std::max(largest[di], activation_bytes(m, v));
  }
  mapping.latency_s = fit ? latency : kInfinity;
  return latency;
}

namespace {

/// Step (1): each layer, in workload order, where it would finish earliest (DRAM permitting).
H2hMapping earliest_finish(const LatencyModel& m) {
  const std::size_t n = m.graph().size();
  const int devices = m.spec().device_count();
  H2hMapping mapping;
  mapping.device.assign(n, 0);
  std::vector<double> free(static_cast<std::size_t>(devices), 0.0), finish(n, 0.0);
  std::vector<double> weights(static_cast<std::size_t>(devices), 0.0), largest(static_cast<std::size_t>(devices), 0.0);
  for (std::size_t v = 0; v < n; ++v) {
    int best = -1;
    double best_finish = kInfinity;
    for (int d = 0; d < devices; ++d) {
      const auto di = static_cast<std::size_t>(d);
      if (!fits(m, v, d, weights[di], largest[di])) continue;
      const double f = std::max(free[di], arrival(m, v, d, mapping.device, finish)) + m.device_compute_s(v, d);
      if (f < best_finish) {
        best_finish = f;
        best = d;
      }
    }
    if (best < 0) best = 0;  // nothing fits: the schedule says so (infinity)
    const auto bi = static_cast<std::size_t>(best);
    mapping.device[v] = best;
    finish[v] = best_finish < kInfinity ? best_finish : 0.0;
    free[bi] = finish[v];
    weights[bi] += weight_bytes(m, v);
    largest[bi] = std::max(largest[bi], activation_bytes(m, v));
  }
  schedule_latency(m, mapping);
  return mapping;
}

/// The whole network on the one accelerator that runs it fastest (no transfers at all).
H2hMapping fastest_single(const LatencyModel& m) {
  H2hMapping best;
  best.latency_s = kInfinity;
  for (int d = 0; d < m.spec().device_count(); ++d) {
    H2hMapping one;
    one.device.assign(m.graph().size(), d);
    if (schedule_latency(m, one) < best.latency_s || best.device.empty()) best = std::move(one);
  }
  return best;
}

/// Step (2): the single-layer move that lowers the latency most, while one does.
void refine(const LatencyModel& m, H2hMapping& mapping, int max_moves) {
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
        if (schedule_latency(m, trial) < best_latency) {
          best_latency = trial.latency_s;
          best_layer = v;
          best_device = d;
        }
        trial.device[v] = mapping.device[v];
      }
    if (best_layer == n) break;
    mapping.device[best_layer] = best_device;
    schedule_latency(m, mapping);
    ++mapping.moves;
  }
}

}  // namespace

H2hMapping h2h_mapping(const LatencyModel& m, const H2hOptions& options) {
  H2hMapping spread = earliest_finish(m);
  spread.initial_latency_s = spread.latency_s;
  refine(m, spread, options.max_moves);
  H2hMapping single = fastest_single(m);
  single.initial_latency_s = single.latency_s;
  refine(m, single, options.max_moves);
  return single.latency_s < spread.latency_s ? single : spread;
}

}  // namespace partsim::mars
