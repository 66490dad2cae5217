#pragma once
// The replay's memory timeline (docs/model.md "The replay's memory timeline"): the footprint
// model's bytes (box_memory, footprint.hpp) placed in time by an evaluated Program. Nothing is sized
// here: the bytes are the footprint's, the times the evaluator's, and which bytes a task holds is
// read off the task's layer, pass and device. So the closed form and the SimGrid replay give a
// timeline each from the same rule.
//
// Per device d, for every layer v with a box on d:
//   weights, gradients, optimizer   resident for the whole iteration (gradients too: frameworks keep
//                                   the gradient buffer allocated across iterations and reduce it in
//                                   place; the document cites Megatron-LM and PyTorch DDP).
//   activations (training)          v's output box, from the first start of v's FWD compute on d
//                                   until the last finish of the BWD or UPD compute on d of v and of
//                                   v's consumers (their weight gradients read it). A layer with no
//                                   FWD compute on d (a graph input: the samples) holds it from 0;
//                                   one with no such backward compute on d until the iteration ends.
//   activations (inference)         v's output box, from v's first FWD compute on d until the last
//                                   finish of its consumers' FWD tasks on d (compute or transfers
//                                   out of d); the workload's outputs until the end.
//   working                         the footprint's working bytes of v, from the first start to the
//                                   last finish of the tasks on d that move or compute them:
//                                   training, v's BWD tasks (compute, transfers to or from d) and
//                                   its UPD compute; inference, v's FWD tasks. Gradient reductions
//                                   (UPD transfers) run in place in the resident gradient buffer.
// A free and an allocation at the same instant: the free first (the allocator reuses the bytes).
//
// A lowering that sizes its memory itself (megatron: model states and Korthikanti's activations per
// chunk and micro-batch) declares it in the Program instead (program::Holding); holding_timeline
// places those holdings in time by the same rules: resident holdings throughout, the others from
// their first task's start to their last task's finish, frees before allocations at one instant.
//
// Contract: pure; bytes and seconds. `evaluation` times `program` (one timing per task); boxes
// name devices below `device_count`.

#include <cstddef>
#include <vector>

#include "sim/memory/footprint.hpp"
#include "sim/program/evaluation.hpp"
#include "sim/program/program.hpp"

namespace partsim::memory {

/// From `time_s` on (until the next step), `bytes` are in use.
struct MemoryStep {
  double time_s = 0;
  double bytes = 0;
  bool operator==(const MemoryStep&) const = default;
};

struct DeviceMemoryTimeline {
  int device = -1;
  double resident_bytes = 0;        // weights + gradients + optimizer, held throughout
  std::vector<MemoryStep> steps;    // time order, one per distinct time, the first at 0
  double peak_bytes = 0;            // the largest step
  double peak_time_s = 0;           // when it is first reached

  /// Bytes in use at `time_s` (after the changes at that instant).
  double bytes_at(double time_s) const;
  /// The largest use over [start_s, finish_s].
  double peak_between(double start_s, double finish_s) const;
};

struct MemoryTimeline {
  std::vector<DeviceMemoryTimeline> devices;  // every device, in device order
  /// Index of the device with the largest peak (the lowest on a tie); 0 when there are none.
  std::size_t fullest() const;
  /// The largest use of any device over [start_s, finish_s].
  double peak_between(double start_s, double finish_s) const;
};

/// The timeline of every device. `consumers[v]`: the layers reading v's output (inference frees
/// by them; workloads::Graph::successors).
MemoryTimeline memory_timeline(const program::Program& program, const program::Evaluation& evaluation,
                               const std::vector<BoxMemory>& boxes,
                               const std::vector<std::vector<std::size_t>>& consumers, plan::Mode mode,
                               int device_count);

/// The timeline of every device from the Program's holdings (program::Program::holdings): a
/// device's resident holdings summed into its resident_bytes, each other holding from the start of
/// its first task until the later of that start and the finish of its last task. Throws Error when
/// `evaluation` does not time `program` or a holding names a device at or beyond `device_count`.
MemoryTimeline holding_timeline(const program::Program& program, const program::Evaluation& evaluation, int device_count);

}  // namespace partsim::memory
