#include "sim/devices/shard_compute.hpp"

#include <algorithm>
#include <array>
#include <variant>

namespace partsim::devices {
namespace {

long long ceil_div(long long a, long long b) { return b <= 1 ? a : (a + b - 1) / b; }

/// One array's share of the shard's loops: `units` = cores x arrays, each prime factor given to the
/// loop with the most work left (minibatch, output features, output positions, input features).
ArrayWork per_array(ArrayWork w, int units) {
  std::array<long long*, 4> loops{&w.mb, &w.out, &w.ij, &w.in};
  for (int n = units, p = 2; n > 1;) {
    if (n % p != 0) {
      ++p;
      continue;
    }
    long long* largest = *std::max_element(loops.begin(), loops.end(), [](long long* a, long long* b) { return *a < *b; });
    *largest = ceil_div(*largest, p);
    n /= p;
  }
  return w;
}

}  // namespace

ShardTime shard_time(const topology::DeviceType& device, const ShardWork& work, plan::Pass pass) {
  ShardTime t;
  if (const auto* r = std::get_if<topology::RooflineDevice>(&device.model)) {
    const double flops = work.primary_flops + work.aux_flops;
    const double t_flops = r->peak_flops > 0 ? flops / r->peak_flops : 0;
    const double t_memory = r->memory_bandwidth > 0 ? work.memory_bytes / r->memory_bandwidth : 0;
    t.compute_s = std::max(t_flops, t_memory);
    t.memory_bound = t_memory > t_flops;
    return t;
  }
  const auto& chip = std::get<topology::TemplateDevice>(device.model);
  const auto& core = chip.core;
  if (work.on_arrays && work.primary_flops > 0) {
    const ArrayWork a = per_array(work.loops, chip.cores * std::max(1, core.arrays));
    t.compute_s += pricomp_cycles(a, pass, core) / core.frequency_hz;
  } else if (work.primary_flops > 0) {
    t.compute_s += work.primary_flops / chip.peak_flops();
  }
  if (work.aux_flops > 0)
    t.compute_s += work.aux_flops / (static_cast<double>(chip.cores) * core.sfus * core.sfu_lanes * core.frequency_hz);
  t.memory_bytes = work.memory_bytes;
  return t;
}

}  // namespace partsim::devices
