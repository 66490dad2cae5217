#pragma once
// The data transfers of seed 003 Fig. 5, each as the bytes it puts on the links it uses, and the
// data-transfer group rule of §II-D: concurrent transfers are timed by their slowest link.
//
// Chip-to-chip TIMES come from the collectives' closed forms (sim/collectives/formulas.hpp: ring
// reduce-scatter / all-gather / all-to-all / rotation along one torus axis), so the planner and the
// lowering agree; the ring_*_link_bytes functions below give the matching BYTES per link (for the
// reports and the §III-A 1/M check) under the same rule (payload split over both directions of a
// bidirectional axis with p > 2, shortest way for all-to-all).

#include "sim/planners/dsm/chip_split.hpp"
#include "sim/planners/dsm/hardware.hpp"

namespace partsim::dsm {


/// How a ChipSplit divides work over the torus: chips sharing the minibatch and the out dimension.
struct ChipFactors {
  int mb = 1;         // ChipD.mb = N_mb / mb
  int out = 1;        // ChipD.out = N_out / out
  bool x_data = true;  // X axis splits mb (true) or out (false)
  bool y_data = true;
};
ChipFactors chip_factors(ChipSplit split, int M, int N);

// ---- ring collectives along one axis (one direction per ring) -------------------------------

/// Bytes on each link (one direction) of a p-chip ring in a reduce-scatter of `bytes` per chip:
/// p-1 steps of bytes/p.
/// p-1 steps of bytes/(p * directions).
double ring_reduce_scatter_link_bytes(double bytes, int p, bool bidirectional);
/// Same for an all-gather that ends with `bytes` per chip.
double ring_all_gather_link_bytes(double bytes, int p, bool bidirectional);
/// Bytes on each link of a p-chip ring in an all-to-all where every chip holds `bytes`, one piece
/// of bytes/p for every chip: piece * sum over shifts k of the hops min(k, p-k) (bidirectional) or k.
double ring_all_to_all_link_bytes(double bytes, int p, bool bidirectional);

// ---- data-transfer groups -------------------------------------------------------------------

/// Bytes a group of concurrent transfers puts on each kind of link (per link and direction, the
/// busiest link of each kind), plus the latency of its sequential steps.
struct LinkLoads {
  double memory = 0;    // bytes through the chip's external-memory port
  double on_chip = 0;   // bytes on the busiest on-chip ring link (one direction)
  double x = 0;         // bytes on the busiest X link (one direction)
  double y = 0;         // bytes on the busiest Y link
  double chip_time = 0; // s of the chip-to-chip part (collectives' closed forms, latency included)
  double latency = 0;   // s of other step latencies that cannot overlap
  LinkLoads& operator+=(const LinkLoads& o);
};

/// Per-link times of a group.
struct LinkTimes {
  double memory = 0, on_chip = 0, chip = 0;
  double slowest() const;
};
LinkTimes link_times(const LinkLoads& loads, const DsmSystem& system);
/// seed 003 §II-D: a data-transfer group takes as long as its slowest link (plus step latencies);
/// the chip-to-chip links count with their collective's time.
double group_time(const LinkLoads& loads, const DsmSystem& system);

// ---- Core <-> external memory (FetchInp / FetchKer / WriteOut) -----------------------------

/// Bytes on the busiest on-chip ring link when `chip_bytes` of one tensor move between the memory
/// port and the cores, the tensor being split `split` ways over the cores (the other cores share a
/// part and get it multicast, seed 003 §II-D). Bidirectional ring, port on one core: with split 1
/// every core needs everything, so both first links carry all of it; with split >= 2 each half of
/// the ring needs (about) half.
double on_chip_fetch_link_bytes(double chip_bytes, long long split, int cores);

// ---- Core <-> core (PartialSumAcc) ----------------------------------------------------------

/// Time to reduce-scatter partial sums of `tile_bytes` per core among `k` cores on the on-chip ring
/// (seed 003 Fig. 5 PartialSumAcc): (k-1)/k * tile / bw + (k-1) hops. Not overlapped.
double partial_sum_time(double tile_bytes, long long k, const DsmSystem& system);

// ---- Chip <-> chip ----------------------------------------------------------------------------

/// Gradient reduction and weight distribution of `grad_bytes` per chip (seed 003 §II-D, Fig. 5):
/// SumofGradAlongX, SumofGradAlongY, BroadcastWAlongY, BroadcastWAlongX for the data axes of
/// `split`, pipelined: one group (X links, Y links, memory, on-chip) timed by its slowest link.
struct GradientTraffic {
  double sum_x = 0;        // bytes per X link: reduce-scatter along X
  double sum_y = 0;        // bytes per Y link: reduce-scatter of the 1/M-sized remainder along Y
  double broadcast_y = 0;  // all-gather along Y
  double broadcast_x = 0;  // all-gather along X
  LinkLoads loads;         // the whole group
};
GradientTraffic gradient_reduction(double grad_bytes, ChipSplit split, const DsmSystem& system);

/// Activation/error rotation in model parallelism (seed 003 §II-D): the compute is broken into
/// M*N iterations; features move once along X per iteration and once along Y every M iterations.
struct RotationSteps {
  int x = 0;
  int y = 0;
};
RotationSteps rotation_steps(ChipSplit split, int M, int N);
/// Time of all rotation steps of a `chunk_bytes` feature chunk (RotateAlongX/Y): sequential steps.
double rotation_time(double chunk_bytes, ChipSplit split, const DsmSystem& system);

/// Activation/error relayout when adjacent layers use different parallelism (RelayoutAlongX/Y):
/// an all-to-all along every axis whose split kind changes, of the `tensor_bytes` (whole system)
/// feature tensor; memory reads and writes the chip's share. Zero when nothing changes.
LinkLoads relayout(double tensor_bytes, ChipSplit from, ChipSplit to, const DsmSystem& system);

}  // namespace partsim::dsm
