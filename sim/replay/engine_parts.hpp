#pragma once
// Private to sim/replay (and its tests): the pieces of a Program's replay (program_replay.cpp,
// ReplayEngine) that need no SimGrid, so each can be read and tested alone.

#include <cstddef>
#include <vector>

#include "sim/program/program.hpp"
#include "sim/program/successors.hpp"

namespace partsim::replay {

/// The tasks whose predecessors have all finished, in the order the replay starts them: a stack
/// (the last made ready starts first), filled at first with the tasks without predecessors so that
/// they start in index order. The replay's times depend on this order only through the order in
/// which SimGrid sees simultaneous starts; it is kept as it is so that times stay bit-identical.
class ReadyTasks {
 public:
  explicit ReadyTasks(const program::TaskList& tasks);

  bool empty() const noexcept { return ready_.empty(); }
  /// The next task to start, taken off the stack.
  std::size_t pop();
  /// `task` finished: every successor it was the last predecessor of becomes ready, in the order
  /// the Program lists them.
  void finished(std::size_t task);

 private:
  program::Successors successors_;
  std::vector<int> waiting_;  // per task: predecessors not yet finished
  std::vector<std::size_t> ready_;
};

/// Who holds each link of the platform: a lone transfer (timed by a timer, LoneTransfers::timed)
/// never shares a link, so a link has either one owner (a task) or any number of SimGrid comms.
class LinkUse {
 public:
  explicit LinkUse(std::size_t links) : owner_(links, -1), comms_(links, 0) {}

  /// The lone transfer holding `link`, -1 when none.
  int owner(int link) const { return owner_[static_cast<std::size_t>(link)]; }
  /// Whether any of `links` carries a comm or a lone transfer.
  bool busy(const std::vector<int>& links) const;
  /// `task`, a lone transfer, holds `links`.
  void claim(const std::vector<int>& links, std::size_t task);
  /// `task` lets go of those of `links` it still holds (a link it let go of may have a new owner).
  void release(const std::vector<int>& links, std::size_t task);
  /// A SimGrid comm starts (add) or ends (remove) on `links`.
  void add_comm(const std::vector<int>& links);
  void remove_comm(const std::vector<int>& links);

 private:
  std::vector<int> owner_;  // per link: task index, -1 when none
  std::vector<int> comms_;  // per link: SimGrid comms on it
};

}  // namespace partsim::replay
