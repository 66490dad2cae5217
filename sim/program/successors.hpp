#pragma once
// The successors of every task of a Program, which stores only predecessors (Task::after): one
// flat array indexed by offsets (CSR), each task's successors in increasing index order, the order
// in which the Program lists them. The evaluators walk forward with it (a task that finishes
// releases its successors) and the replay lower bound backward (a task's tail). 4 bytes per
// dependency and 8 per task.

#include <cstddef>
#include <span>
#include <vector>

#include "sim/program/program.hpp"

namespace partsim::program {

class Successors {
 public:
  explicit Successors(const TaskList& tasks);
  /// The tasks that list `task` among their predecessors.
  std::span<const int> of(std::size_t task) const {
    return {successors_.data() + first_[task], first_[task + 1] - first_[task]};
  }

 private:
  std::vector<std::size_t> first_;  // per task + 1: where its successors start in successors_
  std::vector<int> successors_;     // task indices are ints (Task::after)
};

}  // namespace partsim::program
