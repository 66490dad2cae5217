#pragma once
// Pipeline schedules of Megatron-LM (Narayanan et al., SC21, arXiv 2104.04473, §2.2) in closed
// form: the bubble, the iteration time of one pipeline, and how many micro-batches a stage holds
// activations for at its peak.
//
//   p  pipeline stages (devices of one pipeline), m micro-batches per iteration and pipeline,
//   v  virtual stages: model chunks per device (interleaved only; 1 otherwise).
//
//   gpipe        all m forwards, then all m backwards (N21 §2.2.1, Fig. 3).
//   1f1b         PipeDream-Flush: p - r - 1 warm-up forwards on stage r, then one forward and one
//                backward alternately (N21 §2.2.1, Fig. 4 top).
//   interleaved  each device holds v chunks of L/(p v) layers (N21 §2.2.2, Fig. 4 bottom). As in
//                Megatron-LM, m must be a multiple of p ("number of microbatches must be divisible
//                by pipeline-model-parallel-size when using interleaved schedule").
//
// Contract: pure functions; times in the unit of the arguments (seconds in partsim).

#include <string>
#include <string_view>

namespace partsim::megatron {

enum class Schedule { gpipe, one_f_one_b, interleaved };

/// "gpipe" | "1f1b" | "interleaved". Throws InputError naming the valid values otherwise.
Schedule parse_schedule(std::string_view name);

/// The name parse_schedule() accepts.
std::string schedule_name(Schedule schedule);

/// One pipeline's shape.
struct PipelineShape {
  Schedule schedule = Schedule::one_f_one_b;
  int stages = 1;          // p >= 1
  int micro_batches = 1;   // m >= 1
  int virtual_stages = 1;  // v: 1 for gpipe and 1f1b, >= 2 for interleaved
};

/// Throws InputError (naming the values) unless p >= 1, m >= 1, v == 1 for gpipe/1f1b, v >= 2 and
/// m a multiple of p for interleaved.
void check_pipeline(const PipelineShape& shape);

/// The bubble as a fraction of the ideal time m (t_f + t_b): (p - 1)/m for gpipe and 1f1b
/// (N21 §2.2.1), (p - 1)/(m v) for interleaved (N21 §2.2.2). Checks the shape.
double bubble_fraction(const PipelineShape& shape);

/// Time of one iteration of the pipeline, without communication: (m + p - 1)(t_f + t_b) for gpipe
/// and 1f1b, (m + (p - 1)/v)(t_f + t_b) for interleaved (N21 §2.2: ideal time m (t_f + t_b) plus
/// the bubble (p - 1)(t_f + t_b), divided by v when interleaved). t_f, t_b (>= 0): forward and
/// backward time of one micro-batch through one device's whole stage (all its v chunks together).
double iteration_time(const PipelineShape& shape, double forward_time, double backward_time);

/// Forward passes of (chunk, micro-batch) pairs whose activations stage `stage` (0-based, < p)
/// holds at its peak, Megatron-LM megatron/core/pipeline_parallel/schedules.py:
///   gpipe        m (every forward runs before the first backward);
///   1f1b         min(p - r, m): num_warmup_microbatches = min(p - r - 1, m), plus the steady
///                phase's forward that precedes the first backward;
///   interleaved  min(2 (p - r - 1) + (v - 1) p + 1, m v): forward_backward_pipelining_with_
///                interleaving's warm-up (p - r - 1) * 2 + (num_model_chunks - 1) *
///                microbatch_group_size_per_vp_stage (default p), plus one, capped at m v.
/// A pair holds L/(p v) layers' activations.
int in_flight_chunk_forwards(const PipelineShape& shape, int stage);

/// The same peak in units of one micro-batch through the device's whole stage (L/p layers):
/// in_flight_chunk_forwards / v. On stage 0 with m > p, 1f1b gives p (Korthikanti 2022 §4.2.3,
/// "the first stage must store activations for p microbatches") and interleaved gives
/// p (1 + (p - 1)/(p v)) (K22 §4.2.3's factor, K22 calls v "m").
double in_flight_micro_batches(const PipelineShape& shape, int stage);

}  // namespace partsim::megatron
