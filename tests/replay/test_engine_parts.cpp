// The pieces of a Program's replay that need no SimGrid (sim/replay/engine_parts.hpp), each alone:
// the order in which ready tasks start, and who holds a link.

#include <gtest/gtest.h>

#include <vector>

#include "sim/program/program.hpp"
#include "sim/replay/engine_parts.hpp"

using namespace partsim;
using plan::Pass;
using replay::LinkUse;
using replay::ReadyTasks;

namespace {

std::vector<std::size_t> drain(ReadyTasks& ready) {
  std::vector<std::size_t> order;
  while (!ready.empty()) order.push_back(ready.pop());
  return order;
}

}  // namespace

TEST(ReplayReadyTasks, SourcesStartInIndexOrderSuccessorsWhenTheirLastPredecessorEnds) {
  // 0 and 1 have no predecessor; 2 and 3 follow 0; 4 follows 2 and 1.
  //   0 -> 2 -> 4 <- 1,   0 -> 3
  program::Program p;
  const int layer = p.add_layer("l0");
  const int t0 = p.add_delay(layer, Pass::fwd, "t0", 1, {});
  const int t1 = p.add_delay(layer, Pass::fwd, "t1", 1, {});
  const int t2 = p.add_delay(layer, Pass::fwd, "t2", 1, {t0});
  p.add_delay(layer, Pass::fwd, "t3", 1, {t0});
  p.add_delay(layer, Pass::fwd, "t4", 1, {t2, t1});
  ReadyTasks ready(p.tasks());
  EXPECT_EQ(drain(ready), (std::vector<std::size_t>{0, 1}));  // pushed reversed: index order
  ready.finished(0);  // 2 and 3 become ready, pushed in the Program's order: 3 is on top
  EXPECT_EQ(drain(ready), (std::vector<std::size_t>{3, 2}));
  ready.finished(2);  // 4 still waits for 1
  EXPECT_TRUE(ready.empty());
  ready.finished(3);  // no successors
  EXPECT_TRUE(ready.empty());
  ready.finished(1);
  EXPECT_EQ(drain(ready), (std::vector<std::size_t>{4}));
}

TEST(ReplayLinkUse, ALoneTransferHoldsItsLinksUntilItLetsGo) {
  // Links 0..3. Task 7 holds links 0 and 1; a comm runs on links 2 and 3.
  LinkUse use(4);
  EXPECT_FALSE(use.busy({0, 1, 2, 3}));
  use.claim({0, 1}, 7);
  EXPECT_EQ(use.owner(0), 7);
  EXPECT_EQ(use.owner(1), 7);
  EXPECT_EQ(use.owner(2), -1);
  EXPECT_TRUE(use.busy({1, 2}));
  EXPECT_FALSE(use.busy({2, 3}));
  use.add_comm({2, 3});
  EXPECT_TRUE(use.busy({3}));
  // 7 lets go with under half a byte left, task 9 takes link 1; when 7's timer then ends it, its
  // letting go again leaves link 1 to 9.
  use.release({0, 1}, 7);
  EXPECT_FALSE(use.busy({0, 1}));
  use.claim({1}, 9);
  use.release({0, 1}, 7);
  EXPECT_EQ(use.owner(0), -1);
  EXPECT_EQ(use.owner(1), 9);
  use.release({1}, 9);
  use.remove_comm({2, 3});
  EXPECT_FALSE(use.busy({0, 1, 2, 3}));
}
