// Program's table of collective instances and steps (program.hpp CollectiveInstance, CollectiveStep):
// what a task reads back is the collective and step it was marked with, a task stays 64 bytes, and a
// bad mark is a lowering bug the Program refuses.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/common/error.hpp"
#include "sim/program/program.hpp"

using namespace partsim::program;
using partsim::collectives::Kind;
using partsim::plan::Pass;

TEST(CollectiveMarks, TasksReadBackTheirCollectiveAndStep) {
  static_assert(sizeof(Task) == 64, "the collective step fits in the task's 64 bytes");
  Program p;
  const int l = p.add_layer("L");
  const int plain = p.add_compute(l, Pass::fwd, "compute", {0}, 1e-3, {});
  const int ar = p.add_collective_instance(Kind::all_reduce, "ring", {0, 1}, "grad step 1 sync");
  const int rs = p.add_collective_instance(Kind::reduce_scatter, "torus", {1, 0}, "rs");
  const int a = p.add_transfer(l, Pass::fwd, "grad step 1 sync step 1", {0}, {1}, 1e3, {plain});
  const int b = p.add_transfer(l, Pass::fwd, "grad step 1 sync step 1", {1}, {0}, 1e3, {});
  const int c = p.add_transfer(l, Pass::fwd, "rs", {1}, {0}, 1e3, {a, b});
  p.mark_collective(a, ar, 0);
  p.mark_collective(b, ar, 0);
  p.mark_collective(c, rs, 2, 3);  // a merged run of steps 2, 3 and 4
  const auto& t = p.tasks();
  EXPECT_EQ(p.collective_step(t[static_cast<std::size_t>(plain)]), nullptr);
  EXPECT_EQ(p.collective_of(t[static_cast<std::size_t>(plain)]), nullptr);
  EXPECT_EQ(*p.collective_step(t[static_cast<std::size_t>(a)]), (CollectiveStep{ar, 0, 1}));
  EXPECT_EQ(p.collective_of(t[static_cast<std::size_t>(b)])->label.str(), "grad step 1 sync");
  EXPECT_EQ(*p.collective_step(t[static_cast<std::size_t>(c)]), (CollectiveStep{rs, 2, 3}));
  EXPECT_EQ(p.collective_of(t[static_cast<std::size_t>(c)])->kind, Kind::reduce_scatter);
  EXPECT_EQ(p.collective_of(t[static_cast<std::size_t>(c)])->group, (std::vector<int>{1, 0}));
  EXPECT_EQ(p.collective_steps().size(), 2u);  // a and b share one entry
  // The dependencies still read back (their size shares 8 bytes with the collective step).
  ASSERT_EQ(t[static_cast<std::size_t>(c)].after.size(), 2u);
  EXPECT_EQ(t[static_cast<std::size_t>(c)].after[0], a);
  EXPECT_EQ(t[static_cast<std::size_t>(c)].after.back(), b);

  // A copy into another Program leaves the mark behind (it indexes this Program's table).
  Program q;
  q.add_layer("L");
  const int copied = q.add(t[static_cast<std::size_t>(b)]);  // (b depends on nothing)
  EXPECT_EQ(q.collective_step(q.tasks()[static_cast<std::size_t>(copied)]), nullptr);
}

TEST(CollectiveMarks, BadMarksAreRefused) {
  Program p;
  const int l = p.add_layer("L");
  const int x = p.add_transfer(l, Pass::fwd, "x", {0}, {1}, 1e3, {});
  const int c = p.add_collective_instance(Kind::all_gather, "", {0, 1}, "x");
  EXPECT_THROW(p.mark_collective(x + 1, c, 0), partsim::Error);  // no such task
  EXPECT_THROW(p.mark_collective(x, c + 1, 0), partsim::Error);  // no such collective
  EXPECT_THROW(p.mark_collective(x, c, -2), partsim::Error);     // before the start
  EXPECT_THROW(p.mark_collective(x, c, 0, 0), partsim::Error);   // no steps
  p.mark_collective(x, c, -1);                                    // the start
  EXPECT_EQ(p.collective_step(p.tasks()[0])->step, -1);
}
