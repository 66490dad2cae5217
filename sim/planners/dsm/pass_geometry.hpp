#pragma once
// The geometry of one pass of a DeepSpatialMatrix layer group (seed 003 §II-A, §II-C, Fig. 5): which
// tensors one chip fetches from and writes to its external memory, over how many of its cores each
// is split, what its cores reduce, and how memory reuse changes that from one iteration to the next.
// Shared below the planner's cost model (layer_model.cpp evaluate_pass) and the dsm lowering
// (dsm_lowering_setup.cpp), which time it each in their own way: the planner by seed 003 §II-D's
// TotCy, the lowering as events on the device model, the links and the collectives.
//
// Contract: pure functions over plain numbers; elements or bytes, never seconds.

#include <array>

#include "sim/planners/dsm/layer_model.hpp"

namespace partsim::dsm {

/// ChipD alone: the work of one chip (work_split's `chip`).
Split5 chip_work(const DsmLayer& layer, ChipSplit split, int M, int N);

/// The flags of every iteration after the first (seed 003 §III-B) of a pass whose first iteration
/// has `first`: weights held across timesteps (FWD/BWD: no FetchKer), or in UPD the gradient
/// accumulated on chip (written once) or, when not held, its partial read back from memory
/// (`kernel_chip_bytes`). The search (pass_search.cpp best_pass) decides `weights_held` and the plan
/// carries it; the search and the lowering both derive the later flags through this.
PassFlags later_iteration_flags(const PassFlags& first, Pass pass, bool weights_held, double kernel_chip_bytes);

/// What one iteration of one pass moves between one chip's external memory and its cores (seed 003
/// §II-A's tensors as Fig. 5's FetchInp / FetchKer / WriteOut), in elements of the chip, with the
/// flags applied, and over how many of the chip's cores each tensor is split (cores sharing a part
/// get it multicast, §II-D). Geometry, no time: the planner's evaluate_pass and the lowering both
/// read it.
struct PassOperands {
  double read_a = 0;   // the streamed operand (FWD input, BWD output error, UPD input)
  long long split_a = 1;
  double read_b = 0;   // FWD/BWD kernel, UPD output error
  long long split_b = 1;
  double write_o = 0;  // FWD output, BWD input error, UPD gradient
  long long split_o = 1;
  double extra = 0;    // FWD: the short-cut operand of a residual add (split like read_a)
  double chunk = 0;    // model parallelism: the chip's own feature chunk, rotated per step (§II-D)
  int rotation_steps = 0;  // RotateAlongX + RotateAlongY steps of one iteration
};
PassOperands pass_operands(const DsmLayer& layer, Pass pass, ChipSplit split, const Split5& core_factors,
                           const PassFlags& flags, int M, int N);
/// Bytes on the busiest on-chip ring link of one iteration's overlapped group (seed 003 §II-D, the
/// multicast reading of transfers.hpp on_chip_fetch_link_bytes): the fetches and the rotated chunks
/// arriving, or the writes, whichever is more (the ring's two directions).
double on_chip_link_bytes(const PassOperands& operands, double bytes_per_element, int cores);

/// One PartialSumAcc between the cores of a chip (seed 003 Fig. 5): groups of `cores` cores each
/// reduce-scatter a tile of `tile_bytes` on the on-chip ring, `rounds` times (2: an all-reduce, a
/// reduce-scatter then an all-gather).
struct CoreReduction {
  double tile_bytes = 0;
  long long cores = 1;
  int rounds = 1;
  bool operator==(const CoreReduction&) const = default;
};

/// Every PartialSumAcc of one iteration of a pass (seed 003 Fig. 5): the primary's partial sums over
/// the cores splitting its reduction, and each normalization's statistics. Geometry from CoreD (work
/// per core and split factors), no time. A fixed array: evaluate_pass runs in the search's inner
/// loop, where a heap allocation per call would cost more than the model.
struct CoreReductions {
  std::array<CoreReduction, 8> items{};
  int count = 0;
  void add(const CoreReduction& r);
  bool operator==(const CoreReductions&) const = default;
};
CoreReductions core_reductions(const DsmLayer& layer, Pass pass, const Split5& core_work, const Split5& core_factors,
                               double bytes_per_element);

}  // namespace partsim::dsm
