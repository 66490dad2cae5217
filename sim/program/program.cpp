#include "sim/program/program.hpp"

#include <algorithm>
#include <cmath>

#include "sim/common/error.hpp"

namespace partsim::program {

int Program::add_layer(std::string name) {
  layer_names_.push_back(std::move(name));
  return static_cast<int>(layer_names_.size()) - 1;
}

TaskLimitExceeded::TaskLimitExceeded(std::size_t limit)
    : Error("program: more than " + std::to_string(limit) + " tasks (the limit its caller set)"), limit_(limit) {}

namespace {
const std::string kEmptyLabel;
// Dependencies per block: 4 MB; a task with more gets a block of its own.
constexpr std::size_t kDependencyBlock = std::size_t{1} << 20;
}  // namespace

Label::Label() noexcept : text_(&kEmptyLabel) {}

Label Program::intern(std::string_view text) {
  if (text.empty()) return Label{};
  return Label{&*labels_.emplace(text).first};
}

std::span<const int> Program::store(std::span<const int> after) {
  if (after.empty()) return {};
  if (dependency_blocks_.empty() ||
      dependency_blocks_.back().capacity() - dependency_blocks_.back().size() < after.size()) {
    dependency_blocks_.emplace_back();
    dependency_blocks_.back().reserve(std::max(kDependencyBlock, after.size()));
  }
  std::vector<int>& block = dependency_blocks_.back();
  const std::size_t first = block.size();
  // Within the capacity: no reallocation, so `after` may even point into this block (a task of
  // this Program copied by add(const Task&)).
  for (int dep : after) block.push_back(dep);
  return {block.data() + first, after.size()};
}

int Program::add(const Task& task) { return add(task, task.label.str(), task.after); }

int Program::add(Task task, std::string_view label, std::span<const int> after) {
  if (task_limit_ > 0 && tasks_.size() >= task_limit_) throw TaskLimitExceeded(task_limit_);
  const int index = static_cast<int>(tasks_.size());
  for (int dep : after)
    if (dep < 0 || dep >= index)
      throw Error("program: task " + std::to_string(index) + " (" + std::string(label) + ") depends on task " +
                  std::to_string(dep) + ", which is not an earlier task");
  if (!(task.amount() >= 0) || !std::isfinite(task.amount()))
    throw Error("program: task " + std::to_string(index) + " (" + std::string(label) +
                ") has a negative or non-finite size");
  if (task.layer >= static_cast<int>(layer_names_.size()))
    throw Error("program: task " + std::to_string(index) + " names layer " + std::to_string(task.layer) +
                ", which was not added");
  task.label = intern(label);
  task.after = store(after);
  task.collective_step = -1;  // an index into the source Program's table (mark_collective sets it)
  tasks_.push_back(task);
  return index;
}

namespace {
void check_holding(int device, double bytes, std::string_view what) {
  if (device < 0)
    throw Error("program: holding '" + std::string(what) + "' on device " + std::to_string(device));
  if (!(bytes >= 0) || !std::isfinite(bytes))
    throw Error("program: holding '" + std::string(what) + "' has a negative or non-finite size");
}
}  // namespace

void Program::add_holding(int device, double bytes, int first_task, int last_task, std::string_view what) {
  check_holding(device, bytes, what);
  const auto n = static_cast<int>(tasks_.size());
  if (first_task < 0 || first_task >= n || last_task < 0 || last_task >= n)
    throw Error("program: holding '" + std::string(what) + "' names tasks " + std::to_string(first_task) + " .. " +
                std::to_string(last_task) + " of " + std::to_string(n));
  holdings_.push_back({device, first_task, last_task, bytes, intern(what)});
}

void Program::add_resident(int device, double bytes, std::string_view what) {
  check_holding(device, bytes, what);
  holdings_.push_back({device, -1, -1, bytes, intern(what)});
}

void Program::add_merged_run(std::vector<int> transfers, double steps) {
  for (int t : transfers)
    if (t < 0 || static_cast<std::size_t>(t) >= tasks_.size() || tasks_[static_cast<std::size_t>(t)].kind != TaskKind::transfer)
      throw Error("program: a merged run names task " + std::to_string(t) + ", not a transfer");
  if (!(steps >= 1) || !std::isfinite(steps)) throw Error("program: a merged run of " + std::to_string(steps) + " steps");
  merged_.runs.push_back({std::move(transfers), steps});
}

void Program::add_merged_latency(int delay) {
  if (delay < 0 || static_cast<std::size_t>(delay) >= tasks_.size() ||
      tasks_[static_cast<std::size_t>(delay)].kind != TaskKind::delay)
    throw Error("program: merged latency names task " + std::to_string(delay) + ", not a delay");
  merged_.latency_delays.push_back(delay);
}

int Program::add_collective_instance(collectives::Kind kind, std::string algorithm, std::vector<int> group,
                                     std::string_view label) {
  collectives_.push_back({kind, std::move(algorithm), std::move(group), intern(label)});
  return static_cast<int>(collectives_.size()) - 1;
}

void Program::mark_collective(int task, int collective, int step, int steps) {
  if (task < 0 || static_cast<std::size_t>(task) >= tasks_.size())
    throw Error("program: mark_collective names task " + std::to_string(task) + " of " + std::to_string(tasks_.size()));
  if (collective < 0 || static_cast<std::size_t>(collective) >= collectives_.size())
    throw Error("program: mark_collective names collective " + std::to_string(collective) + " of " +
                std::to_string(collectives_.size()));
  if (step < -1 || steps < 1)
    throw Error("program: collective step " + std::to_string(step) + " of " + std::to_string(steps) + " steps");
  const CollectiveStep entry{collective, step, steps};
  // A collective's tasks are added step by step: the entry is almost always the last one.
  if (collective_steps_.empty() || !(collective_steps_.back() == entry)) collective_steps_.push_back(entry);
  tasks_[static_cast<std::size_t>(task)].collective_step = static_cast<std::int32_t>(collective_steps_.size() - 1);
}

int Program::add_compute(int layer, plan::Pass pass, std::string label, Endpoint at, double seconds,
                         std::vector<int> after) {
  Task t;
  t.kind = TaskKind::compute;
  t.layer = layer;
  t.pass = pass;
  t.at = at;
  t.seconds = seconds;
  return add(t, label, after);
}

int Program::add_transfer(int layer, plan::Pass pass, std::string label, Endpoint src, Endpoint dst, double bytes,
                          std::vector<int> after) {
  Task t;
  t.kind = TaskKind::transfer;
  t.layer = layer;
  t.pass = pass;
  t.src = src;
  t.dst = dst;
  t.bytes = bytes;
  return add(t, label, after);
}

int Program::add_delay(int layer, plan::Pass pass, std::string label, double seconds, std::vector<int> after,
                       Endpoint at) {
  Task t;
  t.kind = TaskKind::delay;
  t.at = at;
  t.layer = layer;
  t.pass = pass;
  t.seconds = seconds;
  return add(t, label, after);
}

}  // namespace partsim::program
