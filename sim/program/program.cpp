#include "sim/program/program.hpp"

#include <cmath>

#include "sim/common/error.hpp"

namespace partsim::program {

int Program::add_layer(std::string name) {
  layer_names_.push_back(std::move(name));
  return static_cast<int>(layer_names_.size()) - 1;
}

TaskLimitExceeded::TaskLimitExceeded(std::size_t limit)
    : Error("program: more than " + std::to_string(limit) + " tasks (the limit its caller set)"), limit_(limit) {}

int Program::add(Task task) {
  if (task_limit_ > 0 && tasks_.size() >= task_limit_) throw TaskLimitExceeded(task_limit_);
  const int index = static_cast<int>(tasks_.size());
  for (int dep : task.after)
    if (dep < 0 || dep >= index)
      throw Error("program: task " + std::to_string(index) + " (" + task.label + ") depends on task " +
                  std::to_string(dep) + ", which is not an earlier task");
  if (!(task.seconds >= 0) || !std::isfinite(task.seconds) || !(task.bytes >= 0) || !std::isfinite(task.bytes))
    throw Error("program: task " + std::to_string(index) + " (" + task.label + ") has a negative or non-finite size");
  if (task.layer >= static_cast<int>(layer_names_.size()))
    throw Error("program: task " + std::to_string(index) + " names layer " + std::to_string(task.layer) +
                ", which was not added");
  tasks_.push_back(std::move(task));
  return index;
}

int Program::add_compute(int layer, plan::Pass pass, std::string label, Endpoint at, double seconds,
                         std::vector<int> after) {
  Task t;
  t.kind = TaskKind::compute;
  t.layer = layer;
  t.pass = pass;
  t.label = std::move(label);
  t.at = at;
  t.seconds = seconds;
  t.after = std::move(after);
  return add(std::move(t));
}

int Program::add_transfer(int layer, plan::Pass pass, std::string label, Endpoint src, Endpoint dst, double bytes,
                          std::vector<int> after) {
  Task t;
  t.kind = TaskKind::transfer;
  t.layer = layer;
  t.pass = pass;
  t.label = std::move(label);
  t.src = src;
  t.dst = dst;
  t.bytes = bytes;
  t.after = std::move(after);
  return add(std::move(t));
}

int Program::add_delay(int layer, plan::Pass pass, std::string label, double seconds, std::vector<int> after,
                       Endpoint at) {
  Task t;
  t.kind = TaskKind::delay;
  t.at = at;
  t.layer = layer;
  t.pass = pass;
  t.label = std::move(label);
  t.seconds = seconds;
  t.after = std::move(after);
  return add(std::move(t));
}

}  // namespace partsim::program
