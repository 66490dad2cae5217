#pragma once
// A Program is a lowered plan: the primitive events one training iteration (or inference) performs
// on the platform, with their dependencies. It is the seam between the planners and the two
// evaluators (DESIGN.md principle 1): the closed-form evaluator (closed_form.hpp) and the SimGrid
// replay consume the same Program, so any difference between them is contention, never a
// different reading of the plan.
//
// Contract:
// - Tasks are stored in a topological order: every index in Task::after is smaller than the task's
//   own index (Program::add enforces it).
// - A compute task occupies its endpoint for `seconds`, a time the lowering took from the device
//   model (PE-array model for template chips, roofline for roofline devices). Compute tasks on the
//   same endpoint do not overlap unless the lowering says so by leaving out the dependency: the
//   evaluators run every task as soon as its predecessors are done (a device may run a compute task
//   and several transfers at once: transfers are done by DMA engines, overlap is explicit).
// - A transfer task moves `bytes` from `src` to `dst` over the platform's route between them.
//   A transfer whose endpoints coincide takes no time.
// - A delay task takes `seconds` and uses nothing (latencies the model adds, e.g. a start-up; at
//   chip granularity also memory traffic, with `at` naming the memory it stands for).
// - Every task names the layer and pass it belongs to, so both evaluators can report per layer.

#include <string>
#include <vector>

#include "sim/common/error.hpp"

#include "sim/plan/plan.hpp"

namespace partsim::program {

/// A place on the platform: a device (chip), one of its cores, or its external memory.
struct Endpoint {
  int device = -1;      // device index in the SystemSpec
  int core = -1;        // -1: the device as a whole (chip granularity)
  bool memory = false;  // the device's external memory (core ignored)

  bool operator==(const Endpoint&) const = default;
};

enum class TaskKind { compute, transfer, delay };

struct Task {
  TaskKind kind = TaskKind::compute;
  int layer = -1;                     // index into Program::layer_names; -1: not a layer's work
  plan::Pass pass = plan::Pass::fwd;
  std::string label;                  // what it is, e.g. "compute", "grad_allreduce_x step 2"
  Endpoint at;                        // compute: where it runs; delay: what it stands for (add_delay)
  double seconds = 0;                 // compute and delay: duration
  Endpoint src, dst;                  // transfer: from, to
  double bytes = 0;                   // transfer: payload
  std::vector<int> after;             // tasks that must finish before this one starts
};

/// Thrown by Program::add when the program already holds its task limit (Program::set_task_limit):
/// a caller that wants to look at a program only up to a size it can afford catches it.
class TaskLimitExceeded : public Error {
 public:
  explicit TaskLimitExceeded(std::size_t limit);
  std::size_t limit() const noexcept { return limit_; }

 private:
  std::size_t limit_;
};

class Program {
 public:
  /// At most `limit` tasks (0: no limit); add() throws TaskLimitExceeded beyond it.
  void set_task_limit(std::size_t limit) noexcept { task_limit_ = limit; }

  /// Layers by name, in execution order; Task::layer indexes this.
  int add_layer(std::string name);
  const std::vector<std::string>& layer_names() const noexcept { return layer_names_; }

  /// Appends a task and returns its index. Throws Error if a dependency is not an earlier task
  /// or a value is negative (a lowering bug, not user input).
  int add(Task task);
  int add_compute(int layer, plan::Pass pass, std::string label, Endpoint at, double seconds, std::vector<int> after);
  int add_transfer(int layer, plan::Pass pass, std::string label, Endpoint src, Endpoint dst, double bytes,
                   std::vector<int> after);
  /// `at`: what the delay stands for, when it stands for a place's activity (a device's memory
  /// traffic at chip granularity): the delay still uses nothing, but reports and the timeline put it
  /// there. Default: nowhere (a latency).
  int add_delay(int layer, plan::Pass pass, std::string label, double seconds, std::vector<int> after,
                Endpoint at = {});

  const std::vector<Task>& tasks() const noexcept { return tasks_; }
  size_t size() const noexcept { return tasks_.size(); }

 private:
  std::vector<std::string> layer_names_;
  std::vector<Task> tasks_;
  std::size_t task_limit_ = 0;
};

}  // namespace partsim::program
