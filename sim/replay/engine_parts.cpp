#include "sim/replay/engine_parts.hpp"

namespace partsim::replay {

ReadyTasks::ReadyTasks(const program::TaskList& tasks) {
  const std::size_t n = tasks.size();
  waiting_.assign(n, 0);
  first_successor_.assign(n + 1, 0);
  for (const auto& task : tasks)
    for (int dep : task.after) ++first_successor_[static_cast<std::size_t>(dep) + 1];
  for (std::size_t i = 0; i < n; ++i) first_successor_[i + 1] += first_successor_[i];
  successors_.resize(first_successor_[n]);
  std::vector<std::size_t> fill(first_successor_.begin(), first_successor_.end() - 1);
  for (std::size_t i = 0; i < n; ++i) {
    waiting_[i] = static_cast<int>(tasks[i].after.size());
    for (int dep : tasks[i].after) successors_[fill[static_cast<std::size_t>(dep)]++] = static_cast<int>(i);
  }
  for (std::size_t i = n; i-- > 0;)
    if (waiting_[i] == 0) ready_.push_back(i);  // reversed, so tasks start in index order
}

std::size_t ReadyTasks::pop() {
  const std::size_t i = ready_.back();
  ready_.pop_back();
  return i;
}

void ReadyTasks::finished(std::size_t task) {
  for (std::size_t s = first_successor_[task]; s < first_successor_[task + 1]; ++s)
    if (--waiting_[static_cast<std::size_t>(successors_[s])] == 0) ready_.push_back(static_cast<std::size_t>(successors_[s]));
}

bool LinkUse::busy(const std::vector<int>& links) const {
  bool shared = false;
  for (int l : links) shared = shared || comms_[static_cast<std::size_t>(l)] > 0 || owner_[static_cast<std::size_t>(l)] >= 0;
  return shared;
}

void LinkUse::claim(const std::vector<int>& links, std::size_t task) {
  for (int l : links) owner_[static_cast<std::size_t>(l)] = static_cast<int>(task);
}

void LinkUse::release(const std::vector<int>& links, std::size_t task) {
  for (int l : links)
    if (int& owner = owner_[static_cast<std::size_t>(l)]; owner == static_cast<int>(task)) owner = -1;
}

void LinkUse::add_comm(const std::vector<int>& links) {
  for (int l : links) ++comms_[static_cast<std::size_t>(l)];
}

void LinkUse::remove_comm(const std::vector<int>& links) {
  for (int l : links) --comms_[static_cast<std::size_t>(l)];
}

}  // namespace partsim::replay
