// The replay lower bound (program/replay_lower_bound.hpp): worked out by hand on the test ring
// (10 GB/s, 1 us per link), where it is exact, also after a watched prefix; its link window against
// every subset of random flows; never above the flow evaluator's makespan on random contended
// programs, with or without a prefix (tests/replay/test_flow_replay.cpp checks it
// against SimGrid on lowered zoo plans).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <random>
#include <vector>

#include "sim/common/error.hpp"
#include "sim/program/closed_form.hpp"
#include "sim/program/flow_evaluator.hpp"
#include "sim/program/platform_binding.hpp"
#include "sim/program/replay_lower_bound.hpp"
#include "tests/support/platform_yaml.hpp"
#include "tests/topology_graph/spec_builders.hpp"

using namespace partsim;
using namespace partsim::program;
using plan::Pass;

namespace {

Endpoint dev(int d) { return {d, -1, false}; }

ReplayLowerBound bound_of(const Program& p, const topology::TopologyGraph& g) {
  const TransferRoutes routes(p, g);
  return replay_lower_bound(p, routes, g);
}

double flow_makespan(const Program& p, const topology::TopologyGraph& g) {
  const TransferRoutes routes(p, g);
  return FlowEvaluator(routes, g).evaluate(p).makespan_s;
}

// A bidirectional 4 x 4 torus: 10 GB/s and 1 us along X, 5 GB/s and 2 us along Y.
topology::SystemSpec contended_torus() { return test::torus_spec({4, 4}, {10e9, 5e9}, {1e-6, 2e-6}, true); }

// 300 transfers of 1-11 MB between random devices of the torus, each after a delay of 0-1 ms that
// follows a random earlier transfer half of the time, and followed by 0-100 us of compute.
Program random_contended_program(unsigned seed) {
  std::mt19937 rng(seed);
  Program p;
  const int l = p.add_layer("l");
  std::vector<int> transfers;
  for (int k = 0; k < 300; ++k) {
    std::vector<int> after;
    if (!transfers.empty() && rng() % 2 == 0) after.push_back(transfers[rng() % transfers.size()]);
    const int wait = p.add_delay(l, Pass::fwd, "wait", static_cast<double>(rng() % 1000) * 1e-6, after);
    const int src = static_cast<int>(rng() % 16);
    const int dst = (src + 1 + static_cast<int>(rng() % 15)) % 16;
    const int t = p.add_transfer(l, Pass::fwd, "t", dev(src), dev(dst), 1e6 + static_cast<double>(rng() % 10000) * 1e3,
                                 {wait});
    transfers.push_back(p.add_compute(l, Pass::fwd, "c", dev(dst), static_cast<double>(rng() % 100) * 1e-6, {t}));
  }
  return p;
}

}  // namespace

TEST(ReplayLowerBound, LoneTransferIsItsClosedForm) {
  const topology::TopologyGraph g(test::unidirectional_ring(4));
  Program p;
  const int l = p.add_layer("l");
  p.add_transfer(l, Pass::fwd, "far", dev(1), dev(3), 1e6, {});  // 2 links: 2 us + 100 us
  const ReplayLowerBound b = bound_of(p, g);
  EXPECT_DOUBLE_EQ(b.closed_form_s, 102e-6);
  // Each link: the flow may start after the 2 us latency, 100 us of bytes, nothing after it.
  EXPECT_DOUBLE_EQ(b.link_window_s, 102e-6);
  EXPECT_DOUBLE_EQ(b.busiest_link_s, 100e-6);
  EXPECT_DOUBLE_EQ(b.path_s, 102e-6);
  EXPECT_DOUBLE_EQ(b.bound_s(), flow_makespan(p, g));
  EXPECT_EQ(b.flows, 1u);
}

TEST(ReplayLowerBound, FlowsStartingTogetherOnOneLinkAreExact) {
  const topology::TopologyGraph g(test::unidirectional_ring(4));
  Program p;
  const int l = p.add_layer("l");
  p.add_transfer(l, Pass::fwd, "a", dev(0), dev(1), 1e6, {});
  p.add_transfer(l, Pass::fwd, "b", dev(0), dev(1), 3e6, {});
  const ReplayLowerBound b = bound_of(p, g);
  // Closed form: the bigger alone, 1 us + 300 us. The link: 1 us + 4 MB / 10 GB/s = 401 us, what
  // the two take sharing it.
  EXPECT_DOUBLE_EQ(b.closed_form_s, 301e-6);
  EXPECT_NEAR(b.link_window_s, 401e-6, 1e-15);
  EXPECT_EQ(b.link, g.route(g.endpoint(0, 0), g.endpoint(1, 0)).front());
  EXPECT_NEAR(b.bound_s(), flow_makespan(p, g), 1e-15);
}

TEST(ReplayLowerBound, HeadsAndTailsAddToTheLinksBytes) {
  // d0 computes 100 us, then sends two 1 MB transfers to d1 over one link; each is followed by 50 us
  // of compute on d1.
  const topology::TopologyGraph g(test::unidirectional_ring(4));
  Program p;
  const int l = p.add_layer("l");
  const int c = p.add_compute(l, Pass::fwd, "compute", dev(0), 100e-6, {});
  const int a = p.add_transfer(l, Pass::fwd, "a", dev(0), dev(1), 1e6, {c});
  const int b = p.add_transfer(l, Pass::fwd, "b", dev(0), dev(1), 1e6, {c});
  p.add_compute(l, Pass::fwd, "after a", dev(1), 50e-6, {a});
  p.add_compute(l, Pass::fwd, "after b", dev(1), 50e-6, {b});
  const ReplayLowerBound bound = bound_of(p, g);
  // Closed form 100 + 1 + 100 + 50 = 251 us; the link's bytes alone 200 us; its window: head 101 us
  // (compute + latency), 200 us of bytes, tail 50 us: 351 us, what sharing the link gives (both end
  // at 301 us). The scatter sees it too: after the first compute's end both its successor flows
  // cross one link, 1 us + 200 us, then the shorter tail, 50 us: path 100 + 251 us.
  EXPECT_NEAR(bound.closed_form_s, 251e-6, 1e-15);
  EXPECT_NEAR(bound.path_s, 351e-6, 1e-15);
  EXPECT_NEAR(bound.busiest_link_s, 200e-6, 1e-15);
  EXPECT_NEAR(bound.link_window_s, 351e-6, 1e-15);
  EXPECT_NEAR(bound.bound_s(), 351e-6, 1e-15);
  EXPECT_NEAR(bound.bound_s(), flow_makespan(p, g), 1e-15);
}

TEST(ReplayLowerBound, TakesTheLateFlowsAloneWhenThatIsLonger) {
  // An early 1 MB transfer and, 1 ms later, two 2 MB ones on the same link, followed by 10 us each.
  // All three: head 1 us + 500 us of bytes + tail 0 (the early one has none) = 501 us; the two late
  // ones alone: 1,001 us + 400 us + 10 us = 1,411 us, what they take.
  const topology::TopologyGraph g(test::unidirectional_ring(4));
  Program p;
  const int l = p.add_layer("l");
  p.add_transfer(l, Pass::fwd, "early", dev(0), dev(1), 1e6, {});
  const int wait = p.add_delay(l, Pass::fwd, "wait", 1e-3, {});
  for (int k = 0; k < 2; ++k) {
    const int late = p.add_transfer(l, Pass::fwd, "late", dev(0), dev(1), 2e6, {wait});
    p.add_compute(l, Pass::fwd, "after", dev(1), 10e-6, {late});
  }
  const ReplayLowerBound bound = bound_of(p, g);
  EXPECT_NEAR(bound.busiest_link_s, 500e-6, 1e-15);
  EXPECT_NEAR(bound.bound_s(), 1411e-6, 1e-15);
  EXPECT_NEAR(bound.bound_s(), flow_makespan(p, g), 1e-15);
}

TEST(ReplayLowerBound, AGatherWaitsForEveryByteOverItsLink) {
  // Two 1 MB transfers d0 -> d1 and a compute on d1 after both, then a 1 MB transfer d1 -> d2 on
  // another link. The compute cannot start before 1 us + 2 MB / 10 GB/s = 201 us (the closed form
  // says 101 us); the last transfer then ends at 201 + 10 + 101 = 312 us, what the flows take.
  const topology::TopologyGraph g(test::unidirectional_ring(4));
  Program p;
  const int l = p.add_layer("l");
  const int a = p.add_transfer(l, Pass::fwd, "a", dev(0), dev(1), 1e6, {});
  const int b = p.add_transfer(l, Pass::fwd, "b", dev(0), dev(1), 1e6, {});
  const int c = p.add_compute(l, Pass::fwd, "compute", dev(1), 10e-6, {a, b});
  p.add_transfer(l, Pass::fwd, "on", dev(1), dev(2), 1e6, {c});
  const ReplayLowerBound bound = bound_of(p, g);
  EXPECT_NEAR(bound.closed_form_s, 212e-6, 1e-15);
  EXPECT_NEAR(bound.path_s, 312e-6, 1e-15);
  // The first link's window: head 1 us, 200 us, and the tail of what follows: 10 + 101 us.
  EXPECT_NEAR(bound.link_window_s, 312e-6, 1e-15);
  EXPECT_NEAR(bound.bound_s(), flow_makespan(p, g), 1e-15);
}

TEST(ReplayLowerBound, PreemptiveWindowIsTheBestOverEverySet) {
  // Hand case: a (head 0, 10 s, tail 0), b (head 1, 2 s, tail 20), c (head 2, 2 s, tail 20). Every
  // flow: 0 + 14 + 0; b and c: 1 + 4 + 20 = 25, the best: the schedule sends b at 1, c at 3, both
  // done at 5, + 20.
  EXPECT_DOUBLE_EQ(preemptive_window({{0, 10, 0}, {1, 2, 20}, {2, 2, 20}}), 25.0);
  EXPECT_DOUBLE_EQ(preemptive_window({}), 0.0);
  // Random sets of 8 against every subset; heads, busy times and tails on a coarse grid so that
  // ties are common.
  std::mt19937 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<LinkCrossing> crossings(8);
    for (auto& c : crossings)
      c = {static_cast<double>(rng() % 10), static_cast<double>(1 + rng() % 5), static_cast<double>(rng() % 10)};
    double best = 0;
    for (unsigned set = 1; set < (1u << crossings.size()); ++set) {
      double head = 1e9, busy = 0, tail = 1e9;
      for (std::size_t k = 0; k < crossings.size(); ++k)
        if (set & (1u << k)) {
          head = std::min(head, crossings[k].head_s);
          busy += crossings[k].busy_s;
          tail = std::min(tail, crossings[k].tail_s);
        }
      best = std::max(best, head + busy + tail);
    }
    EXPECT_DOUBLE_EQ(preemptive_window(crossings), best) << "trial " << trial;
  }
}

TEST(ReplayLowerBound, LocalAndEmptyTransfersCrossNoLink) {
  const topology::TopologyGraph g(test::unidirectional_ring(4));
  Program p;
  const int l = p.add_layer("l");
  p.add_transfer(l, Pass::fwd, "local", dev(2), dev(2), 1e9, {});
  p.add_transfer(l, Pass::fwd, "half a byte", dev(0), dev(1), 0.4, {});  // 0 bytes: its latency only
  const ReplayLowerBound b = bound_of(p, g);
  EXPECT_EQ(b.flows, 0u);
  EXPECT_EQ(b.link, -1);
  EXPECT_DOUBLE_EQ(b.bound_s(), 1e-6);
  EXPECT_DOUBLE_EQ(b.bound_s(), flow_makespan(p, g));
}

TEST(ReplayLowerBound, NeverAboveTheFlowEvaluatorOnRandomContendedPrograms) {
  // random_contended_program on contended_torus, 20 seeds.
  const topology::TopologyGraph g(contended_torus());
  int above_closed_form = 0;
  for (unsigned seed = 1; seed <= 20; ++seed) {
    const Program p = random_contended_program(seed);
    const TransferRoutes routes(p, g);
    const ReplayLowerBound b = replay_lower_bound(p, routes, g);
    const double flow = FlowEvaluator(routes, g).evaluate(p).makespan_s;
    EXPECT_LE(b.bound_s(), flow * (1 + 1e-12)) << "seed " << seed;
    EXPECT_GE(b.link_window_s, b.busiest_link_s) << "seed " << seed;
    EXPECT_GE(b.path_s, b.closed_form_s) << "seed " << seed;
    EXPECT_NEAR(b.closed_form_s, ClosedFormEvaluator(routes).evaluate(p).makespan_s, 1e-12) << "seed " << seed;
    if (b.link_window_s > b.closed_form_s) ++above_closed_form;
  }
  // The link windows matter: on some of these programs they are above the critical path.
  EXPECT_GT(above_closed_form, 0);
}

TEST(ReplayLowerBound, AfterAPrefixItStartsFromWhereTheReplayIs) {
  // On the ring: a and x (1 MB each, d0 -> d1) share the first link, so a ends at 1 + 200 = 201 us;
  // b (1 MB, d1 -> d2, after a) then runs alone: 302 us. The bound alone sees a at its lone time:
  // the first link's window for a is head 1 + 100 us + b's tail 101 us = 202 us, the most any part
  // of it gives (a and x together: 1 + 200 + 0).
  const topology::TopologyGraph g(test::unidirectional_ring(4));
  Program p;
  const int l = p.add_layer("l");
  const int a = p.add_transfer(l, Pass::fwd, "a", dev(0), dev(1), 1e6, {});
  p.add_transfer(l, Pass::fwd, "x", dev(0), dev(1), 1e6, {});
  p.add_transfer(l, Pass::fwd, "b", dev(1), dev(2), 1e6, {a});
  const TransferRoutes routes(p, g);
  const Evaluation flow = FlowEvaluator(routes, g).evaluate(p);
  ASSERT_NEAR(flow.makespan_s, 302e-6, 1e-15);
  EXPECT_NEAR(replay_lower_bound(p, routes, g).bound_s(), 202e-6, 1e-15);
  // Watched to 150 us: a and x still running (each at least 150 us), b not started (no earlier
  // than 150 us): a's path is 0 + 150 + b's 101 us = 251 us, and so is b's.
  const ReplayPrefix at150{150e-6, &flow};
  const ReplayLowerBound b150 = replay_lower_bound(p, routes, g, &at150);
  EXPECT_NEAR(b150.closed_form_s, 251e-6, 1e-15);
  EXPECT_NEAR(b150.path_s, 251e-6, 1e-15);
  EXPECT_NEAR(b150.link_window_s, 251e-6, 1e-15);  // b on the second link: head 151 us + 100 us
  EXPECT_NEAR(b150.bound_s(), 251e-6, 1e-15);
  // Watched past a's end (201 us): b started then, and the bound is the makespan.
  const ReplayPrefix at250{250e-6, &flow};
  EXPECT_NEAR(replay_lower_bound(p, routes, g, &at250).bound_s(), 302e-6, 1e-15);
  // Watched before anything moved: the bound alone.
  const ReplayPrefix at0{0, &flow};
  EXPECT_NEAR(replay_lower_bound(p, routes, g, &at0).bound_s(), 202e-6, 1e-15);
  // A prefix of another Program's replay is refused.
  const Evaluation other;
  const ReplayPrefix wrong{150e-6, &other};
  EXPECT_THROW(replay_lower_bound(p, routes, g, &wrong), Error);
}

TEST(ReplayLowerBound, AfterAPrefixBetweenTheBoundAloneAndTheMakespan) {
  // The random contended programs of the test above (5 of them), watched to a quarter, half, three
  // quarters and all of the flow evaluator's makespan: never below the bound alone (what is seen
  // only adds lower bounds), never above the makespan, and the makespan itself once all is seen.
  const topology::TopologyGraph g(contended_torus());
  int rose = 0;
  for (unsigned seed = 1; seed <= 5; ++seed) {
    const Program p = random_contended_program(seed);
    const TransferRoutes routes(p, g);
    const Evaluation flow = FlowEvaluator(routes, g).evaluate(p);
    const double alone = replay_lower_bound(p, routes, g).bound_s();
    for (const double fraction : {0.25, 0.5, 0.75, 1.0}) {
      const ReplayPrefix prefix{fraction * flow.makespan_s, &flow};
      const double after = replay_lower_bound(p, routes, g, &prefix).bound_s();
      EXPECT_GE(after, alone * (1 - 1e-12)) << "seed " << seed << " fraction " << fraction;
      EXPECT_LE(after, flow.makespan_s * (1 + 1e-12)) << "seed " << seed << " fraction " << fraction;
      if (fraction == 1.0) {
        EXPECT_NEAR(after, flow.makespan_s, 1e-12) << "seed " << seed;
      }
      if (fraction == 0.5 && after > alone * (1 + 1e-3)) ++rose;
    }
  }
  EXPECT_GT(rose, 0);  // halfway, what was seen already lifts the bound on some of them
}

TEST(ReplayLowerBound, RefusesAnotherProgram) {
  const topology::TopologyGraph g(test::unidirectional_ring(4));
  Program p;
  const int l = p.add_layer("l");
  p.add_transfer(l, Pass::fwd, "a", dev(0), dev(1), 1e6, {});
  const TransferRoutes routes(p, g);
  Program other;
  EXPECT_THROW(replay_lower_bound(other, routes, g), Error);
}
