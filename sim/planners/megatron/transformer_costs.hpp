#pragma once
// A transformer layer's work and traffic in Megatron-LM: FLOPs (Korthikanti et al. 2022 App. A;
// Narayanan et al. 2021 §5.1 eq. 3), the tensor-parallel collectives of one layer and micro-batch
// (Shoeybi et al. 2019 §3's f and g; K22 §4.2.1-§4.2.2), the activation sent between pipeline
// stages (N21 §3.2, §4.1), and the data-parallel gradient reduction with ZeRO (Rajbhandari et al.
// 2020 §7). Counts and payloads only: the collectives' times come from the collective registry.
//
// Symbols as K22 Table 1: B (or b) micro-batch or batch of samples, s sequence, h hidden, a heads,
// L layers, V vocabulary, t tensor-parallel degree. FLOPs count a multiply-add as 2.
//
// Contract: pure functions; FLOPs, elements (counts) and bytes, as each name says.

#include "sim/planners/megatron/recompute.hpp"
#include "sim/planners/megatron/transformer_shape.hpp"

namespace partsim::megatron {

// ---- FLOPs (only the GEMMs, K22 App. A after N21) ----------------------------------------------

/// One layer's forward for `batch` samples: QKV 6Bsh^2 + QK^T 2Bs^2h + attention over V 2Bs^2h +
/// projection 2Bsh^2 + MLP 16Bsh^2 = 24Bsh^2 + 4Bs^2h = 24Bsh^2 (1 + s/(6h)) (K22 App. A).
double layer_forward_flops(const TransformerShape& shape, double batch);

/// The attention core's forward (QK^T and attention over V): 4Bs^2h, what selective recomputation
/// runs again (K22 App. A: "an additional forward pass attention matrix computation (2Bs^2h
/// operations) and attention over values (2Bs^2h operations)").
double attention_core_forward_flops(const TransformerShape& shape, double batch);

/// The logit layer's forward: 2BshV (K22 App. A); its forward and backward, 6BshV.
double logit_forward_flops(const TransformerShape& shape, double batch);

/// The work one layer really does in one training step: forward F, backward 2F (gradients of inputs
/// and of weights, K22 App. A), plus the recomputation: full, F again; selective, the attention core
/// again (4Bs^2h). Not divided by t.
double layer_training_flops(const TransformerShape& shape, double batch, Recompute recompute);

/// Model FLOPs per iteration, K22 eq. 7 (= N21's 3x forward): 72BLsh^2 (1 + s/(6h) + V/(12hL)).
double model_flops_per_iteration(const TransformerShape& shape, double batch);

/// Hardware FLOPs per iteration as the papers count them for utilisation figures:
///   none       K22 eq. 7;
///   full       N21 eq. 3: 96BLsh^2 (1 + s/(6h) + V/(16hL)) (4x each layer's forward; the logit
///              layer is not recomputed);
///   selective  K22 eq. 8 as printed: 72BLsh^2 (1 + s/(3h) + V/(12hL)). Eq. 8 adds 12BLs^2h to
///              eq. 7, three times the 4BLs^2h App. A's own text describes; it is the accounting
///              behind K22 Table 5's HFU and the "2.7 %" of §5 (docs/model.md). The work a step
///              really does is L layer_training_flops + 6BshV, which differs for selective.
double paper_hardware_flops_per_iteration(const TransformerShape& shape, double batch, Recompute recompute);

// ---- Tensor-parallel collectives of one layer and micro-batch ----------------------------------

/// How many collectives of each kind run, all over the t devices of the tensor-parallel group.
struct CollectiveCounts {
  int all_reduces = 0;
  int all_gathers = 0;
  int reduce_scatters = 0;
  bool operator==(const CollectiveCounts&) const = default;
};

/// The tensor-parallel collectives of one transformer layer for one micro-batch.
///   without sequence parallelism (Shoeybi 2019 §3, K22 Fig. 4): forward 2 all-reduces (f-bar after
///     attention and after the MLP), backward 2 all-reduces (f before each block);
///   with sequence parallelism (K22 §4.2.2, Fig. 5): forward 2 all-gathers (g) + 2 reduce-scatters
///     (g-bar); backward 2 reduce-scatters + 2 all-gathers (their conjugates) + 2 all-gathers of the
///     sequence shards of the first linears' inputs, stored instead of the whole inputs ("we store
///     only the Y_i^s part ... and perform an extra all-gather in the backward pass");
///   full recomputation runs the forward again inside the backward pass, with its collectives.
///   Selective recomputation recomputes only the attention core, which has none.
/// t = 1: none at all. Every collective's payload is the whole s x b x h tensor: the all-reduce's
/// input, the all-gather's output, the reduce-scatter's input.
struct TensorParallelTraffic {
  CollectiveCounts forward;
  CollectiveCounts backward;  // the recomputed forward's collectives included
  double elements = 0;        // b s h, each collective's payload
  double bytes = 0;           // elements x element_bytes
};

/// Throws InputError for a bad shape or parallelism (check_parallelism), micro_batch < 1 or
/// element_bytes < 1.
TensorParallelTraffic tensor_parallel_traffic(const TransformerShape& shape, int micro_batch,
                                              const LayerParallelism& parallelism, int element_bytes);

// ---- Pipeline sends ----------------------------------------------------------------------------

/// What crosses one stage boundary for one micro-batch in one direction (the activation forward;
/// its gradient backward is the same size). Per tensor-parallel rank: each of the t ranks of a stage
/// sends to the rank with its index in the next stage.
///   sequence parallelism: the layer output is already split along s, each rank sends bsh/t;
///   without it and with N21 §4.1's scatter/gather optimisation: each rank sends a bsh/t slice and
///     the receiving stage all-gathers the whole bsh over its tensor-parallel group;
///   without either: every rank sends the whole bsh (N21 §3.2's "bsh" per boundary).
/// Interleaving crosses v times as many boundaries per micro-batch (N21 §2.2.2).
struct PipelineTransfer {
  double elements_per_rank = 0;
  double bytes_per_rank = 0;
  bool all_gather_after = false;  // an all-gather of `elements_per_rank * t` elements on arrival
};

PipelineTransfer pipeline_transfer(const TransformerShape& shape, int micro_batch, const LayerParallelism& parallelism,
                                   bool scatter_gather, int element_bytes);

// ---- Data-parallel gradient reduction and ZeRO -------------------------------------------------

/// The data-parallel collectives of one iteration over the dp replicas of one device's shard of Ψ
/// parameters (ZeRO §7):
///   stage 0 (plain DP): one all-reduce of the gradients: volume 2Ψ (a reduce-scatter and an
///     all-gather, §7.1);
///   stages 1 and 2 (P_os, P_os+g; Megatron-LM's distributed optimizer): a reduce-scatter of the
///     gradients and an all-gather of the updated parameters: 2Ψ (§7.2.1);
///   stage 3 (P_os+g+p): the reduce-scatter and an all-gather of the parameters in the forward pass
///     and another in the backward pass: 3Ψ (§7.2.2).
/// dp = 1: none. The gradients travel at their precision (fp32 main gradients: 4 B), the parameters
/// at theirs (2 B): the caller sizes each kind.
struct DataParallelTraffic {
  int gradient_all_reduces = 0;
  int gradient_reduce_scatters = 0;
  int parameter_all_gathers = 0;
  double elements = 0;  // Ψ, each collective's payload
  /// ZeRO §7's communication volume in elements: 2 per all-reduce, 1 per reduce-scatter and
  /// all-gather, times Ψ.
  double volume_elements() const;
};

/// Throws InputError for a stage outside 0..3, dp < 1 or parameters < 0.
DataParallelTraffic data_parallel_traffic(double parameters, int zero_stage, int data_parallel_degree);

}  // namespace partsim::megatron
