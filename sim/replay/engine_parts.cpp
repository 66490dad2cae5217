#include "sim/replay/engine_parts.hpp"

namespace partsim::replay {

ReadyTasks::ReadyTasks(const program::TaskList& tasks) : successors_(tasks) {
  const std::size_t n = tasks.size();
  waiting_.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) waiting_[i] = static_cast<int>(tasks[i].after.size());
  for (std::size_t i = n; i-- > 0;)
    if (waiting_[i] == 0) ready_.push_back(i);  // reversed, so tasks start in index order
}

std::size_t ReadyTasks::pop() {
  const std::size_t i = ready_.back();
  ready_.pop_back();
  return i;
}

void ReadyTasks::finished(std::size_t task) {
  for (const int s : successors_.of(task))
    if (--waiting_[static_cast<std::size_t>(s)] == 0) ready_.push_back(static_cast<std::size_t>(s));
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
