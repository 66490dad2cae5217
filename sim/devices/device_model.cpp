#include "sim/devices/device_model.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace partsim::devices {

using topology::KernelPass;
using topology::OperatorClass;
using topology::Precision;

bool is_compute_class(OperatorClass op) {
  return op == OperatorClass::gemm || op == OperatorClass::conv || op == OperatorClass::attention ||
         op == OperatorClass::flash_attention;
}

double gemm_flops(double m, double n, double k, double batch) { return 2 * m * n * k * batch; }

Kernel gemm(double m, double n, double k, double batch, KernelPass pass, double bpe) {
  Kernel g;
  g.op = OperatorClass::gemm;
  g.pass = pass;
  const double a = m * k * batch, b = k * n * batch, c = m * n * batch;
  // Forward C = A B; backward dA = dC B^T and dB = A^T dC: twice the products, A, B and dC read, dA and
  // dB written.
  g.flops = gemm_flops(m, n, k, batch) * (pass == KernelPass::fwd ? 1 : 2);
  g.bytes = (pass == KernelPass::fwd ? a + b + c : 2 * (a + b) + c) * bpe;
  return g;
}

Kernel attention(double batch, double heads, double s_q, double s_kv, double d, bool fused, KernelPass pass,
                 double bpe) {
  Kernel k;
  k.op = fused ? OperatorClass::flash_attention : OperatorClass::attention;
  k.pass = pass;
  const double scores = batch * heads * s_q * s_kv;
  const double q = batch * heads * s_q * d, kv = batch * heads * s_kv * d;
  // Two products forward (scores, context), four backward (recomputation of a fused kernel is not
  // counted: its efficiency absorbs it); softmax is about 5 element operations per score.
  k.flops = 4 * scores * d * (pass == KernelPass::fwd ? 1 : 2);
  k.aux_flops = 5 * scores;
  // Q, K, V in and the context out (forward); their gradients too (backward). Unfused, the scores and
  // probabilities make a round trip through memory as well.
  const double io = (pass == KernelPass::fwd ? 2 * q + 2 * kv : 4 * q + 4 * kv);
  k.bytes = (io + (fused ? 0 : (pass == KernelPass::fwd ? 4 : 6) * scores)) * bpe;
  return k;
}

Kernel memory_bound(OperatorClass op, double elements, int inputs, KernelPass pass, double bpe) {
  Kernel k;
  k.op = op;
  k.pass = pass;
  k.aux_flops = elements * (op == OperatorClass::normalization ? 8 : op == OperatorClass::softmax ? 5 : 1);
  const double tensors = pass == KernelPass::fwd ? inputs + 1 : inputs + 2;
  k.bytes = elements * tensors * bpe;
  return k;
}

Kernel optimizer_step(double params, double bytes_per_param) {
  Kernel k;
  k.op = OperatorClass::optimizer;
  k.aux_flops = 12 * params;  // Adam: moments, bias corrections, square root, division, update
  k.bytes = params * bytes_per_param;
  return k;
}

namespace {

/// The rows of one (op, precision, pass), in ascending size (the parser keeps a group's rows in order).
std::vector<const topology::EfficiencyPoint*> rows_of(const topology::CalibratedDevice& d, OperatorClass op,
                                                      Precision precision, KernelPass pass) {
  std::vector<const topology::EfficiencyPoint*> rows;
  for (const auto& r : d.efficiency)
    if (r.op == op && r.precision == precision && r.pass == pass) rows.push_back(&r);
  std::sort(rows.begin(), rows.end(), [](const auto* a, const auto* b) { return a->size < b->size; });
  return rows;
}

double interpolate(const std::vector<const topology::EfficiencyPoint*>& rows, double size) {
  if (size <= rows.front()->size) return rows.front()->efficiency;
  if (size >= rows.back()->size) return rows.back()->efficiency;
  for (std::size_t i = 1; i < rows.size(); ++i)
    if (size <= rows[i]->size) {
      const double x0 = std::log10(rows[i - 1]->size), x1 = std::log10(rows[i]->size);
      const double t = (std::log10(size) - x0) / (x1 - x0);
      return rows[i - 1]->efficiency + t * (rows[i]->efficiency - rows[i - 1]->efficiency);
    }
  return rows.back()->efficiency;
}

}  // namespace

std::optional<double> table_efficiency(const topology::CalibratedDevice& d, OperatorClass op, Precision precision,
                                       KernelPass pass, double size) {
  // The precision asked for, then its 2-byte sibling, then any; the pass asked for, then fwd.
  std::vector<Precision> precisions = {precision};
  if (precision == Precision::bf16) precisions.push_back(Precision::fp16);
  if (precision == Precision::fp16 || precision == Precision::int8) precisions.push_back(Precision::bf16);
  for (Precision p : {Precision::bf16, Precision::fp16, Precision::fp32})
    if (std::find(precisions.begin(), precisions.end(), p) == precisions.end()) precisions.push_back(p);
  for (KernelPass ps : {pass, KernelPass::fwd})
    for (Precision p : precisions) {
      const auto rows = rows_of(d, op, p, ps);
      if (!rows.empty()) return interpolate(rows, std::max(size, 0.0));
    }
  return std::nullopt;
}

KernelTime calibrated_time(const topology::CalibratedDevice& d, Precision precision, const Kernel& k) {
  KernelTime t;
  const bool compute_class = is_compute_class(k.op);
  double e_compute = 1, e_memory = d.memory_efficiency;
  if (compute_class && k.flops > 0)
    e_compute = table_efficiency(d, k.op, precision, k.pass, k.flops * k.lookup_scale).value_or(d.compute_efficiency);
  if (!compute_class && k.bytes > 0)
    e_memory = table_efficiency(d, k.op, precision, k.pass, k.bytes * k.lookup_scale).value_or(d.memory_efficiency);
  const double peak = d.peak_flops(precision);
  const double t_compute = (k.flops > 0 && peak > 0 ? k.flops / (peak * e_compute) : 0) +
                           (k.aux_flops > 0 && d.peak_vector > 0 ? k.aux_flops / d.peak_vector : 0);
  const double t_memory = k.bytes > 0 && d.memory_bandwidth > 0 ? k.bytes / (d.memory_bandwidth * e_memory) : 0;
  t.seconds = std::max(t_compute, t_memory);
  t.memory_bound = t_memory > t_compute;
  t.efficiency = t.memory_bound ? e_memory : compute_class ? e_compute : 1;
  return t;
}

}  // namespace partsim::devices
