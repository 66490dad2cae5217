#include "sim/program/successors.hpp"

namespace partsim::program {

Successors::Successors(const TaskList& tasks) : first_(tasks.size() + 1, 0) {
  const std::size_t n = tasks.size();
  for (const Task& task : tasks)
    for (const int dep : task.after) ++first_[static_cast<std::size_t>(dep) + 1];
  for (std::size_t i = 0; i < n; ++i) first_[i + 1] += first_[i];
  successors_.resize(first_[n]);
  std::vector<std::size_t> fill(first_.begin(), first_.end() - 1);
  for (std::size_t i = 0; i < n; ++i)
    for (const int dep : tasks[i].after) successors_[fill[static_cast<std::size_t>(dep)]++] = static_cast<int>(i);
}

}  // namespace partsim::program
