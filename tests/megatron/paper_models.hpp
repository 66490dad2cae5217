#pragma once
// The models the Megatron-LM papers evaluate, as the tests of sim/planners/megatron use them.

#include "sim/planners/megatron/transformer_shape.hpp"

namespace partsim::test {

// Korthikanti et al. 2022 (K22) Table 3's 22B model (vocabulary 51,200 and sequence 2048 per K22
// §6): L 48, h 6144, a 64.
inline constexpr megatron::TransformerShape k22_22b{
    .layers = 48, .hidden = 6144, .heads = 64, .sequence = 2048, .vocabulary = 51200};
// GPT-3 175B as Narayanan et al. 2021 §5.1 and K22 use it: L 96, h 12288, a 96, s 2048, V 51,200.
inline constexpr megatron::TransformerShape gpt3{
    .layers = 96, .hidden = 12288, .heads = 96, .sequence = 2048, .vocabulary = 51200};

/// A layer's tensor parallelism: degree t, with or without sequence parallelism, and recomputation.
inline megatron::LayerParallelism tp(int t, bool sequence_parallel, megatron::Recompute recompute) {
  return {t, sequence_parallel, recompute};
}

}  // namespace partsim::test
