#pragma once
// The lowering of a `megatron` plan (issue 40 item 3): one training iteration of Megatron-LM as a
// program::Program, which simrun's closed form and SimGrid replay both time. docs/model.md "The
// megatron lowering".
//
// What it puts in the Program, for every data-parallel replica d, pipeline stage r and tensor rank t
// (device device_of(c, t, d, r), planner.hpp's rank order):
//   - every micro-batch's forward and backward through the stage's model chunks, in the order
//     Megatron-LM's schedule issues them (pipeline_order.hpp), as compute tasks chained on the device:
//     per layer the forward (fwd), and in the backward the input gradient (bwd) and the weight
//     gradient (upd), each timed by the device model on the rank's TP shard (tp_sharding.hpp);
//     recomputation's extra forward before a chunk's backward (full: the chunk's blocks again with
//     their TP collectives; selective: each attention's core, attention_core_share of its forward);
//   - the TP collectives of each block (block_collectives below) on the TP group's devices, built by
//     the collective registry (collectives::collective_schedule) and added with
//     lowering::add_collective: every rank's next layer waits for them; each moves the graph's
//     tensor at its place (the layer's input, or its output gradient) for the micro-batch;
//   - point-to-point sends between consecutive global chunks: the activation forward, its gradient
//     backward, each rank to the rank of the same index (a 1/t slice of the graph's tensor between
//     the chunks for the micro-batch, then an all-gather over the receiving TP group without
//     sequence parallelism, N21 §4.1);
//   - the data-parallel reduction of each stage's gradients on its DP groups (one per TP rank):
//     all-reduce (ZeRO 0), or reduce-scatter + all-gather of the updated parameters (ZeRO 1, 2; ZeRO
//     3's two parameter all-gathers are placed there too), after the device's last backward, or with
//     overlap_grad_reduce one bucket per block (and one for the head, one for the tail) as soon as
//     the last micro-batch's backward has completed its gradients; a DP group's collectives run one
//     after another (one communicator); with overlap_param_gather (ZeRO >= 1) the updated
//     parameters' all-gather moves to the iteration's start, bucket by bucket, and the first
//     micro-batch's forward of each bucket waits for it (the next iteration's gather, in steady state);
//   - with option optimizer=adam, the optimizer step on every device after its last compute and its
//     DP group's collectives (optimizer_step.hpp, the planner's pricing);
//   - the memory each device holds (program::Holding, placed in time by memory_timeline.hpp
//     holding_timeline): its stage's weights, gradients and optimizer states for the whole iteration
//     (planner.hpp stage_model_states, the plan's ZeRO stage), and per global chunk and micro-batch
//     the chunk's activations (activation_memory.hpp chunk_activation_bytes: Korthikanti's terms
//     with the plan's recomputation and sequence parallelism) from the start of the first forward
//     compute task of that chunk and micro-batch on the device to the finish of its last backward
//     compute task. How many micro-batches a stage holds at once is not written anywhere either: it
//     is what the schedule's order and the dependencies leave in flight.
// fold_replicas (an option, default false): only replica d = 0 gets its compute, TP collectives and
// pipeline sends; the other replicas' devices appear only in the DP collectives, which wait for
// replica 0's tasks. The replicas run identical tasks on identical devices, so without contention
// (the closed form) each reaches a DP collective when replica 0 does: the closed form is unchanged.
// What it neglects is contention: the other replicas' TP collectives and pipeline sends on links
// their DP collectives (or replica 0's traffic) share. SimGrid's error is measured in docs/model.md
// "Folded data-parallel replicas". The Program has about 1/dp of the unfolded tasks.
// The bubble is not written anywhere: it is the waiting the dependencies create. Nothing here reads
// the plan's predicted times or the planner's prediction.
//
// Contract: `context.plan` is a megatron plan (family fields as registration.cpp writes them) for
// context.workload; throws InputError when the family fields are missing or inconsistent.

#include <string>
#include <vector>

#include "sim/lowering/lowering.hpp"
#include "sim/planners/megatron/pipeline_order.hpp"
#include "sim/planners/megatron/planner.hpp"
#include "sim/program/program.hpp"
#include "workloads/layer.hpp"

namespace partsim::megatron {

/// The TP collectives around one layer of a block ("all_reduce", "all_gather", "reduce_scatter"),
/// before and after the layer's work in the pass `direction` (backward: before / after its backward).
///   forward, without SP: an all-reduce before each residual add (f-bar, K22 Fig. 4);
///   forward, with SP: an all-gather before the layer that follows a norm (g) and a reduce-scatter
///     before each residual add (g-bar, K22 Fig. 5);
///   backward, without SP: an all-reduce after the backward of the layer that follows a norm (f);
///   backward, with SP: an all-gather after each residual add's backward (g-bar's conjugate), an
///     all-gather of the stored sequence shard before, and a reduce-scatter after, the backward of
///     the layer that follows a norm (g's conjugate, K22 §4.2.2).
/// On a pre-LN block (two norms, two residual adds) these are transformer_costs.hpp's counts.
struct LayerCollectives {
  std::vector<std::string> before;
  std::vector<std::string> after;
};
std::vector<LayerCollectives> block_collectives(const std::vector<workloads::LayerKind>& block, bool sequence_parallel,
                                                Direction direction);

/// The configuration a megatron plan's family fields say (InputError naming a missing field).
Configuration configuration_of(const plan::Plan& plan);

/// The Program of one iteration of the plan (see above).
program::Program lower_megatron(const lowering::Context& context);

}  // namespace partsim::megatron
