#pragma once
// The GPT-style transformer the Megatron-LM papers model (Korthikanti et al. 2022, arXiv 2205.05198,
// §3 and Table 1; Narayanan et al. 2021 §3): L layers of self-attention with a heads followed by a
// two-layer MLP h -> 4h -> h, GeLU and dropout, sequence s, vocabulary V, word embedding shared
// with the output layer; and how one layer is parallelised (tensor parallelism of Shoeybi et al.
// 2019 §3, sequence parallelism of K22 §4.2.2, recomputation of K22 §5).
//
// Contract: plain data and checks; sizes are counts (elements, not bytes).

#include "sim/planners/megatron/recompute.hpp"

namespace partsim::megatron {

/// K22 Table 1's variables.
struct TransformerShape {
  int layers = 1;      // L
  int hidden = 1;      // h
  int heads = 1;       // a
  int sequence = 1;    // s
  int vocabulary = 1;  // V (K22 writes v)
};

/// How each transformer layer runs on the devices of one pipeline stage.
struct LayerParallelism {
  int tensor_parallel = 1;         // t
  bool sequence_parallel = false;  // K22 §4.2.2 (Megatron-LM's --sequence-parallel)
  Recompute recompute = Recompute::none;
};

/// Throws InputError (naming the values) unless every size is >= 1 and h is a multiple of a.
void check_shape(const TransformerShape& shape);

/// Throws InputError unless t >= 1, a and h are multiples of t (Megatron-LM splits heads and the
/// hidden dimension over t), and with sequence parallelism s is a multiple of t. Checks the shape.
void check_parallelism(const TransformerShape& shape, const LayerParallelism& parallelism);

}  // namespace partsim::megatron
