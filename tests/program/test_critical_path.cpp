#include <gtest/gtest.h>

#include "sim/common/error.hpp"
#include "sim/program/closed_form.hpp"
#include "sim/program/critical_path.hpp"

using namespace partsim::program;
using partsim::plan::Pass;

namespace {
// 1 GB/s, no latency: a transfer of 1e9 B takes 1 s.
double one_gb_per_s(const Endpoint&, const Endpoint&, double bytes) { return bytes / 1e9; }
}  // namespace

// Two layers whose spans overlap (issue 41 item 4's case by hand), timed by the closed form:
//   t0  A fwd compute on d0, 3 s, no dependency:         [0, 3]
//   t1  A fwd transfer d0 -> d1, 1e9 B at 1 GB/s = 1 s:  [0, 1]
//   t2  B fwd compute on d1, 4 s, after t1:              [1, 5]
//   t3  join (no layer), a 0.5 s delay, after t0 and t2: [5, 5.5]
// Spans: A 3 s, B 4 s, 7 s together for a 5.5 s iteration. Critical path, back from t3 (last
// finish 5.5): t3's latest dependency is t2 (5 > 3), t2's is t1, t1 has none. Charges:
// t1 1 - 0 = 1 s, t2 5 - 1 = 4 s, t3 5.5 - 5 = 0.5 s: A 1 s (its transfer; its 3 s compute runs
// beside B's and gets 0), B 4 s, other 0.5 s; 1 + 4 + 0.5 = 5.5 s = the makespan.
TEST(CriticalPath, TwoOverlappingLayersByHand) {
  Program p;
  const int a = p.add_layer("A");
  const int b = p.add_layer("B");
  const int t0 = p.add_compute(a, Pass::fwd, "compute", {0}, 3.0, {});
  const int t1 = p.add_transfer(a, Pass::fwd, "send", {0}, {1}, 1e9, {});
  const int t2 = p.add_compute(b, Pass::fwd, "compute", {1}, 4.0, {t1});
  const int t3 = p.add_delay(-1, Pass::fwd, "join", 0.5, {t0, t2});
  const Evaluation e = ClosedFormEvaluator(one_gb_per_s).evaluate(p);
  ASSERT_DOUBLE_EQ(e.makespan_s, 5.5);
  const auto spans = layer_pass_spans(p, e);
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_DOUBLE_EQ(spans[0].span() + spans[1].span(), 7.0);  // 3 + 4: the spans overlap

  const CriticalPath path = critical_path(p, e);
  EXPECT_EQ(path.tasks, (std::vector<int>{t1, t2, t3}));
  EXPECT_EQ(path.charges, (std::vector<double>{1.0, 4.0, 0.5}));
  ASSERT_EQ(path.shares.size(), 2u);
  EXPECT_EQ(path.shares[0].layer, a);
  EXPECT_EQ(path.shares[0].pass, Pass::fwd);
  EXPECT_DOUBLE_EQ(path.shares[0].seconds, 1.0);
  EXPECT_EQ(path.shares[1].layer, b);
  EXPECT_DOUBLE_EQ(path.shares[1].seconds, 4.0);
  EXPECT_DOUBLE_EQ(path.other_s, 0.5);
  EXPECT_DOUBLE_EQ(path.makespan_s, 5.5);
}

// A waiting gap and ties, on a hand-made evaluation (as a contended replay could time it):
//   u0  A fwd compute d0, 0.5 s:            [0, 0.5]
//   u1  A fwd transfer d0 -> d1 after u0:   [1.0, 2.0]   starts 0.5 s after u0 finishes (waits)
//   u2  A bwd compute d2 after u1:          [2.0, 4.25]
//   u3  B fwd compute d1 after u1:          [2.25, 4.25] ties with u2
//   u4  join (no layer) after u3, u2:       [4.25, 4.5]
// Back from u4 (4.5): its dependencies u3 and u2 both finish at 4.25: the lower index, u2, although
// listed second. u2's is u1, u1's is u0. Charges: u0 0.5 s (from 0), u1 2.0 - 0.5 = 1.5 s (1 s of
// transfer + 0.5 s waiting, charged to the task that waited), u2 4.25 - 2.0 = 2.25 s, u4 0.25 s.
// Shares: A fwd 0.5 + 1.5 = 2 s, A bwd 2.25 s, B 0 (no row: off the path), other 0.25 s; sum 4.5 s.
TEST(CriticalPath, WaitingIsChargedToTheTaskThatWaitedAndTiesGoToTheLowestIndex) {
  Program p;
  const int a = p.add_layer("A");
  const int b = p.add_layer("B");
  const int u0 = p.add_compute(a, Pass::fwd, "compute", {0}, 0.5, {});
  const int u1 = p.add_transfer(a, Pass::fwd, "send", {0}, {1}, 1e9, {u0});
  const int u2 = p.add_compute(a, Pass::bwd, "compute", {2}, 2.25, {u1});
  const int u3 = p.add_compute(b, Pass::fwd, "compute", {1}, 2.0, {u1});
  const int u4 = p.add_delay(-1, Pass::fwd, "join", 0.25, {u3, u2});
  Evaluation e;
  e.tasks = {{0.0, 0.5}, {1.0, 2.0}, {2.0, 4.25}, {2.25, 4.25}, {4.25, 4.5}};
  e.makespan_s = 4.5;

  const CriticalPath path = critical_path(p, e);
  EXPECT_EQ(path.tasks, (std::vector<int>{u0, u1, u2, u4}));
  EXPECT_EQ(path.charges, (std::vector<double>{0.5, 1.5, 2.25, 0.25}));
  ASSERT_EQ(path.shares.size(), 2u);
  EXPECT_EQ(path.shares[0].layer, a);
  EXPECT_EQ(path.shares[0].pass, Pass::fwd);
  EXPECT_DOUBLE_EQ(path.shares[0].seconds, 2.0);
  EXPECT_EQ(path.shares[1].layer, a);
  EXPECT_EQ(path.shares[1].pass, Pass::bwd);
  EXPECT_DOUBLE_EQ(path.shares[1].seconds, 2.25);
  EXPECT_DOUBLE_EQ(path.other_s, 0.25);
  EXPECT_DOUBLE_EQ(path.makespan_s, 4.5);

  // Two last tasks finishing together: the lower index ends the path. Without u4, u2 and u3 both
  // finish last at 4.25: the path ends at u2 (A bwd), B still gets nothing.
  Program q;
  q.add_layer("A");
  q.add_layer("B");
  for (int i = 0; i < 4; ++i) q.add(p.tasks()[static_cast<std::size_t>(i)]);
  Evaluation f;
  f.tasks.assign(e.tasks.begin(), e.tasks.begin() + 4);
  f.makespan_s = 4.25;
  const CriticalPath ends = critical_path(q, f);
  EXPECT_EQ(ends.tasks, (std::vector<int>{u0, u1, u2}));
  EXPECT_DOUBLE_EQ(ends.makespan_s, 4.25);
}

TEST(CriticalPath, EmptyProgramAndForeignEvaluations) {
  Program empty;
  const CriticalPath none = critical_path(empty, Evaluation{});
  EXPECT_TRUE(none.tasks.empty());
  EXPECT_EQ(none.makespan_s, 0.0);

  Program p;
  const int a = p.add_layer("A");
  const int t0 = p.add_compute(a, Pass::fwd, "compute", {0}, 1.0, {});
  const int t1 = p.add_compute(a, Pass::fwd, "compute", {0}, 1.0, {t0});
  p.add_compute(a, Pass::fwd, "compute", {0}, 1.5, {t1});
  Evaluation wrong_size;
  wrong_size.tasks = {{0, 1}};
  EXPECT_THROW(critical_path(p, wrong_size), partsim::Error);
  // The path runs back from the third task (2 s) to the second, which finishes (0.5 s) before the
  // first, the task it depends on (1 s): not an evaluation of p.
  Evaluation broken;
  broken.tasks = {{0, 1}, {0, 0.5}, {0.5, 2}};
  broken.makespan_s = 2;
  EXPECT_THROW(critical_path(p, broken), partsim::Error);
}
