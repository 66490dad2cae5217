#include "sim/collectives/formulas.hpp"

#include <algorithm>

namespace partsim::collectives {

double p2p_time(double bytes, double latency, double bandwidth, int hops) {
  if (hops == 0) return 0;
  return hops * latency + bytes / bandwidth;
}

double ring_reduce_scatter_time(const AxisRing& ring, double bytes) {
  if (ring.p < 2) return 0;
  const double chunk = bytes / (ring.p * ring.directions());
  return (ring.p - 1) * (ring.latency + chunk / ring.bandwidth);
}

double ring_all_gather_time(const AxisRing& ring, double bytes) { return ring_reduce_scatter_time(ring, bytes); }

double ring_all_reduce_time(const AxisRing& ring, double bytes) {
  return ring_reduce_scatter_time(ring, bytes) + ring_all_gather_time(ring, bytes);
}

double torus_all_reduce_time(const std::vector<AxisRing>& axes, double bytes) {
  if (axes.empty()) return 0;
  double total = 0;
  double shard = bytes;
  for (std::size_t k = 0; k + 1 < axes.size(); ++k) {
    total += ring_reduce_scatter_time(axes[k], shard) + ring_all_gather_time(axes[k], shard);
    shard /= axes[k].p;
  }
  return total + ring_all_reduce_time(axes.back(), shard);
}

double torus_reduce_scatter_time(const std::vector<AxisRing>& axes, double bytes) {
  double total = 0;
  double shard = bytes;
  for (const auto& axis : axes) {
    total += ring_reduce_scatter_time(axis, shard);
    shard /= axis.p;
  }
  return total;
}

double torus_all_gather_time(const std::vector<AxisRing>& axes, double bytes) {
  return torus_reduce_scatter_time(axes, bytes);  // the same steps and sizes, in reverse order
}

double chain_broadcast_time(const AxisRing& ring, double bytes, int chunks) {
  if (ring.p < 2) return 0;
  return (ring.p - 1 + chunks - 1) * (ring.latency + bytes / (chunks * ring.bandwidth));
}

double torus_broadcast_time(const std::vector<AxisRing>& axes, double bytes, int chunks) {
  double total = 0;
  for (const auto& axis : axes) total += chain_broadcast_time(axis, bytes, chunks);
  return total;
}

double ring_all_to_all_time(const AxisRing& ring, double bytes) {
  double total = 0;
  const double chunk = bytes / ring.p;
  for (int k = 1; k < ring.p; ++k) {
    const int hops = ring.bidirectional ? std::min(k, ring.p - k) : k;
    total += hops * (ring.latency + chunk / ring.bandwidth);
  }
  return total;
}

double torus_all_to_all_time(const std::vector<AxisRing>& axes, double bytes) {
  double total = 0;
  for (const auto& axis : axes) total += ring_all_to_all_time(axis, bytes);
  return total;
}

double rotate_time(const AxisRing& ring, double bytes) {
  if (ring.p < 2) return 0;
  return ring.latency + bytes / ring.bandwidth;
}

}  // namespace partsim::collectives
