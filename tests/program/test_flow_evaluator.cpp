// The flow-level evaluator (flow_evaluator.hpp): SimGrid CM02's max-min sharing without SimGrid.
// Times worked out by hand on the test ring (10 GB/s, 1 us per link) and on a line of two links of
// different bandwidths (the classic max-min example); with no sharing it equals the closed form.
#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "sim/common/error.hpp"
#include "sim/program/closed_form.hpp"
#include "sim/program/flow_evaluator.hpp"
#include "sim/program/platform_binding.hpp"
#include "tests/support/platform_yaml.hpp"

using namespace partsim;
using namespace partsim::program;
using plan::Pass;

namespace {

Endpoint dev(int d) { return {d, -1, false}; }

std::size_t at(int task) { return static_cast<std::size_t>(task); }

Evaluation flow(const Program& p, const topology::TopologyGraph& g) {
  const TransferRoutes routes(p, g);
  return FlowEvaluator(routes, g).evaluate(p);
}

// d0 - d1 at 10 GB/s, d1 - d2 at 4 GB/s (each way), no latency: d0 -> d2 crosses both links.
topology::SystemSpec line_of_two_links() {
  return test::platform_from_yaml(
      "system:\n  name: line3\n  device_types:\n"
      "    acc: {kind: roofline, peak: 1TFLOP/s, memory: 1GB, memory_bandwidth: 100GB/s}\n"
      "  devices:\n    - {type: acc, count: 3}\n"
      "  graph:\n    links:\n"
      "      - {a: d0, b: d1, bandwidth: 10GB/s}\n"
      "      - {a: d1, b: d2, bandwidth: 4GB/s}\n");
}

}  // namespace

TEST(FlowEvaluator, LoneTransferTakesLatencyPlusBytesOverBandwidth) {
  const topology::TopologyGraph g(test::unidirectional_ring(4));
  Program p;
  const int l = p.add_layer("l");
  const int x = p.add_transfer(l, Pass::fwd, "x", dev(0), dev(1), 1e6, {});
  const int far = p.add_transfer(l, Pass::fwd, "far", dev(1), dev(3), 1e6, {});  // 2 links, 2 us
  const Evaluation e = flow(p, g);
  // 1 us + 1 MB / 10 GB/s = 101 us; the closed form's number.
  EXPECT_DOUBLE_EQ(e.tasks[at(x)].finish, 101e-6);
  EXPECT_DOUBLE_EQ(e.tasks[at(far)].finish, 102e-6);
  EXPECT_DOUBLE_EQ(e.makespan_s, ClosedFormEvaluator(uncontended_transfer_time(g)).evaluate(p).makespan_s);
  EXPECT_EQ(e.activities, 2);
}

TEST(FlowEvaluator, TwoEqualFlowsShareTheLink) {
  const topology::TopologyGraph g(test::unidirectional_ring(4));
  Program p;
  const int l = p.add_layer("l");
  const int a = p.add_transfer(l, Pass::fwd, "a", dev(0), dev(1), 1e6, {});
  const int b = p.add_transfer(l, Pass::fwd, "b", dev(0), dev(1), 1e6, {});
  const Evaluation e = flow(p, g);
  // Both at 5 GB/s after the 1 us latency: 1 us + 2 x 1 MB / 10 GB/s = 201 us.
  EXPECT_DOUBLE_EQ(e.tasks[at(a)].finish, 201e-6);
  EXPECT_DOUBLE_EQ(e.tasks[at(b)].finish, 201e-6);
}

TEST(FlowEvaluator, SmallFlowEndsFirstAndTheBigOneSpeedsUp) {
  const topology::TopologyGraph g(test::unidirectional_ring(4));
  Program p;
  const int l = p.add_layer("l");
  const int small = p.add_transfer(l, Pass::fwd, "small", dev(0), dev(1), 1e6, {});
  const int big = p.add_transfer(l, Pass::fwd, "big", dev(0), dev(1), 3e6, {});
  const Evaluation e = flow(p, g);
  // Both at 5 GB/s: the small one ends at 1 us + 2 x 1 MB / 10 GB/s = 201 us; the big one has 2 MB
  // left then and sends it alone at 10 GB/s: 200 us more, 401 us (= 1 us + 4 MB / 10 GB/s).
  EXPECT_DOUBLE_EQ(e.tasks[at(small)].finish, 201e-6);
  EXPECT_NEAR(e.tasks[at(big)].finish, 401e-6, 1e-15);
}

TEST(FlowEvaluator, LateFlowSharesWhatIsLeft) {
  const topology::TopologyGraph g(test::unidirectional_ring(4));
  Program p;
  const int l = p.add_layer("l");
  const int early = p.add_transfer(l, Pass::fwd, "early", dev(0), dev(1), 2e6, {});
  const int c = p.add_compute(l, Pass::fwd, "compute", dev(0), 100e-6, {});
  const int late = p.add_transfer(l, Pass::fwd, "late", dev(0), dev(1), 1e6, {c});
  const Evaluation e = flow(p, g);
  // early alone from 1 us: 1 MB sent by 101 us, when late's flow starts (100 us + 1 us latency);
  // then both at 5 GB/s with 1 MB each: 200 us, both end at 301 us.
  EXPECT_DOUBLE_EQ(e.tasks[at(late)].start, 100e-6);
  EXPECT_NEAR(e.tasks[at(early)].finish, 301e-6, 1e-15);
  EXPECT_NEAR(e.tasks[at(late)].finish, 301e-6, 1e-15);
}

TEST(FlowEvaluator, ClassicMaxMinExample) {
  // A: d0 -> d2 over both links; B: d0 -> d1 over the 10 GB/s link; C: d1 -> d2 over the 4 GB/s one.
  // Fair shares: 10 / 2 = 5 on the first link, 4 / 2 = 2 on the second, the smaller: A and C get
  // 2 GB/s, B the 10 - 2 = 8 GB/s the first link has left.
  const topology::TopologyGraph g(line_of_two_links());
  Program p;
  const int l = p.add_layer("l");
  const int a = p.add_transfer(l, Pass::fwd, "A", dev(0), dev(2), 4e6, {});
  const int b = p.add_transfer(l, Pass::fwd, "B", dev(0), dev(1), 24e6, {});
  const int c = p.add_transfer(l, Pass::fwd, "C", dev(1), dev(2), 6e6, {});
  const Evaluation e = flow(p, g);
  // A: 4 MB at 2 GB/s ends at 2 ms. By then B has sent 16 MB and C 4 MB. Then B is alone on the
  // first link (10 GB/s: 8 MB more, 0.8 ms, ends 2.8 ms) and C alone on the second (4 GB/s: 2 MB
  // more, 0.5 ms, ends 2.5 ms).
  EXPECT_NEAR(e.tasks[at(a)].finish, 2e-3, 1e-15);
  EXPECT_NEAR(e.tasks[at(c)].finish, 2.5e-3, 1e-15);
  EXPECT_NEAR(e.tasks[at(b)].finish, 2.8e-3, 1e-15);
  EXPECT_NEAR(e.makespan_s, 2.8e-3, 1e-15);
}

TEST(FlowEvaluator, DependencyChain) {
  const topology::TopologyGraph g(test::unidirectional_ring(4));
  Program p;
  const int l = p.add_layer("l");
  const int c0 = p.add_compute(l, Pass::fwd, "compute", dev(0), 1e-3, {});
  const int x = p.add_transfer(l, Pass::fwd, "send", dev(0), dev(2), 1e6, {c0});  // 2 links: 2 us
  const int c2 = p.add_compute(l, Pass::bwd, "compute", dev(2), 2e-3, {x});
  const Evaluation e = flow(p, g);
  // 1 ms, then 2 us + 1 MB / 10 GB/s = 102 us, then 2 ms: 3.102 ms.
  EXPECT_DOUBLE_EQ(e.tasks[at(x)].start, 1e-3);
  EXPECT_NEAR(e.tasks[at(x)].finish, 1.102e-3, 1e-15);
  EXPECT_NEAR(e.tasks[at(c2)].start, 1.102e-3, 1e-15);
  EXPECT_NEAR(e.makespan_s, 3.102e-3, 1e-15);
  EXPECT_EQ(e.activities, 3);
}

TEST(FlowEvaluator, LocalAndEmptyTransfersAsTheReplay) {
  const topology::TopologyGraph g(test::unidirectional_ring(4));
  Program p;
  const int l = p.add_layer("l");
  const int local = p.add_transfer(l, Pass::fwd, "local", dev(2), dev(2), 1e9, {});
  const int empty = p.add_transfer(l, Pass::fwd, "empty", dev(0), dev(1), 0, {});
  const int half = p.add_transfer(l, Pass::fwd, "half a byte", dev(0), dev(1), 0.4, {});  // rounds to 0 bytes
  const int join = p.add_delay(l, Pass::fwd, "join", 0, {local, empty, half}, Endpoint::nowhere());
  const Evaluation e = flow(p, g);
  EXPECT_EQ(e.tasks[at(local)].finish, 0.0);
  EXPECT_DOUBLE_EQ(e.tasks[at(empty)].finish, 1e-6);  // the route's latency still passes
  EXPECT_DOUBLE_EQ(e.tasks[at(half)].finish, 1e-6);
  EXPECT_DOUBLE_EQ(e.tasks[at(join)].finish, 1e-6);
  EXPECT_EQ(e.activities, 2);  // the two timed transfers; the local one and the 0 s delay are not
}

TEST(FlowEvaluator, WithoutSharingEqualsTheClosedForm) {
  // Three steps of a unidirectional ring all-reduce on 4 devices, a compute between steps: every
  // link carries one flow at a time.
  const topology::TopologyGraph g(test::unidirectional_ring(4));
  Program p;
  const int l = p.add_layer("l");
  std::vector<int> prev(4, -1);
  for (int step = 0; step < 3; ++step) {
    std::vector<int> next(4);
    for (int d = 0; d < 4; ++d) {
      std::vector<int> after;
      if (prev[static_cast<std::size_t>(d)] >= 0) after.push_back(prev[static_cast<std::size_t>(d)]);
      const int c = p.add_compute(l, Pass::bwd, "compute", dev(d), 1e-5 * (d + 1), after);
      next[static_cast<std::size_t>((d + 1) % 4)] =
          p.add_transfer(l, Pass::bwd, "step", dev(d), dev((d + 1) % 4), 2.5e6 * (step + 1), {c});
    }
    prev = next;
  }
  const TransferRoutes routes(p, g);
  const Evaluation fl = FlowEvaluator(routes, g).evaluate(p);
  const Evaluation closed = ClosedFormEvaluator(routes).evaluate(p);
  ASSERT_EQ(fl.tasks.size(), closed.tasks.size());
  for (std::size_t i = 0; i < fl.tasks.size(); ++i) {
    EXPECT_NEAR(fl.tasks[i].start, closed.tasks[i].start, 1e-15) << i;
    EXPECT_NEAR(fl.tasks[i].finish, closed.tasks[i].finish, 1e-15) << i;
  }
  EXPECT_NEAR(fl.makespan_s, closed.makespan_s, 1e-15);
}

TEST(FlowEvaluator, RefusesAnotherProgram) {
  const topology::TopologyGraph g(test::unidirectional_ring(4));
  Program p;
  const int l = p.add_layer("l");
  p.add_transfer(l, Pass::fwd, "x", dev(0), dev(1), 1e6, {});
  const TransferRoutes routes(p, g);
  FlowEvaluator eval(routes, g);
  EXPECT_EQ(eval.name(), "flow");
  Program other;
  EXPECT_THROW(eval.evaluate(other), Error);
}

TEST(FlowEvaluator, CoalescingHandsAFreedShareOnAtTheWindowsLastEvent) {
  const topology::TopologyGraph g(test::unidirectional_ring(4));
  Program p;
  const int l = p.add_layer("l");
  const int small = p.add_transfer(l, Pass::fwd, "small", dev(0), dev(1), 1e6, {});
  const int big = p.add_transfer(l, Pass::fwd, "big", dev(0), dev(1), 3e6, {});
  // Alone on d2 -> d3: 1 us + 2,001,000 B / 10 GB/s = 201.1 us, 0.1 us after `small`.
  const int other = p.add_transfer(l, Pass::fwd, "other", dev(2), dev(3), 2'001'000, {});
  const TransferRoutes routes(p, g);
  const Evaluation exact = FlowEvaluator(routes, g).evaluate(p);
  EXPECT_NEAR(exact.tasks[at(big)].finish, 401e-6, 1e-15);
  // With coalesce 1e-3 the events up to 201 us x 1.001 = 201.201 us go together: `small` ends at
  // 201 us and `other` at 201.1 us, each at its own time, and the rates are re-solved at 201.1 us.
  // `big` sent at 5 GB/s until then: 2 MB - 0.1 us x 5 GB/s = 1,999,500 B left, alone at 10 GB/s:
  // 199.95 us more, 401.05 us (0.05 us late).
  const Evaluation coalesced = FlowEvaluator(routes, g, 1e-3).evaluate(p);
  EXPECT_DOUBLE_EQ(coalesced.tasks[at(small)].finish, 201e-6);
  EXPECT_NEAR(coalesced.tasks[at(other)].finish, 201.1e-6, 1e-15);
  EXPECT_NEAR(coalesced.tasks[at(big)].finish, 401.05e-6, 1e-15);
  EXPECT_THROW(FlowEvaluator(routes, g, -1), Error);
  // Coalescing begins only after `exact_work` flows re-solved. This program re-solves at most 3
  // flows at a time, a handful of times: with 100 the whole run is exact, `big` ends at 401 us.
  EXPECT_NEAR(FlowEvaluator(routes, g, 1e-3, 100).evaluate(p).tasks[at(big)].finish, 401e-6, 1e-15);
}

// The jitter (program/jitter.hpp): compute and delay tasks scaled per task, transfers untouched.
TEST(FlowEvaluator, JitterScalesEachTimedTaskByItsOwnFactorAndNoTransfer) {
  const topology::TopologyGraph g(test::unidirectional_ring(4));
  Program p;
  const int l = p.add_layer("l");
  const int c = p.add_compute(l, Pass::fwd, "c", dev(0), 1.0, {});
  const int x = p.add_transfer(l, Pass::fwd, "x", dev(0), dev(1), 1e6, {c});
  const int d = p.add_delay(l, Pass::fwd, "d", 0.5, {x});
  const Jitter jitter{0.1, 5};
  const double fc = jitter_factor(jitter, at(c));
  const double fd = jitter_factor(jitter, at(d));
  EXPECT_GE(fc, 0.9);
  EXPECT_LT(fc, 1.1);
  EXPECT_NE(fc, fd);                                   // each task its own draw
  EXPECT_NE(fc, jitter_factor({0.1, 6}, at(c)));       // another seed, another draw
  EXPECT_EQ(jitter_factor({0.0, 5}, at(c)), 1.0);      // none
  EXPECT_EQ(jitter_factor(jitter, at(c)), fc);         // the same (seed, task), the same factor

  const TransferRoutes routes(p, g);
  FlowEvaluator evaluator(routes, g);
  evaluator.set_jitter(jitter);
  const Evaluation e = evaluator.evaluate(p);
  // c: fc s; x: 1 us + 1 MB / 10 GB/s = 101 us, unjittered; d: 0.5 fd s.
  EXPECT_DOUBLE_EQ(e.tasks[at(c)].finish, fc);
  EXPECT_NEAR(e.tasks[at(x)].finish - e.tasks[at(x)].start, 101e-6, 1e-15);
  EXPECT_DOUBLE_EQ(e.makespan_s, fc + 101e-6 + 0.5 * fd);
  // A jittered copy evaluated plainly is the same evaluation.
  const Program copy = jittered(p, jitter);
  EXPECT_EQ(flow(copy, g).makespan_s, e.makespan_s);
  EXPECT_THROW(evaluator.set_jitter({1.0, 0}), Error);
  EXPECT_THROW(evaluator.set_jitter({-0.1, 0}), Error);
}

TEST(FlowEvaluator, AWorkLimitStopsTheEvaluationDeterministically) {
  const topology::TopologyGraph g(test::unidirectional_ring(4));
  Program p;
  const int l = p.add_layer("l");
  p.add_transfer(l, Pass::fwd, "a", dev(0), dev(1), 1e6, {});
  p.add_transfer(l, Pass::fwd, "b", dev(0), dev(1), 1e6, {});
  const TransferRoutes routes(p, g);
  FlowEvaluator evaluator(routes, g);
  // The two flows start together (one re-solve of 2 flows) and end together (one re-solve of none):
  // 2 in all.
  evaluator.set_work_limit(2);
  EXPECT_DOUBLE_EQ(evaluator.evaluate(p).makespan_s, 201e-6);
  evaluator.set_work_limit(1);
  EXPECT_THROW(evaluator.evaluate(p), WorkLimitExceeded);
  evaluator.set_work_limit(0);  // none
  EXPECT_DOUBLE_EQ(evaluator.evaluate(p).makespan_s, 201e-6);
}
