#pragma once
// DeepSpatialMatrix's memory reuse (seed 003 §III-B) beyond what the chain DP decides per edge:
// inference weight preloading, swept over the share of the scratchpad given to weights. The
// scratchpad budget itself (scratchpad_reserve, reuse_held_bytes) is public in search.hpp.
// Internal to the search; search.hpp is the public header.
//
// Contract: sweep_weight_preload() only ever replaces `best` with a faster plan.

#include "sim/planners/dsm/search.hpp"

namespace partsim::dsm::detail {

/// §III-B weight preloading for inference: rank the layers of `ranking` by the time their weight
/// fetch costs per byte of scratchpad, and sweep the fraction of the scratchpad given to preloaded
/// weights (the rest stays for activation reuse); `best` becomes the fastest plan found. `usable`:
/// scratchpad bytes per core open to weights and held activations together.
void sweep_weight_preload(const DsmResult& ranking, const GroupChain& network, const DsmSystem& system,
                          const DsmOptions& options, double usable, DsmResult& best);

}  // namespace partsim::dsm::detail
