#pragma once
// DeepSpatialMatrix's timestep pipelining (seed 003 §III-D, training): runs of consecutive
// uni-directional LSTM groups, each the primary producer of the next and at most N long, placed on
// blocks of whole torus rows in proportion to their MACs and run as a pipeline over the timesteps.
// Internal to the search; search.hpp is the public header.
//
// Contract: a pipe group replaces its layers' sequential plan only when it is faster, so the plan
// never gets worse; the result's totals are final afterwards.

#include "sim/planners/dsm/chain_dp.hpp"
#include "sim/planners/dsm/search.hpp"

namespace partsim::dsm::detail {

/// Pipelines every eligible run of LSTM groups of `result` (a plan of `search`) that gains by it.
void pipeline_timesteps(NetworkSearch& search, DsmResult& result);

}  // namespace partsim::dsm::detail
