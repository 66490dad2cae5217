#include "sim/planners/dsm/transfers.hpp"

#include <algorithm>
#include <string>

#include "sim/collectives/formulas.hpp"
#include "sim/common/error.hpp"

namespace partsim::dsm {

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

namespace {
int directions(int p, bool bidirectional) { return bidirectional && p > 2 ? 2 : 1; }
collectives::AxisRing axis_x(const DsmSystem& s) { return {s.M, s.lat_x, s.bw_x, s.bidirectional}; }
collectives::AxisRing axis_y(const DsmSystem& s) { return {s.N, s.lat_y, s.bw_y, s.bidirectional}; }
}  // namespace

double ring_reduce_scatter_link_bytes(double bytes, int p, bool bidirectional) {
  if (p <= 1) return 0;
  return bytes * (p - 1) / (static_cast<double>(p) * directions(p, bidirectional));
}

double ring_all_gather_link_bytes(double bytes, int p, bool bidirectional) {
  return ring_reduce_scatter_link_bytes(bytes, p, bidirectional);
}

double ring_all_to_all_link_bytes(double bytes, int p, bool bidirectional) {
  if (p <= 1) return 0;
  const double piece = bytes / p;
  double hops = 0;
  for (int k = 1; k < p; ++k) hops += bidirectional ? std::min(k, p - k) : k;
  return piece * hops;
}

LinkLoads& LinkLoads::operator+=(const LinkLoads& o) {
  memory += o.memory;
  on_chip += o.on_chip;
  x += o.x;
  y += o.y;
  chip_time += o.chip_time;
  latency += o.latency;
  return *this;
}

double LinkTimes::slowest() const { return std::max({memory, on_chip, chip}); }

LinkTimes link_times(const LinkLoads& l, const DsmSystem& s) {
  LinkTimes t;
  t.memory = l.memory > 0 ? l.memory / s.memory_bandwidth() : 0;
  t.on_chip = l.on_chip > 0 ? l.on_chip / s.chip.core_to_core_bandwidth : 0;
  t.chip = l.chip_time;
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
  const bool bi = s.bidirectional;
  g.sum_x = ring_reduce_scatter_link_bytes(grad_bytes, px, bi);
  g.sum_y = ring_reduce_scatter_link_bytes(grad_bytes / px, py, bi);
  g.broadcast_y = ring_all_gather_link_bytes(grad_bytes / px, py, bi);
  g.broadcast_x = ring_all_gather_link_bytes(grad_bytes, px, bi);
  g.loads.x = g.sum_x + g.broadcast_x;
  g.loads.y = g.sum_y + g.broadcast_y;
  // "in a pipelined manner": the X and Y rings work concurrently on successive chunks, so the
  // group takes the slower axis (each axis: reduce-scatter then all-gather, sim/collectives).
  collectives::AxisRing ax = axis_x(s), ay = axis_y(s);
  ax.p = px;
  ay.p = py;
  const double tx = px > 1 ? collectives::ring_all_reduce_time(ax, grad_bytes) : 0.0;
  const double ty = py > 1 ? collectives::ring_all_reduce_time(ay, grad_bytes / px) : 0.0;
  g.loads.chip_time = std::max(tx, ty);
  // Partial gradients are read from external memory once and the new weights written once; both
  // cross the on-chip interconnect between the memory port and the chip-to-chip interface.
  g.loads.memory = 2 * grad_bytes;
  g.loads.on_chip = grad_bytes;
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
  if (r.x > 0) t += r.x * collectives::rotate_time(axis_x(s), chunk_bytes);
  if (r.y > 0) t += r.y * collectives::rotate_time(axis_y(s), chunk_bytes);
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
    l.x = ring_all_to_all_link_bytes(per_chip, s.M, s.bidirectional);
    l.chip_time += collectives::ring_all_to_all_time(axis_x(s), per_chip);
  }
  if (change_y) {
    l.y = ring_all_to_all_link_bytes(per_chip, s.N, s.bidirectional);
    l.chip_time += collectives::ring_all_to_all_time(axis_y(s), per_chip);  // after X (sim/collectives)
  }
  l.memory = 2 * per_chip;  // read the old layout, write the new one
  l.on_chip = per_chip;
  return l;
}

}  // namespace partsim::dsm
