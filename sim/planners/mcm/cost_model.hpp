#pragma once
// The analytical cost model of seed 002 §5.1 (and Fig. 7): "estimates the latency of running all
// nodes assigned to each chip, and returns the maximal latency of all chips"; throughput is its
// inverse (§5.4: "the runtime is defined as the maximum latency across all chips, which is the
// reciprocal of the throughput"). The paper does not spell out a chip's latency; ours is
//   L_d = sum_{v: f(v) = d} t_v  +  in_d / b  +  hops_d * l
// t_v: the node's forward compute time on a chiplet (problem.hpp: the device model's roofline);
// in_d: bytes arriving over the link (d-1 -> d): every tensor whose producer sits below d and has a
// consumer at or above d crosses it, once per consumer node (each consumer fetches its inputs, as
// the sharding lowering does); b the link bandwidth; the link latency l once per crossing transfer. Compute and receiving are not overlapped: the model is deliberately simple, and
// the SimGrid replay (which overlaps them) is what it is compared with (scripts/mcm_fig7.py).
//
// Contract: pure; the placement must pass check_shape(); seconds.

#include <vector>

#include "sim/planners/mcm/problem.hpp"

namespace partsim::mcm {

struct ChipCost {
  double compute_s = 0;
  double receive_s = 0;   // in_d / b + transfers * l
  double latency_s() const { return compute_s + receive_s; }
};

struct AnalyticalCost {
  std::vector<ChipCost> chips;   // C entries (empty chips: 0)
  int bottleneck_chip = 0;       // the chip with the largest latency
  double latency_s = 0;          // max_d L_d: the pipeline's period
  double throughput_per_s() const { return latency_s > 0 ? 1.0 / latency_s : 0.0; }
};

AnalyticalCost analytical_cost(const PlacementProblem& problem, const Placement& placement);

}  // namespace partsim::mcm
