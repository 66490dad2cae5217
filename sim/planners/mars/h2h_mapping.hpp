#pragma once
// A computation- and communication-aware mapping in the spirit of H2H (seed 004 §VI-C and its
// reference [7]): the mapping MARS is compared with in Table IV. The seeds do not give H2H's
// algorithm; this follows its formulation as seed 004 describes it: every layer runs whole on one
// accelerator (no intra-layer parallelism), every accelerator keeps its platform design (fixed
// designs), and independent branches of a multi-branch model run at once on different accelerators.
//
// Schedule model: an accelerator runs its layers one at a time in workload order (as the replay runs
// a device's compute in program order, sim/lowering/sharding_lowering.hpp); a layer starts when its
// accelerator is free and every input has arrived; an input made on another accelerator arrives
// output_bytes / (the route's slowest link) after its producer finishes. Links are not shared in the
// model (the list schedulers' assumption; the replay shares them). The latency is the last finish.
// The mapping: (1) computation first (H2H's computation-prioritised step, as a list scheduler of
// earliest finish time, HEFT's rule, Topcuoglu et al., IEEE TPDS 2002, in workload order): each layer
// goes to the accelerator where it would finish earliest, its inputs' transfers included, among
// those whose DRAM still holds its weights; (2) communication (H2H's remapping to cut transfers): the
// single-layer move to another accelerator that lowers the latency most is made, again and again,
// until none does or `max_moves` moves were made. Step (2) also starts from the whole network on the
// one accelerator that runs it fastest (no transfers; our addition, so that a faster network never
// gives a slower mapping by a different local minimum); the lower of the two results is the mapping.
//
// Contract: deterministic (ties: the lower layer, then the lower device); seconds, bytes.

#include <vector>

#include "sim/planners/mars/latency_model.hpp"

namespace partsim::mars {

struct H2hOptions {
  int max_moves = 1000;  // step (2): most single-layer moves; 0 = none (the better of the two starts)
};

struct H2hMapping {
  std::vector<int> device;       // per layer (workload order)
  std::vector<double> start_s;   // per layer, in the schedule model
  std::vector<double> finish_s;
  std::vector<double> arrival_s; // per layer: when its last input arrived (the layer's own transfers)
  double latency_s = 0;
  double initial_latency_s = 0;  // of the start step (2) refined (step (1), or the single accelerator)
  int moves = 0;                 // step (2) moves made from it
};

/// The schedule of a given assignment `mapping.device` (fills start/finish/arrival and latency);
/// infinity when some accelerator's weights and largest layer do not fit its DRAM.
double schedule_latency(const LatencyModel& model, H2hMapping& mapping);

H2hMapping h2h_mapping(const LatencyModel& model, const H2hOptions& options);

/// What the mapping needs of DRAM: the largest layer on its accelerator while it runs (weights, inputs,
/// output) and all weights together (the error message of a workload no mapping fits).
struct DramNeeds {
  double largest_layer_bytes = 0;
  double weight_bytes = 0;
};
DramNeeds dram_needs(const LatencyModel& model);

}  // namespace partsim::mars
