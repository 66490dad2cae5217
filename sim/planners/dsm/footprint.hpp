#pragma once
// External-memory footprint of a DeepSpatialMatrix plan per chip, against the chip's capacity
// (seed 003 §IV: "HBM with 8GB capacity"). The paper's model charges bandwidth, not capacity; this
// is partsim's reading (docs/model.md "External-memory capacity"), a check rather than a cost:
//
//   weights    sum over primary groups of the chip's kernel share: N_in N_out N_kij / (chips
//              splitting out), replicated across the data-parallel chips;
//   gradients  as much again in training (UPD writes the gradient before the reduction);
//   activations in training, every group's input (N_in N_mb N_ij_in N_ts) kept from FWD to its BWD
//              and UPD, spread over the group's chips (data splits the samples, model the features);
//   working    the largest tensor in flight beyond those: in training the largest output error a
//              BWD writes, in inference the largest input + output pair (nothing is kept).
// Bytes at the platform's precision. Memory reuse and DySM change traffic, not what is stored.

#include <vector>

#include "sim/planners/dsm/hardware.hpp"
#include "sim/planners/dsm/group_chain.hpp"
#include "sim/planners/dsm/transfers.hpp"
#include "sim/plan/plan.hpp"

namespace partsim::dsm {

struct GroupPlacement {
  ChipSplit split = ChipSplit::data;
  int chips = 0;  // chips the group runs on: all, or its row block when timestep-pipelined
};

/// Per-chip footprint of `network` placed as `placement` (one entry per group), as plan.json's
/// `memory`. Throws Error if the sizes differ (a planner bug).
plan::MemoryUse memory_footprint(const GroupChain& network, const std::vector<GroupPlacement>& placement,
                                 const DsmSystem& system, bool training);

}  // namespace partsim::dsm
