#pragma once
// ZeRO-DP's partitioning of the model states over the data-parallel replicas (Rajbhandari et al.,
// SC20, §5): each of N_d replicas keeps 1/N_d of the partitioned states.
//   stage 0  (plain data parallelism)  every state whole:            2Ψ + 2Ψ + KΨ
//   stage 1  P_os     (§5.1)           optimizer states partitioned: 4Ψ + KΨ/N_d
//   stage 2  P_os+g   (§5.2)           and gradients:                2Ψ + (2 + K)Ψ/N_d
//   stage 3  P_os+g+p (§5.3)           and weights:                  (4 + K)Ψ/N_d
// (ZeRO's terms for 16 B/parameter; the same rule applies to whatever bytes_per_parameter() gives:
// Megatron-LM's distributed optimizer is stage 1 over its 18 B, 6 + 12/d.) The weights gathered for
// the layer being computed under stage 3 are working memory, not counted here.
//
// Contract: pure; bytes.

#include "sim/memory/parameter_bytes.hpp"

namespace partsim::memory {

/// The model states one replica keeps under ZeRO `stage` (0..3) over `data_parallel_degree` (>= 1)
/// replicas. Throws InputError for a stage outside 0..3 or a degree below 1.
ModelStateBytes zero_partition(const ModelStateBytes& whole, int stage, int data_parallel_degree);

}  // namespace partsim::memory
