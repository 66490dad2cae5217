#pragma once
// Activation memory of Megatron-LM training (Korthikanti et al. 2022, arXiv 2205.05198, §4-5,
// Table 2), in bytes: 16-bit activations (2 B per element) and 1-byte dropout masks, LayerNorm
// statistics ignored (§4). Symbols as K22 Table 1 (its vocabulary v is V here, and its interleaving
// "m" is the virtual stages v of schedule.hpp).
//
// Per transformer layer and micro-batch (K22 Table 2):
//   t-way tensor parallel, recompute none       sbh (10 + 24/t + 5as/(ht))   (Eq. 2; t = 1: Eq. 1)
//   + sequence parallel                          sbh (34/t + 5as/(ht))        (Eq. 4)
//   selective recomputation                      sbh (10 + 24/t)
//   selective + sequence parallel                sbh (34/t)                   (Eq. 6 / L)
//   full recomputation                           2sbh                         (§5, Table 2)
//   full + sequence parallel                     2sbh/t   (partsim's choice: the layer input is then
//                                                already split along s, K22 §4.2.2; docs/model.md)
// A stage keeps that for each of its L/p layers times the micro-batches in flight (schedule.hpp;
// K22 Eq. 5 for 1F1B's first stage), plus §4.3's extras: the embedding dropout's mask on the first
// stage, and on the last stage the final LayerNorm's input, the output projection's input and the
// fp32 logits. The stage's own output is not counted: K22 App. B's output-tensor deallocation,
// which all of K22's results use.
//
// Contract: pure functions; bytes.

#include "sim/planners/megatron/schedule.hpp"
#include "sim/planners/megatron/transformer_shape.hpp"

namespace partsim::megatron {

/// One transformer layer's activations for one micro-batch of `micro_batch` samples (Table 2 above).
/// Throws InputError for a bad shape or parallelism, or micro_batch < 1.
double layer_activation_bytes(const TransformerShape& shape, int micro_batch, const LayerParallelism& parallelism);

/// The embedding's activations for one micro-batch: its dropout mask, sbh bytes, split over t with
/// sequence parallelism (K22 §4.3, "sbhp/t" for p micro-batches in flight). Not recomputed.
double embedding_activation_bytes(const TransformerShape& shape, int micro_batch, const LayerParallelism& parallelism);

/// The output layer's activations for one micro-batch (K22 §4.3): the final LayerNorm's input 2sbh
/// and the output projection's input 2sbh (each /t with sequence parallelism), and the fp32 logits
/// 4sbV/t (split over the vocabulary by the vocabulary-parallel output layer). Not recomputed.
double output_layer_activation_bytes(const TransformerShape& shape, int micro_batch,
                                     const LayerParallelism& parallelism);

/// What global chunk `chunk` (0-based, < p v; chunk c of stage r is c p + r, N21 §2.2.2) keeps for
/// one micro-batch on each of its devices, from its forward until its backward:
///   (L/(p v)) x layer_activation_bytes
///   + on chunk 0: embedding_activation_bytes (the embedding runs before the first block)
///   + on chunk p v - 1: output_layer_activation_bytes (the tail runs after the last block).
/// stage_activation_bytes is this times the micro-batches in flight, summed over a stage's chunks.
/// Throws InputError as stage_activation_bytes does, and for a chunk outside 0 .. p v - 1.
double chunk_activation_bytes(const TransformerShape& shape, int micro_batch, const LayerParallelism& parallelism,
                              const PipelineShape& pipeline, int chunk);

/// Everything pipeline stage `stage` (0-based) of `pipeline` keeps at its peak, per device:
///   in_flight_micro_batches(stage) x (L/p) x layer_activation_bytes
///   + on stage 0: in_flight_micro_batches(0) x embedding_activation_bytes
///   + on stage p - 1: k x output_layer_activation_bytes, with k = m for gpipe and 1 otherwise (the
///     last chunk of the last stage starts each micro-batch's backward right after its forward).
/// On stage 0 of 1F1B with m >= p this is K22 Eq. 5 (L layers) plus §4.3's extras; interleaved
/// multiplies the layers' part by K22's (1 + (p - 1)/(p v)). Throws InputError unless L is a multiple
/// of p v (uniform stages and chunks), and for a bad schedule or stage (check_pipeline).
double stage_activation_bytes(const TransformerShape& shape, int micro_batch, const LayerParallelism& parallelism,
                              const PipelineShape& pipeline, int stage);

}  // namespace partsim::megatron
