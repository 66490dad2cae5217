#include "sim/dsm/transfers.hpp"

#include <algorithm>
#include <string>

#include "sim/common/error.hpp"

namespace partsim::dsm {

const char* to_string(ChipSplit split) {
  switch (split) {
    case ChipSplit::data: return "data";
    case ChipSplit::model: return "model";
    case ChipSplit::data_x_model_y: return "data_x_model_y";
    case ChipSplit::model_x_data_y: return "model_x_data_y";
  }
  return "data";
}

ChipSplit chip_split_from_string(const std::string& name) {
  for (ChipSplit s : {ChipSplit::data, ChipSplit::model, ChipSplit::data_x_model_y, ChipSplit::model_x_data_y})
    if (name == to_string(s)) return s;
  throw UnknownNameError("chip split", name, "data, model, data_x_model_y, model_x_data_y");
}

ChipFactors chip_factors(ChipSplit split, int M, int N) {
  ChipFactors f;
  switch (split) {
    case ChipSplit::data: f = {M * N, 1, true, true}; break;
    case ChipSplit::model: f = {1, M * N, false, false}; break;
    case ChipSplit::data_x_model_y: f = {M, N, true, false}; break;   // seed 003 §III-A
    case ChipSplit::model_x_data_y: f = {N, M, false, true}; break;
  }
  return f;
}

double ring_reduce_scatter_link_bytes(double bytes, int p) {
  if (p <= 1) return 0;
  return bytes * (p - 1) / p;
}

double ring_all_gather_link_bytes(double bytes, int p) { return ring_reduce_scatter_link_bytes(bytes, p); }

double ring_all_to_all_link_bytes(double bytes, int p) {
  if (p <= 1) return 0;
  const double piece = bytes / p;
  return piece * p * (p - 1) / 2.0;  // the piece for distance d crosses d links
}

LinkLoads& LinkLoads::operator+=(const LinkLoads& o) {
  memory += o.memory;
  on_chip += o.on_chip;
  x += o.x;
  y += o.y;
  latency += o.latency;
  return *this;
}

double LinkTimes::slowest() const { return std::max({memory, on_chip, x, y}); }

LinkTimes link_times(const LinkLoads& l, const DsmSystem& s) {
  LinkTimes t;
  t.memory = l.memory > 0 ? l.memory / s.memory_bandwidth() : 0;
  t.on_chip = l.on_chip > 0 ? l.on_chip / s.chip.core_to_core_bandwidth : 0;
  t.x = l.x > 0 ? l.x / s.bw_x : 0;
  t.y = l.y > 0 ? l.y / s.bw_y : 0;
  return t;
}

double group_time(const LinkLoads& loads, const DsmSystem& system) {
  return link_times(loads, system).slowest() + loads.latency;
}

double on_chip_fetch_link_bytes(double chip_bytes, long long split, int cores) {
  if (cores <= 1 || chip_bytes <= 0) return 0;
  return split <= 1 ? chip_bytes : chip_bytes / 2.0;
}

double partial_sum_time(double tile_bytes, long long k, const DsmSystem& s) {
  if (k <= 1) return 0;
  const double kd = static_cast<double>(k);
  return tile_bytes * (kd - 1) / kd / s.chip.core_to_core_bandwidth + (kd - 1) * s.chip.on_chip_latency;
}

GradientTraffic gradient_reduction(double grad_bytes, ChipSplit split, const DsmSystem& s) {
  GradientTraffic g;
  const ChipFactors f = chip_factors(split, s.M, s.N);
  const int px = f.x_data ? s.M : 1;  // chips reducing along X
  const int py = f.y_data ? s.N : 1;
  if (px * py <= 1) return g;
  // seed 003 §II-D: accumulate along X first; the partial gradients shrink by px before Y (§III-A).
  g.sum_x = ring_reduce_scatter_link_bytes(grad_bytes, px);
  g.sum_y = ring_reduce_scatter_link_bytes(grad_bytes / px, py);
  g.broadcast_y = ring_all_gather_link_bytes(grad_bytes / px, py);
  g.broadcast_x = ring_all_gather_link_bytes(grad_bytes, px);
  g.loads.x = g.sum_x + g.broadcast_x;
  g.loads.y = g.sum_y + g.broadcast_y;
  // Partial gradients are read from external memory once and the new weights written once; both
  // cross the on-chip interconnect between the memory port and the chip-to-chip interface.
  g.loads.memory = 2 * grad_bytes;
  g.loads.on_chip = grad_bytes;
  g.loads.latency = 2.0 * (px - 1) * s.lat_x + 2.0 * (py - 1) * s.lat_y;
  return g;
}

RotationSteps rotation_steps(ChipSplit split, int M, int N) {
  switch (split) {
    case ChipSplit::data: return {0, 0};
    case ChipSplit::model: return {N * (M - 1), N - 1};  // M*N iterations, Y once every M
    case ChipSplit::data_x_model_y: return {0, N - 1};
    case ChipSplit::model_x_data_y: return {M - 1, 0};
  }
  return {0, 0};
}

double rotation_time(double chunk_bytes, ChipSplit split, const DsmSystem& s) {
  const RotationSteps r = rotation_steps(split, s.M, s.N);
  double t = 0;
  if (r.x > 0) t += r.x * (chunk_bytes / s.bw_x + s.lat_x);
  if (r.y > 0) t += r.y * (chunk_bytes / s.bw_y + s.lat_y);
  return t;
}

LinkLoads relayout(double tensor_bytes, ChipSplit from, ChipSplit to, const DsmSystem& s) {
  LinkLoads l;
  const ChipFactors a = chip_factors(from, s.M, s.N);
  const ChipFactors b = chip_factors(to, s.M, s.N);
  const bool change_x = a.x_data != b.x_data && s.M > 1;
  const bool change_y = a.y_data != b.y_data && s.N > 1;
  if (!change_x && !change_y) return l;
  const double per_chip = tensor_bytes / s.chips();
  // Dimension-order all-to-all: along X each chip exchanges its share with its row; then along Y
  // the pieces already sorted by column are exchanged within the column (seed 003 §II-D: "broken
  // into M*N portions, one distinct portion is sent to every other chip").
  if (change_x) {
    l.x = ring_all_to_all_link_bytes(per_chip, s.M);
    l.latency += (s.M - 1) * s.lat_x;
  }
  if (change_y) {
    l.y = ring_all_to_all_link_bytes(per_chip, s.N);
    l.latency += (s.N - 1) * s.lat_y;
  }
  l.memory = 2 * per_chip;  // read the old layout, write the new one
  l.on_chip = per_chip;
  return l;
}

}  // namespace partsim::dsm
