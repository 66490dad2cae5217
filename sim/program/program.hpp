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
//   chip granularity also memory traffic, with `at` naming the memory it stands for). Every delay a
//   lowering adds states its place (Endpoint::stated), so reports never guess where it ran.
// - A collective's tasks carry its identity (CollectiveInstance: kind, algorithm, group) and their
//   step (CollectiveStep), which reports read instead of labels.
// - Every task names the layer and pass it belongs to, so both evaluators can report per layer.
// - A lowering that sizes its own memory may declare it as holdings (add_holding, add_resident):
//   bytes in use on a device between the start of one task and the finish of another, or for the
//   whole iteration. The evaluators ignore them; the memory timeline (memory_timeline.hpp
//   holding_timeline) places them in time with an evaluation's task times.

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "sim/collectives/kind.hpp"
#include "sim/common/error.hpp"
#include "sim/plan/pass.hpp"

namespace partsim::program {

/// A place on the platform: a device (chip), one of its cores, or its external memory.
/// A delay states its place too (Task::at): a device's, or one of the two placeless statements below;
/// the default Endpoint (device -1) states nothing, which only hand-built test programs leave.
struct Endpoint {
  static constexpr int kSeveralDevices = -2;
  static constexpr int kNowhere = -3;

  int device = -1;      // device index in the SystemSpec; a delay: also kSeveralDevices or kNowhere
  int core = -1;        // -1: the device as a whole (chip granularity)
  bool memory = false;  // the device's external memory (core ignored)

  /// A delay that stands for the same activity on several devices at once (a collective's per-step
  /// endpoint overhead, a device group's on-chip relayout): reports draw it on the Program's track.
  static constexpr Endpoint several_devices() noexcept { return {kSeveralDevices, -1, false}; }
  /// A delay that stands for nothing on the platform: a join (0 s).
  static constexpr Endpoint nowhere() noexcept { return {kNowhere, -1, false}; }
  /// Whether a delay's place was stated (a device, several_devices or nowhere).
  constexpr bool stated() const noexcept { return device >= 0 || device == kSeveralDevices || device == kNowhere; }

  bool operator==(const Endpoint&) const = default;
};

enum class TaskKind : std::uint8_t { compute, transfer, delay };

/// A task's label, kept once per distinct text by the Program that holds the task (a lowering
/// repeats a few dozen labels over millions of tasks): 8 bytes in the task, read as the string.
class Label {
 public:
  Label() noexcept;  // ""
  const std::string& str() const noexcept { return *text_; }
  operator const std::string&() const noexcept { return *text_; }
  bool empty() const noexcept { return text_->empty(); }
  friend bool operator==(const Label& a, std::string_view b) noexcept { return *a.text_ == b; }

 private:
  friend class Program;
  explicit Label(const std::string* text) noexcept : text_(text) {}
  const std::string* text_;
};

/// A task's dependencies: indices of earlier tasks, held by the Program. A span with a 32-bit size
/// (a task has far fewer than 4 G dependencies), so that Task keeps 4 bytes for its collective step.
class Dependencies {
 public:
  Dependencies() = default;
  Dependencies(std::span<const int> tasks) noexcept  // NOLINT: implicit, as a span converts
      : data_(tasks.data()), size_(static_cast<std::uint32_t>(tasks.size())) {}
  operator std::span<const int>() const noexcept { return {data_, size_}; }
  const int* begin() const noexcept { return data_; }
  const int* end() const noexcept { return data_ + size_; }
  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  int operator[](std::size_t i) const noexcept { return data_[i]; }
  int front() const noexcept { return data_[0]; }
  int back() const noexcept { return data_[size_ - 1]; }

 private:
  const int* data_ = nullptr;
  std::uint32_t size_ = 0;
};

// 64 bytes (a 4,096-chip iteration has 3.1 M tasks): a compute or delay task has a place and a
// duration, a transfer two places and a size, so `at` shares its storage with `src` and `seconds`
// with `bytes`. Read only the members of the task's kind: a transfer's `seconds` is its size.
struct Task {
  Task() noexcept : at{} {}  // (a union member's constructor is not run on its own)

  TaskKind kind = TaskKind::compute;
  plan::Pass pass = plan::Pass::fwd;
  int layer = -1;                     // index into Program::layer_names; -1: not a layer's work
  union {
    Endpoint at;                      // compute: where it runs; delay: what it stands for (add_delay)
    Endpoint src;                     // transfer: from
  };
  Endpoint dst;                       // transfer: to
  Label label;                        // what it is, e.g. "compute", "grad_allreduce_x step 2"
  union {
    double seconds = 0;               // compute and delay: duration
    double bytes;                     // transfer: payload
  };
  // (no_unique_address: collective_step takes the 4 bytes of padding after the 32-bit size.)
  [[no_unique_address]] Dependencies after;  // tasks that must finish before this one starts (held by the Program)
  /// The collective and step this task is part of: an index into Program::collective_steps(), -1
  /// when it is no collective's (read it with Program::collective_step; Program::mark_collective sets it).
  std::int32_t collective_step = -1;

  /// The task's duration (compute, delay) or payload (transfer): the one number it has.
  double amount() const noexcept { return kind == TaskKind::transfer ? bytes : seconds; }
};
static_assert(sizeof(Task) <= 64, "Task grew: 3.1 M of them make a 4,096-chip iteration");
static_assert(sizeof(Dependencies) == 16 && alignof(Dependencies) == 8, "Dependencies: a pointer and a 32-bit size");

/// A Program's tasks: indexable and iterable like a vector, stored in fixed blocks of 65,536 so
/// that growing never copies them (a vector's doubling holds the old and the new array at once:
/// 600 MB for the 3.1 M tasks of a 4,096-chip iteration instead of 300 MB).
class TaskList {
 public:
  static constexpr std::size_t kBlockBits = 16;
  static constexpr std::size_t kBlock = std::size_t{1} << kBlockBits;

  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = Task;
    using difference_type = std::ptrdiff_t;
    using pointer = const Task*;
    using reference = const Task&;
    const_iterator() = default;
    const Task& operator*() const { return (*list_)[index_]; }
    const Task* operator->() const { return &(*list_)[index_]; }
    const_iterator& operator++() {
      ++index_;
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator old = *this;
      ++index_;
      return old;
    }
    bool operator==(const const_iterator& o) const { return index_ == o.index_; }

   private:
    friend class TaskList;
    const_iterator(const TaskList* list, std::size_t index) : list_(list), index_(index) {}
    const TaskList* list_ = nullptr;
    std::size_t index_ = 0;
  };

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  const Task& operator[](std::size_t i) const { return blocks_[i >> kBlockBits][i & (kBlock - 1)]; }
  Task& operator[](std::size_t i) { return blocks_[i >> kBlockBits][i & (kBlock - 1)]; }
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size_}; }
  void push_back(const Task& task) {
    if ((size_ & (kBlock - 1)) == 0) {
      blocks_.emplace_back();
      blocks_.back().reserve(kBlock);
    }
    blocks_.back().push_back(task);
    ++size_;
  }

 private:
  std::vector<std::vector<Task>> blocks_;
  std::size_t size_ = 0;
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

/// Memory a lowering says is in use on `device`: `bytes` from the start of task `first_task` until
/// the finish of task `last_task` (indices into the Program's tasks), or, when both are -1 (a
/// resident holding, add_resident), for the whole iteration. `what` names it ("activations", "model
/// states").
struct Holding {
  int device = -1;
  int first_task = -1;
  int last_task = -1;
  double bytes = 0;
  Label what;
  bool resident() const noexcept { return first_task < 0; }
};

/// Steps of a collective the lowering merged into fewer tasks (lowering::step_runs: a ring's steps
/// between the same pair as one transfer of all their bytes, the latencies merged away as one delay
/// after them). Both evaluators time the merged form; an exporter whose simulator sends one message
/// per step (Chakra, ASTRA-sim) splits the transfers again and leaves the delays out, because each
/// message there pays its own latency.
struct MergedRun {
  std::vector<int> transfers;  // the run's transfer tasks, one per (src, dst) pair (a ring: one per member)
  double steps = 1;            // the schedule steps each of them carries
};
struct MergedSteps {
  std::vector<MergedRun> runs;
  std::vector<int> latency_delays;  // delays that add back the latency the merge removed
};

/// One collective the lowering added (lowering::add_collective, the shared lowering's steps and
/// redistributions): what it is, by type, so that reports group its tasks without reading labels.
struct CollectiveInstance {
  collectives::Kind kind = collectives::Kind::unnamed;
  std::string algorithm;   // collectives::Identity::algorithm: "ring", "torus", ...; "" where none was chosen
  std::vector<int> group;  // the devices taking part, in the order the schedule first names them
  Label label;             // the label it was added under (its transfers' labels begin with it)
};

/// A task's place in a collective. Steps are the schedule's, from 0 (a transfer labelled "X step 3"
/// is step 2); a task that carries several merged steps (MergedSteps) names the first and their count.
struct CollectiveStep {
  int collective = -1;  // index into Program::collectives()
  int step = 0;         // -1: the collective's start (its protocol's per-call latency, before step 0)
  int steps = 1;        // schedule steps the task carries (>= 1; 1 for a start)

  bool operator==(const CollectiveStep&) const = default;
};

class Program {
 public:
  /// At most `limit` tasks (0: no limit); add() throws TaskLimitExceeded beyond it.
  void set_task_limit(std::size_t limit) noexcept { task_limit_ = limit; }

  /// Layers by name, in execution order; Task::layer indexes this.
  int add_layer(std::string name);
  const std::vector<std::string>& layer_names() const noexcept { return layer_names_; }

  /// Appends a copy of `task` (a task of this Program or of another: its label and dependencies
  /// are copied into this Program; its collective step is not, being an index into its own
  /// Program's table) and returns its index. Throws Error if a dependency is not an
  /// earlier task or a value is negative (a lowering bug, not user input).
  int add(const Task& task);
  int add_compute(int layer, plan::Pass pass, std::string label, Endpoint at, double seconds, std::vector<int> after);
  int add_transfer(int layer, plan::Pass pass, std::string label, Endpoint src, Endpoint dst, double bytes,
                   std::vector<int> after);
  /// `at`: the place the delay stands for: a device's activity (memory traffic at chip granularity,
  /// with at.memory), where a latency is paid (the device the data arrives at), several devices at
  /// once (Endpoint::several_devices) or nowhere (Endpoint::nowhere: a join). The delay still uses
  /// nothing; reports and the timeline put it there. A lowering states it for every delay (a test
  /// checks the lowerings); the default states nothing.
  int add_delay(int layer, plan::Pass pass, std::string label, double seconds, std::vector<int> after,
                Endpoint at = {});

  /// Declares `bytes` (>= 0, finite) in use on `device` (>= 0) from the start of task `first_task`
  /// until the finish of task `last_task`, both tasks already added (either order: the timeline
  /// holds the bytes from the start until the later of the start and the finish). Throws Error
  /// otherwise (a lowering bug).
  void add_holding(int device, double bytes, int first_task, int last_task, std::string_view what);
  /// Declares `bytes` in use on `device` for the whole iteration (weights, gradients, optimizer
  /// states), counted by the timeline as the device's resident bytes.
  void add_resident(int device, double bytes, std::string_view what);
  /// Every holding, in the order they were declared.
  const std::vector<Holding>& holdings() const noexcept { return holdings_; }

  /// Declares that the transfer tasks `transfers` each carry `steps` (>= 1) steps of one merged run
  /// (MergedSteps): in each step a member forwards what reached it in the previous one.
  void add_merged_run(std::vector<int> transfers, double steps);
  /// Declares that delay task `delay` adds back the latency of merged steps (MergedSteps).
  void add_merged_latency(int delay);
  const MergedSteps& merged_steps() const noexcept { return merged_; }

  /// Declares a collective instance (CollectiveInstance) and returns its index; its tasks are marked
  /// with mark_collective as they are added.
  int add_collective_instance(collectives::Kind kind, std::string algorithm, std::vector<int> group,
                              std::string_view label);
  /// Marks task `task` as step `step` (and the `steps` - 1 after it) of collective `collective`.
  /// Throws Error for a task or collective not yet added, steps < 1 or step < -1 (a lowering bug).
  void mark_collective(int task, int collective, int step, int steps = 1);
  const std::vector<CollectiveInstance>& collectives() const noexcept { return collectives_; }
  /// Every distinct (collective, step) a task is marked with; Task::collective_step indexes it.
  const std::vector<CollectiveStep>& collective_steps() const noexcept { return collective_steps_; }
  /// The collective step of `task` (a task of this Program), nullptr when it is no collective's.
  const CollectiveStep* collective_step(const Task& task) const noexcept {
    return task.collective_step < 0 ? nullptr : &collective_steps_[static_cast<std::size_t>(task.collective_step)];
  }
  /// The collective instance of `task`, nullptr when it is no collective's.
  const CollectiveInstance* collective_of(const Task& task) const noexcept {
    const CollectiveStep* step = collective_step(task);
    return step ? &collectives_[static_cast<std::size_t>(step->collective)] : nullptr;
  }

  const TaskList& tasks() const noexcept { return tasks_; }
  size_t size() const noexcept { return tasks_.size(); }

  Program() = default;
  // Tasks point into the Program's label and dependency storage: it moves, it is not copied.
  Program(Program&&) noexcept = default;
  Program& operator=(Program&&) noexcept = default;
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

 private:
  int add(Task task, std::string_view label, std::span<const int> after);
  Label intern(std::string_view text);
  std::span<const int> store(std::span<const int> after);

  std::vector<std::string> layer_names_;
  TaskList tasks_;
  std::unordered_set<std::string> labels_;  // nodes never move: Label points at them
  // Every task's dependencies, back to back in blocks that are never reallocated (reserved once),
  // so Task::after can point into them: 4 bytes per dependency instead of a vector per task.
  std::vector<std::vector<int>> dependency_blocks_;
  std::size_t task_limit_ = 0;
  std::vector<Holding> holdings_;
  MergedSteps merged_;
  std::vector<CollectiveInstance> collectives_;
  std::vector<CollectiveStep> collective_steps_;
};

}  // namespace partsim::program
