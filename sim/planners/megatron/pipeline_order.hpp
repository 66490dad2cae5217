#pragma once
// The order in which one pipeline stage runs its forward and backward steps in one iteration, as
// Megatron-LM's schedules issue them (megatron/core/pipeline_parallel/schedules.py; Narayanan et al.
// 2021, SC21, §2.2). The lowering chains a device's work in this order; the bubble then comes out of
// the dependencies between stages, never from schedule.hpp's closed form.
//
//   gpipe        all m forwards, then all m backwards (N21 §2.2.1, Fig. 3).
//   1f1b         forward_backward_pipelining_without_interleaving: num_warmup_microbatches =
//                min(p - r - 1, m) forwards, then num_microbatches_remaining = m - warm-up times
//                "forward k + warm-up, backward k", then the warm-up's backwards (N21 Fig. 4 top).
//                p = 1 gives F0 B0 F1 B1 ..., what forward_backward_no_pipelining runs.
//   interleaved  forward_backward_pipelining_with_interleaving over m v virtual micro-batches k:
//                warm-up (p - r - 1) 2 + (v - 1) p (all m v when m = p), capped at m v; then
//                "forward k + warm-up, backward k"; then the remaining backwards. Virtual
//                micro-batch k is model chunk (k mod p v) div p (reversed, v - 1 - that, for a
//                backward: get_model_chunk_id) and micro-batch (k div p v) p + k mod p
//                (get_microbatch_id_in_model_chunk) (N21 §2.2.2, Fig. 4 bottom).
//
// Contract: pure functions; throw InputError for a shape check_pipeline refuses or a stage outside
// 0..p-1.

#include <vector>

#include "sim/planners/megatron/schedule.hpp"

namespace partsim::megatron {

enum class Direction { forward, backward };

/// One step of a stage: the forward or backward of micro-batch `micro_batch` (0..m-1) through the
/// stage's model chunk `chunk` (0..v-1; chunk c of stage r holds global chunk c p + r).
struct Step {
  Direction direction = Direction::forward;
  int micro_batch = 0;
  int chunk = 0;
  bool operator==(const Step&) const = default;
};

/// Stage `stage`'s 2 m v steps in the order Megatron-LM issues them.
std::vector<Step> stage_order(const PipelineShape& shape, int stage);

}  // namespace partsim::megatron
