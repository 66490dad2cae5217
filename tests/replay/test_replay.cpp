// The SimGrid replay: the platform holds exactly the topology graph's routes; uncontended
// collectives on every shipped config take their closed form to within 0.1 %; contended cases differ
// from the step rule in the direction and by the amount docs/model.md predicts
// ("Collectives and the SimGrid platform"). A collective is replayed as simrun --collective replays
// it, the Program of its steps (bench/replay/collective_program.hpp). One simulation per TEST (one
// process each).

#include <gtest/gtest.h>

#include <cmath>
#include <ostream>
#include <set>
#include <string>

#include "sim/collectives/collectives.hpp"
#include "sim/common/error.hpp"
#include "bench/replay/collective_program.hpp"
#include "sim/replay/replay.hpp"
#include "tests/topology_graph/spec_builders.hpp"
#include "topology/efficiency_table.hpp"
#include "topology/system_parser.hpp"

using namespace partsim;
using namespace partsim::collectives;
using topology::TopologyGraph;

namespace {

topology::SystemSpec config(const std::string& name) {
  return topology::load_system(std::string(PARTSIM_TEST_DATA_DIR) + "/platforms/" + name + ".yaml");
}

// Builds the platform with routes for every pair of endpoints and compares each route with the
// graph's, link by link (names, directions) and in latency.
void expect_same_routes(const TopologyGraph& g) {
  std::vector<int> endpoints;
  for (int n = 0; n < g.node_count(); ++n)
    if (g.node(n).is_endpoint()) endpoints.push_back(n);
  std::vector<std::pair<int, int>> pairs;
  for (int a : endpoints)
    for (int b : endpoints)
      if (a != b) pairs.emplace_back(a, b);
  replay::Simulation sim(g, pairs);
  for (const auto& [a, b] : pairs) {
    std::vector<std::string> expected;
    const auto route = g.route(a, b);
    for (int l : route) expected.push_back(replay::simgrid_link_name(g, l));
    double latency = 0;
    ASSERT_EQ(sim.route_link_names(a, b, &latency), expected) << g.node(a).name << " -> " << g.node(b).name;
    EXPECT_NEAR(latency, g.route_latency(route), 1e-15);
  }
}

}  // namespace

TEST(ReplayRoutes, SmallTorusSameRoutesAsTopologyGraph) {
  // 3x4 bidirectional, 10 GB/s and 1 us on X, 20 GB/s and 2 us on Y: all 132 ordered pairs.
  expect_same_routes(TopologyGraph(test::torus_spec({3, 4}, {10e9, 20e9}, {1e-6, 2e-6}, true)));
}

TEST(ReplayRoutes, UnidirectionalRingSameRoutes) {
  expect_same_routes(TopologyGraph(test::torus_spec({5}, {10e9}, {1e-6}, false)));
}

TEST(ReplayRoutes, F1GraphSameRoutesAsTopologyGraph) {
  expect_same_routes(TopologyGraph(config("f1_16xlarge")));
}

TEST(ReplayRoutes, DgxA100ClusterSameRoutesAsTopologyGraph) {
  // configs/dgx_a100.yaml at 2 nodes (16 GPUs, 2 NVSwitches, 8 rail leaves): every GPU pair's route,
  // PXN's cross-rail routes through a GPU included, is installed link by link. The efficiency table
  // is the test table unless the A100's is built in (routes do not depend on it).
  std::vector<std::string> overrides{"system.cluster.nodes=2"};
  if (!topology::find_builtin_efficiency_table("a100_sxm4_80gb"))
    overrides.push_back("system.device_types.gpu.efficiency_table=" + std::string(PARTSIM_TEST_DATA_DIR) +
                        "/tables/test_gpu.yaml");
  const TopologyGraph g(topology::load_system(std::string(PARTSIM_SOURCE_DIR) + "/configs/dgx_a100.yaml", overrides));
  EXPECT_EQ(g.device_count(), 16);
  expect_same_routes(g);
}

TEST(ReplayRoutes, CoreGranularitySameRoutes) {
  // 3x2 torus of 4-core chips: 6 x (4 cores + memory) = 30 hosts, 870 pairs.
  expect_same_routes(TopologyGraph(test::torus_spec({3, 2}, {100e9, 50e9}, {5e-7, 5e-7}, true, 4),
                                   topology::Granularity::core));
}

TEST(ReplayRoutes, OnlyTheGivenPairsAreRouted) {
  // The platform keeps the routes of the pairs it was given and no others (no n^2 table): asking
  // for another pair's route is an error that names it, not an empty (free) route.
  const TopologyGraph g(test::torus_spec({3, 4}, {10e9, 20e9}, {1e-6, 2e-6}, true));
  const int a = 0, b = 5;
  replay::Simulation sim(g, {{a, b}});
  EXPECT_EQ(sim.route_link_names(a, b).size(), g.route(a, b).size());
  try {
    sim.route_link_names(b, a);
    FAIL() << "routed a pair it was not given";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no route " + g.node(b).name + " -> " + g.node(a).name), std::string::npos)
        << e.what();
  }
}

// ---- uncontended collectives on the shipped configs ------------------------------------------

struct Case {
  std::string config;
  std::string collective;
  std::string axis;
  std::string group;
  double bytes;
};

// What ctest and gtest print for a case (without it, gtest dumps the struct's bytes).
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.config << " " << c.collective << " axis=" << c.axis << " group=" << c.group << " " << c.bytes << " B";
}

std::string case_name(const testing::TestParamInfo<Case>& info) {
  const Case& c = info.param;
  std::string name = c.config + "_" + c.collective + "_" + (c.group.empty() ? (c.axis.empty() ? "default" : c.axis) : c.group);
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

std::vector<Case> shipped_cases() {
  std::vector<Case> cases;
  const std::vector<std::string> ring_collectives = {"reduce_scatter", "all_gather", "all_reduce", "broadcast",
                                                     "all_to_all"};
  for (std::string cfg : {"torus_8pf", "torus_8pf_asym"}) {
    cases.push_back({cfg, "p2p", "", "", 64e6});
    for (const auto& c : ring_collectives)
      for (std::string axis : {"x", "y", "all"}) cases.push_back({cfg, c, axis, "", 64e6});
    for (std::string axis : {"x", "y"}) cases.push_back({cfg, "rotate", axis, "", 64e6});
  }
  cases.push_back({"mcm_ring36", "p2p", "", "", 36e6});
  for (const auto& c : ring_collectives) cases.push_back({"mcm_ring36", c, "x", "", 36e6});
  cases.push_back({"mcm_ring36", "rotate", "x", "", 36e6});
  for (std::string cfg : {"tpu_v2v3_256", "tpu_v3_128", "f1_16xlarge"}) {
    std::vector<std::string> groups = {""};
    if (cfg == "tpu_v2v3_256") groups = {"", "tpu_v2", "tpu_v3"};
    if (cfg == "f1_16xlarge") groups = {"", "group0", "group1"};
    cases.push_back({cfg, "p2p", "", "", 8e6});
    for (const auto& g : groups) {
      for (const auto& c : ring_collectives) cases.push_back({cfg, c, "", g, 8e6});
      cases.push_back({cfg, "rotate", "", g, 8e6});
    }
  }
  return cases;
}

class ShippedCollective : public testing::TestWithParam<Case> {};

TEST_P(ShippedCollective, SimulatedEqualsClosedForm) {
  const Case& c = GetParam();
  const TopologyGraph g(config(c.config));
  Request r;
  r.collective = c.collective;
  r.bytes = c.bytes;
  r.axis = c.axis;
  r.group = c.group;
  const Schedule schedule = build_schedule(r, g);
  const double closed = evaluate(lower_to_nodes(schedule, g), g);
  const double formula = formula_time(r, g);
  if (!std::isnan(formula)) {
    EXPECT_NEAR(closed, formula, 1e-12 * formula);  // the textbook form, where one exists
  }
  const auto stats = bench::replay_collective(g, schedule);
  EXPECT_GT(stats.activities, 0u);
  EXPECT_NEAR(stats.simulated_s, closed, 1e-3 * closed);
}

INSTANTIATE_TEST_SUITE_P(Configs, ShippedCollective, testing::ValuesIn(shipped_cases()), case_name);

// ---- core granularity --------------------------------------------------------------------------

TEST(ReplayCore, TwoDimensionalAllReduceOnCoresMatchesClosedForm) {
  // 4x4 torus of 8-core chips (the template of seed 003 at a smaller scale), 80 GB/s both axes.
  const TopologyGraph g(test::torus_spec({4, 4}, {80e9, 80e9}, {5e-7, 5e-7}, true, 8), topology::Granularity::core);
  Request r;
  r.collective = "all_reduce";
  r.bytes = 16e6;
  const Schedule schedule = build_schedule(r, g);
  const double closed = evaluate(lower_to_nodes(schedule, g), g);
  // Chip-level formula: RS X 3 x (5e-7 + 16e6/(4 x 2 x 8e10)) = 3 x 2.55e-5 = 7.65e-5; AR Y of
  // S/4 = 4e6: 6 x (5e-7 + 4e6/(4 x 2 x 8e10)) = 6 x 6.75e-6 = 4.05e-5; AG X = 7.65e-5:
  // total 1.935e-4 s. At core granularity each step also pays the shortest on-chip path to and from
  // the ports (a few 10 ns hops): a little above, well within 1 %.
  EXPECT_NEAR(formula_time(r, g), 1.935e-4, 1e-12);
  EXPECT_GT(closed, 1.935e-4);
  EXPECT_LT(closed, 1.935e-4 * 1.01);
  const auto stats = bench::replay_collective(g, schedule);
  EXPECT_EQ(stats.activities, 16u * 8u * 2u * 12u);  // 16 chips x 8 cores x 2 directions x 12 steps
  EXPECT_NEAR(stats.simulated_s, closed, 1e-3 * closed);
}

// ---- contended cases (docs/model.md, "Collectives and the SimGrid platform") --------------------

TEST(ReplayContended, TwoTransfersOnOneLinkTakeTwiceTheBandwidthTime) {
  // Uni-directional ring of 3, L = 1 us, B = 10 GB/s, S = 10 MB: 0 -> 2 (links 0->1, 1->2) and
  // 1 -> 2 (link 1->2) in the same step. Alone, 1 -> 2 takes L + S/B = 1.001e-3 s. Together, the
  // shared link carries 2S: predicted L + 2S/B = 1e-6 + 2e-3 = 2.001e-3 s, exactly. Each transfer
  // waits its route latency, then sends (LinkLatency::by_caller): 1 -> 2 alone from 1 us to 2 us
  // (10 kB), then both at 5 GB/s until 1 -> 2 ends at 2.000 ms; 0 -> 2's last 10 kB at 10 GB/s end
  // at 2.001 ms (the link is never idle).
  const TopologyGraph g(test::torus_spec({3}, {10e9}, {1e-6}, false));
  Schedule s;
  s.add(0, 2, 10e6, 0);
  s.add(1, 2, 10e6, 0);
  const double closed = evaluate(lower_to_nodes(s, g), g);
  EXPECT_NEAR(closed, 2.001e-3, 1e-12);
  EXPECT_NEAR(bench::replay_collective(g, s).simulated_s, 2.001e-3, 1e-9);
}

TEST(ReplayContended, AllReduceAndRotationShareTheXLinks) {
  // Two collectives at once on torus_8pf (X: 4 chips, 80 GB/s, 500 ns, unidirectional rings): all_reduce
  // along X of 64 MB (6 steps; each step every + X link carries 64e6/4 = 16 MB:
  // 5e-7 + 1.6e7/8e10 = 2.005e-4 s, 1.203e-3 s alone) and a rotation along X of 8 MB (every + X link,
  // 1.005e-4 s alone), merged step by step. Step 0: the + links carry 16 + 8 MB:
  // 5e-7 + 2.4e7/8e10 = 3.005e-4 s; steps 1-5: 2.005e-4 s each. Predicted 1.303e-3 s: the rotation
  // costs the all-reduce S_rot/B = 1e-4 s (+8.3 %); both flows on a link start together, so the
  // link is saturated until it drains and max-min sharing meets the step rule exactly.
  const TopologyGraph g(config("torus_8pf"));
  Request ar;
  ar.collective = "all_reduce";
  ar.axis = "x";
  ar.bytes = 64e6;
  Request rot = ar;
  rot.collective = "rotate";
  rot.bytes = 8e6;
  const Schedule s = merge(build_schedule(ar, g), build_schedule(rot, g));
  EXPECT_NEAR(evaluate(lower_to_nodes(s, g), g), 1.303e-3, 1e-12);
  EXPECT_NEAR(bench::replay_collective(g, s).simulated_s, 1.303e-3, 1e-9);
}

TEST(ReplayContended, ParkingLotIsSlowerThanTheStepRuleByEightPercent) {
  // Devices a, b, p, t; links a-p (Y), b-p (Z), p-t (X), 1 GB/s, no latency. One step:
  // A = a -> t (5 MB, over Y and X), B = b -> t (5 MB, over Z and X), 9 x a -> p (0.1 MB, Y) and
  // 9 x b -> p (0.1 MB, Z). Loads: X 10 MB, Y = Z = 5.9 MB: step rule 10 MB / 1 GB/s = 10 ms.
  // Max-min sharing: Y and Z give each of their 10 flows 0.1 GB/s, so X carries A and B at 0.1
  // GB/s each (0.2 of its 1 GB/s) until the small flows end at 0.1 MB / 0.1 GB/s = 1 ms; A and B
  // then have 4.9 MB each left, at 0.5 GB/s each: 9.8 ms more. Predicted 10.8 ms = +8 %.
  const auto spec = test::graph_spec({"a", "b", "p", "t"}, {},
                                     {{"a", "p", 1e9, 0}, {"b", "p", 1e9, 0}, {"p", "t", 1e9, 0}});
  const TopologyGraph g(spec);
  Schedule s;
  s.add(0, 3, 5e6, 0);
  s.add(1, 3, 5e6, 0);
  for (int i = 0; i < 9; ++i) {
    s.add(0, 2, 1e5, 0);
    s.add(1, 2, 1e5, 0);
  }
  EXPECT_NEAR(evaluate(lower_to_nodes(s, g), g), 10e-3, 1e-12);
  EXPECT_NEAR(bench::replay_collective(g, s).simulated_s, 10.8e-3, 1e-9);
}

TEST(ReplayContended, AllToAllDirectOnTheTorusMeetsTheStepRule) {
  // torus_8pf, every ordered pair at once on the dimension-order routes (4032 flows, S = 64 MB,
  // S/64 = 1 MB each). The most loaded links are the Y links (16 devices per ring): the step rule is
  // a lower bound (no link can carry its load faster), and here every flow through a Y link is
  // limited by Y links, which stay saturated: predicted equal (docs/model.md).
  const TopologyGraph g(config("torus_8pf"));
  Request r;
  r.collective = "all_to_all_direct";
  r.bytes = 64e6;
  const Schedule s = build_schedule(r, g);
  const double closed = evaluate(lower_to_nodes(s, g), g);
  const double simulated = bench::replay_collective(g, s).simulated_s;
  EXPECT_GE(simulated, closed * (1 - 1e-9));
  EXPECT_NEAR(simulated, closed, 1e-3 * closed);
}
