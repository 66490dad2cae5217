// Closed forms of the collectives, computed by hand; the step rule over the schedules agrees with
// them on torus axes of every shipped torus config. No SimGrid here (tests/replay runs the schedules).

#include <gtest/gtest.h>

#include <cmath>

#include "sim/collectives/collectives.hpp"
#include "sim/common/error.hpp"
#include "tests/topology_graph/spec_builders.hpp"
#include "topology/system_parser.hpp"

using namespace partsim;
using namespace partsim::collectives;
using topology::TopologyGraph;

namespace {

TopologyGraph config(const std::string& name, topology::Granularity g = topology::Granularity::chip) {
  return TopologyGraph(topology::load_system(std::string(PARTSIM_TEST_DATA_DIR) + "/platforms/" + name + ".yaml"), g);
}

Request req(const std::string& name, double bytes, const std::string& axis = "", const std::string& group = "") {
  Request r;
  r.collective = name;
  r.bytes = bytes;
  r.axis = axis;
  r.group = group;
  return r;
}

}  // namespace

TEST(Formulas, RingAllReduceByHand) {
  // S = 4 MB on p = 4 at B = 10 GB/s, L = 1 us, uni-directional:
  // 2(p-1)(L + S/(pB)) = 6 x (1e-6 + 4e6/4e10) = 6 x (1e-6 + 1e-4) = 6.06e-4 s.
  EXPECT_NEAR(ring_all_reduce_time({4, 1e-6, 10e9, false}, 4e6), 6.06e-4, 1e-15);
  // Bidirectional: S/2 on each ring: 6 x (1e-6 + 4e6/(2 x 4e10)) = 6 x 5.1e-5 = 3.06e-4 s.
  EXPECT_NEAR(ring_all_reduce_time({4, 1e-6, 10e9, true}, 4e6), 3.06e-4, 1e-15);
  // A 2-device axis has one link pair: no split even when bidirectional: 2 x (1e-6 + 4e6/2e10) = 4.02e-4.
  EXPECT_NEAR(ring_all_reduce_time({2, 1e-6, 10e9, true}, 4e6), 4.02e-4, 1e-15);
  // Reduce-scatter alone: 3 x 1.01e-4 = 3.03e-4.
  EXPECT_NEAR(ring_reduce_scatter_time({4, 1e-6, 10e9, false}, 4e6), 3.03e-4, 1e-15);
}

TEST(Formulas, TwoDimensionalAllReduceSeed003ByHand) {
  // torus_8pf_asym: M = 4 (X, 120 GB/s), N = 16 (Y, 40 GB/s), 500 ns, bidirectional, S = 100 MB.
  // RS along X: 3 x (5e-7 + 1e8/(4 x 2 x 1.2e11)) = 3 x (5e-7 + 1.0416667e-4) = 3.14e-4 s
  // AR along Y of S/M = 2.5e7: 30 x (5e-7 + 2.5e7/(16 x 2 x 4e10)) = 30 x 2.003125e-5 = 6.009375e-4 s
  // AG along X: 3.14e-4 s. Total 1.2289375e-3 s.
  std::vector<AxisRing> axes = {{4, 5e-7, 120e9, true}, {16, 5e-7, 40e9, true}};
  EXPECT_NEAR(torus_all_reduce_time(axes, 1e8), 1.2289375e-3, 1e-12);
}

TEST(Formulas, BroadcastAllToAllRotateByHand) {
  // Chain broadcast, mcm_ring36: p = 36, k = 8, S = 10 MB, L = 100 ns, B = 32 GB/s:
  // (35 + 7) x (1e-7 + 1e7/(8 x 3.2e10)) = 42 x 3.91625e-5 = 1.644825e-3 s.
  EXPECT_NEAR(chain_broadcast_time({36, 1e-7, 32e9, false}, 1e7, 8), 1.644825e-3, 1e-12);
  // All-to-all on a uni-directional ring of 4: shifts 1, 2, 3 take 1 + 2 + 3 = 6 hop-steps of
  // L + S/(pB) = 1e-6 + 4e6/4e10 = 1.01e-4: 6.06e-4 s. Bidirectional: 1 + 2 + 1 = 4: 4.04e-4 s.
  EXPECT_NEAR(ring_all_to_all_time({4, 1e-6, 10e9, false}, 4e6), 6.06e-4, 1e-15);
  EXPECT_NEAR(ring_all_to_all_time({4, 1e-6, 10e9, true}, 4e6), 4.04e-4, 1e-15);
  // Rotation: L + S/B = 1e-6 + 4e6/1e10 = 4.01e-4.
  EXPECT_NEAR(rotate_time({4, 1e-6, 10e9, false}, 4e6), 4.01e-4, 1e-15);
  EXPECT_NEAR(p2p_time(4e6, 1e-6, 10e9, 3), 4.03e-4, 1e-15);
}

TEST(Schedules, RingAllReduceSteps) {
  TopologyGraph g(test::torus_spec({4}, {10e9}, {1e-6}, false));
  auto s = build_schedule(req("all_reduce", 4e6, "x"), g);
  // 2(p-1) = 6 steps, 4 transfers each of S/p = 1e6 bytes, each to the + neighbour.
  EXPECT_EQ(s.step_count, 6);
  ASSERT_EQ(s.transfers.size(), 24u);
  for (const auto& t : s.transfers) {
    EXPECT_DOUBLE_EQ(t.bytes, 1e6);
    EXPECT_EQ(t.dst, (t.src + 1) % 4);
  }
  EXPECT_NEAR(evaluate(lower_to_nodes(s, g), g), 6.06e-4, 1e-15);
}

TEST(Schedules, StepRuleChargesSharedLinks) {
  // Uni-directional ring of 3, L = 1 us, B = 10 GB/s, S = 1 MB: 0 -> 2 (0->1->2) and 1 -> 2 in one
  // step share link 1->2. Step rule: max(2L + S/B, L + 2S/B) = 1e-6 + 2e6/1e10 = 2.01e-4 s.
  TopologyGraph g(test::torus_spec({3}, {10e9}, {1e-6}, false));
  Schedule s;
  s.on_nodes = true;
  s.add(0, 2, 1e6, 0);
  s.add(1, 2, 1e6, 0);
  EXPECT_NEAR(evaluate(s, g), 2.01e-4, 1e-15);
}

TEST(Schedules, CoreLoweringSplitsOverCores) {
  TopologyGraph g(test::torus_spec({3}, {100e9}, {5e-7}, true, 4), topology::Granularity::core);
  auto s = lower_to_nodes(build_schedule(req("p2p", 4e6), g), g);
  ASSERT_EQ(s.transfers.size(), 4u);  // one part per core, 1 MB each, core c to core c
  for (int c = 0; c < 4; ++c) {
    EXPECT_EQ(s.transfers[c].src, g.endpoint(0, c));
    EXPECT_EQ(s.transfers[c].dst, g.endpoint(1, c));
    EXPECT_DOUBLE_EQ(s.transfers[c].bytes, 1e6);
  }
  // The 4 parts share the + chip link: its load 4 MB at 100 GB/s = 4e-5 s after the first part
  // starts; core 0 is the + port and core 2 d1's - port: part 2 (d0.core2 -> 3 -> 0, link,
  // d1.core2) and part 0 (d0.core0, link, d1.core2 -> 1 -> 0 or 2 -> 3 -> 0: 2 hops) both have
  // 2 on-chip hops; part 1: 1 + 1 hops; part 3: 1 + 1 hops. First start: 500 ns + 2 x 10 ns.
  EXPECT_NEAR(evaluate(s, g), 5.2e-7 + 4e-5, 1e-15);
}

TEST(Requests, BadRequestsAreInputErrors) {
  auto torus = config("torus_8pf");
  auto f1 = config("f1_16xlarge");
  EXPECT_THROW(build_schedule(req("allreduce", 1e6), torus), UnknownNameError);
  EXPECT_THROW(build_schedule(req("rotate", 1e6, "all"), torus), InputError);
  EXPECT_THROW(build_schedule(req("all_reduce", 1e6, "z"), torus), UnknownNameError);
  EXPECT_THROW(build_schedule(req("all_reduce", 1e6, "x"), f1), InputError);
  EXPECT_THROW(build_schedule(req("all_reduce", 1e6, "", "nope"), f1), UnknownNameError);
  EXPECT_THROW(build_schedule(req("all_reduce", 1e6, "x", "group0"), torus), InputError);
}

TEST(Requests, ListHasEveryCollective) {
  std::vector<std::string> names;
  for (const auto& c : collective_list()) names.push_back(c.name);
  EXPECT_EQ(names, (std::vector<std::string>{"p2p", "reduce_scatter", "all_gather", "all_reduce", "broadcast",
                                             "all_to_all", "all_to_all_direct", "rotate"}));
}

// On every shipped torus, for every collective with a textbook form, the step rule over the
// schedule equals the formula (chip granularity): one definition, two evaluators.
TEST(Consistency, StepRuleEqualsFormulaOnShippedTori) {
  for (const char* name : {"torus_8pf", "torus_8pf_asym", "mcm_ring36"}) {
    auto g = config(name);
    std::vector<std::string> axes = {"x", "all"};
    if (g.dimensions() > 1) axes.push_back("y");
    for (const char* c : {"p2p", "reduce_scatter", "all_gather", "all_reduce", "broadcast", "all_to_all", "rotate"})
      for (const auto& axis : axes) {
        if (std::string(c) == "rotate" && axis == "all" && g.dimensions() > 1) continue;
        SCOPED_TRACE(std::string(name) + " " + c + " " + axis);
        auto r = req(c, 64e6, std::string(c) == "p2p" ? "" : axis);
        const double f = formula_time(r, g);
        ASSERT_FALSE(std::isnan(f));
        EXPECT_NEAR(closed_form_time(r, g), f, 1e-12 * f);
      }
  }
}
