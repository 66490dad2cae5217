#pragma once
// Textbook closed forms of the collectives, in ONE place (the analytic planners reuse them).
// Every time is in seconds; S in bytes; L in s per link; B in bytes/s per link and direction.
// docs/model.md, "Collectives and the SimGrid platform", gives the source of each.
//
// Contract: for a collective on torus axes, these are exactly what the step rule
// (schedule.hpp: evaluate) gives for the schedule collectives.hpp builds, and what the SimGrid replay
// measures when no link is shared (tests/replay checks both).

#include <vector>

namespace partsim::collectives {

/// Point to point over `hops` links of latency L and bandwidth B: hops x L + S / B.
double p2p_time(double bytes, double latency, double bandwidth, int hops = 1);

/// Rings that a collective runs on one torus axis: p devices, per-link L and B, and whether the
/// data is split over a + ring and a - ring (bidirectional torus, p > 2).
struct AxisRing {
  int p = 1;
  double latency = 0;
  double bandwidth = 0;
  bool bidirectional = false;
  /// Number of concurrent rings the payload is split over: 2 on a bidirectional axis of p > 2.
  int directions() const { return bidirectional && p > 2 ? 2 : 1; }
};

/// Ring reduce-scatter of S bytes per device: (p - 1) steps, each sending S / (p x dirs) to the next
/// device: (p - 1) (L + S / (p dirs B)).
double ring_reduce_scatter_time(const AxisRing& ring, double bytes);
/// Ring all-gather (S = the full result per device): the same (p - 1) (L + S / (p dirs B)).
double ring_all_gather_time(const AxisRing& ring, double bytes);
/// Ring all-reduce = reduce-scatter + all-gather: 2 (p - 1) (L + S / (p dirs B)).
double ring_all_reduce_time(const AxisRing& ring, double bytes);

/// Hierarchical all-reduce over torus axes 0..n-1 (seed 003 §II-D for n = 2): reduce-scatter along
/// axes 0..n-2 (the payload shrinks by p_k after each), all-reduce along axis n-1 of the remaining
/// shard S / (p_0 ... p_{n-2}), then all-gather back along axes n-2..0.
double torus_all_reduce_time(const std::vector<AxisRing>& axes, double bytes);
/// Reduce-scatter along axes 0..n-1 in turn (payload S, S/p_0, ...); the 1/P shard ends on each device.
double torus_reduce_scatter_time(const std::vector<AxisRing>& axes, double bytes);
/// All-gather, the reverse: along axes n-1..0, the payload growing back to S.
double torus_all_gather_time(const std::vector<AxisRing>& axes, double bytes);

/// Pipelined chain broadcast of S bytes from the first of p devices along the + ring, in k chunks:
/// the last chunk reaches the last device after (p - 1) + (k - 1) steps of L + S / (k B).
double chain_broadcast_time(const AxisRing& ring, double bytes, int chunks);
/// Broadcast over torus axes: chain along the last axis through the root, then along each axis
/// before it (seed 003 §II-D: "broadcast back first along Y and then along X"): a sum of chains.
double torus_broadcast_time(const std::vector<AxisRing>& axes, double bytes, int chunks);

/// All-to-all on one ring by shifts: in step k = 1..p-1 every device sends S/p to the device k
/// places on; on a bidirectional ring it goes the shorter way (h_k = min(k, p - k) hops, ties +),
/// else k hops. Each link of the used direction then carries h_k chunks at once:
/// sum_k h_k (L + S / (p B)).
double ring_all_to_all_time(const AxisRing& ring, double bytes);
/// All-to-all over torus axes, one axis after the other (each device holds S bytes throughout):
/// sum over axes of ring_all_to_all_time(axis, S).
double torus_all_to_all_time(const std::vector<AxisRing>& axes, double bytes);

/// Neighbour rotation: every device sends S to its + neighbour at once: L + S / B.
double rotate_time(const AxisRing& ring, double bytes);

}  // namespace partsim::collectives
