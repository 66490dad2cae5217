#pragma once
// What one rank of a Megatron-LM tensor-parallel group computes of a graph layer for one
// micro-batch: the plan's semantics of tensor parallelism (Shoeybi et al. 2019 §3; with sequence
// parallelism Korthikanti et al. 2022 §4.2.2), shared by the planner (which prices it) and the
// lowering (which puts it on the devices). A geometry, not a cost: times come from the device model.
//
//   attention                      split by heads: out_channels / t;
//   fc whose input is the width h  column-parallel (QKV, the MLP's first linear and gate, the
//                                  vocabulary-parallel output projection): out_channels / t;
//   fc whose input is not h        row-parallel (the MLP's second linear): in_channels / t;
//   element-wise work of the MLP's inner width (4h or Llama's F, one channel axis): channels / t;
//   everything else (norms, residual adds, embeddings) whole on every rank, or split along the
//   sequence (height) by t with sequence parallelism.
//
// Contract: pure; the box's batch axis is [0, microbatch).

#include "sim/plan/plan.hpp"
#include "workloads/layer.hpp"

namespace partsim::megatron {

/// Layer `l` (loop extent `e`) on one of `tp` ranks for a micro-batch of `microbatch` samples, in a
/// model of width `hidden`, with or without sequence parallelism.
plan::LoopBox tensor_parallel_box(const workloads::Layer& l, const plan::LoopExtent& e, int microbatch, int tp,
                                  bool sequence_parallel, int hidden);

/// True for the row-parallel linear (an fc whose input is not the model width).
bool is_row_parallel(const workloads::Layer& l, int hidden);

}  // namespace partsim::megatron
