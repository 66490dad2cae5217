#include "sim/devices/shard_compute.hpp"

#include <algorithm>

#include "sim/common/integer_math.hpp"
#include "sim/devices/device_model.hpp"
#include <vector>
#include <variant>

namespace partsim::devices {
namespace {

/// Every ordered way to write n as a product of `parts` factors, each >= 1.
void factorizations(long long n, int parts, std::vector<long long>& current, std::vector<std::vector<long long>>& out) {
  if (parts == 1) {
    current.push_back(n);
    out.push_back(current);
    current.pop_back();
    return;
  }
  for (long long f = 1; f <= n; ++f)
    if (n % f == 0) {
      current.push_back(f);
      factorizations(n / f, parts - 1, current, out);
      current.pop_back();
    }
}

/// PriComp of the shard on a chip with `units` = cores x arrays: the best division of its loops
/// (minibatch, output features, output positions, input features) over the units, each unit doing
/// the ceiling of its share (a shard-level plan says nothing of the on-chip mapping, so the chip
/// maps it as well as it can, as DeepSpatialMatrix's CoreD x ArrayD search does for its own plans).
double best_pricomp_cycles(const ArrayWork& w, int units, plan::Pass pass, const topology::CoreSpec& core) {
  std::vector<std::vector<long long>> splits;
  std::vector<long long> current;
  factorizations(units, 4, current, splits);
  double best = -1;
  for (const auto& f : splits) {
    const ArrayWork a{ceil_div(w.in, f[3]), ceil_div(w.out, f[1]), ceil_div(w.ij, f[2]), w.kij, ceil_div(w.mb, f[0])};
    const double cycles = pricomp_cycles(a, pass, core);
    if (best < 0 || cycles < best) best = cycles;
  }
  return best;
}

/// A calibrated device's time for the shard: its products as kernels of their class, or its
/// memory-bound work as one kernel of its class (shard_compute.hpp).
ShardTime calibrated_shard_time(const topology::CalibratedDevice& device, const ShardWork& w, plan::Pass pass) {
  ShardTime t;
  const auto kernel_pass = pass == plan::Pass::fwd ? topology::KernelPass::fwd : topology::KernelPass::bwd;
  const double scale = pass == plan::Pass::fwd ? 1.0 : 2.0;
  if (w.primary_flops > 0) {
    Kernel products;
    products.op = w.op == topology::OperatorClass::conv ? topology::OperatorClass::conv : topology::OperatorClass::gemm;
    products.pass = kernel_pass;
    products.flops = w.primary_flops - w.attention_core_flops;
    products.aux_flops = w.aux_flops;
    products.bytes = w.memory_bytes;
    products.lookup_scale = scale / std::max(1, w.products);
    const KernelTime p = calibrated_time(device, w.precision, products);
    t.compute_s = p.seconds;
    t.memory_bound = p.memory_bound;
    if (w.attention_core_flops > 0) {
      Kernel core;
      core.op = w.fused_attention ? topology::OperatorClass::flash_attention : topology::OperatorClass::attention;
      core.pass = kernel_pass;
      core.flops = w.attention_core_flops;
      // (lookup_scale 1: the core's backward is one kernel, as the table's attention bwd rows count it)
      t.compute_s += calibrated_time(device, w.precision, core).seconds;
    }
    return t;
  }
  Kernel k;
  k.op = is_compute_class(w.op) ? topology::OperatorClass::elementwise : w.op;
  k.pass = kernel_pass;
  k.aux_flops = w.aux_flops;
  k.bytes = w.memory_bytes;
  const KernelTime m = calibrated_time(device, w.precision, k);
  t.compute_s = m.seconds;
  t.memory_bound = m.memory_bound;
  return t;
}

}  // namespace

ShardTime shard_time(const topology::DeviceType& device, const ShardWork& work, plan::Pass pass) {
  ShardTime t;
  if (const auto* c = std::get_if<topology::CalibratedDevice>(&device.model)) return calibrated_shard_time(*c, work, pass);
  if (const auto* r = std::get_if<topology::RooflineDevice>(&device.model)) {
    const double flops = work.primary_flops + work.aux_flops;
    const double t_flops = r->peak_flops > 0 ? flops / r->peak_flops : 0;
    const double t_memory = r->memory_bandwidth > 0 ? work.memory_bytes / r->memory_bandwidth : 0;
    t.compute_s = std::max(t_flops, t_memory);
    t.memory_bound = t_memory > t_flops;
    return t;
  }
  if (const auto* d = std::get_if<topology::FpgaDesign>(&device.model)) {
    double cycles = work.on_arrays && work.primary_flops > 0 ? design_cycles(*d, work.conv) : 0;
    if (!work.on_arrays) cycles += work.primary_flops / 2.0 / static_cast<double>(std::max(1LL, d->multipliers()));
    cycles += work.aux_flops / static_cast<double>(std::max(1LL, d->multipliers()));
    const double t_compute = d->frequency_hz > 0 ? cycles / d->frequency_hz : 0;
    const double t_memory = d->memory_bandwidth > 0 ? work.memory_bytes / d->memory_bandwidth : 0;
    t.compute_s = std::max(t_compute, t_memory);
    t.memory_bound = t_memory > t_compute;
    return t;
  }
  const auto& chip = std::get<topology::TemplateDevice>(device.model);
  const auto& core = chip.core;
  if (work.on_arrays && work.primary_flops > 0) {
    t.compute_s += best_pricomp_cycles(work.loops, chip.cores * std::max(1, core.arrays), pass, core) / core.frequency_hz;
  } else if (work.primary_flops > 0) {
    t.compute_s += work.primary_flops / chip.peak_flops();
  }
  if (work.aux_flops > 0)
    t.compute_s += work.aux_flops / (static_cast<double>(chip.cores) * core.sfus * core.sfu_lanes * core.frequency_hz);
  t.memory_bytes = work.memory_bytes;
  return t;
}

}  // namespace partsim::devices
