// The topology graph: links, routes (dimension order on a torus, 1/bandwidth shortest path on a
// graph), hop counts, axis rings, groups, core granularity. Expected routes worked out by hand.

#include <gtest/gtest.h>

#include "sim/common/error.hpp"
#include "tests/support/platform_yaml.hpp"
#include "tests/topology_graph/spec_builders.hpp"
#include "topology/system_parser.hpp"
#include "topology/topology_graph.hpp"

using namespace partsim;
using topology::TopologyGraph;

namespace {

// "a->b" names of a route's links.
std::vector<std::string> names(const TopologyGraph& g, const topology::Route& r) {
  std::vector<std::string> out;
  for (int l : r) out.push_back(g.link(l).name);
  return out;
}

TopologyGraph torus_3x4() { return TopologyGraph(test::torus_spec({3, 4}, {10e9, 20e9}, {1e-6, 2e-6}, true)); }

}  // namespace

TEST(TopologyGraph, TorusLinkCount) {
  // 3x4 bidirectional: every device has a + and a - link in X (size 3) and in Y (size 4):
  // 12 devices x 2 dims x 2 = 48 directed links.
  EXPECT_EQ(torus_3x4().link_count(), 48);
  EXPECT_EQ(torus_3x4().node_count(), 12);
  // Uni-directional 3x4: only + links, 12 x 2 = 24.
  EXPECT_EQ(TopologyGraph(test::torus_spec({3, 4}, {1e9, 1e9}, {0, 0}, false)).link_count(), 24);
  // 2x2: a dimension of 2 has one link pair per device pair: 2 pairs per dim x 2 dims x 2 = 8.
  EXPECT_EQ(TopologyGraph(test::torus_spec({2, 2}, {1e9, 1e9}, {0, 0}, true)).link_count(), 8);
}

TEST(TopologyGraph, TorusCoordinatesAndRings) {
  auto g = torus_3x4();
  // Device 5 = (5 % 3, 5 / 3) = (2, 1).
  EXPECT_EQ(g.coordinates(5), (std::vector<int>{2, 1}));
  EXPECT_EQ(g.device_at({2, 1}), 5);
  EXPECT_EQ(g.axis_ring(5, 0), (std::vector<int>{3, 4, 5}));
  EXPECT_EQ(g.axis_ring(5, 1), (std::vector<int>{2, 5, 8, 11}));
  EXPECT_EQ(g.axis_rings(0).size(), 4u);
  EXPECT_EQ(g.axis_rings(1).size(), 3u);
}

TEST(TopologyGraph, TorusRoutesAreDimensionOrderShortestTiesPlus) {
  auto g = torus_3x4();
  // 0 -> 2 in X (size 3): + is 2 hops, - is 1 hop: go -.
  EXPECT_EQ(names(g, g.device_route(0, 2)), (std::vector<std::string>{"d0->d2"}));
  EXPECT_EQ(g.link(g.device_route(0, 2)[0]).direction, -1);
  // 0 -> 6 = (0, 2) in Y (size 4): 2 hops either way: tie goes +: 0 -> 3 -> 6.
  EXPECT_EQ(names(g, g.device_route(0, 6)), (std::vector<std::string>{"d0->d3", "d3->d6"}));
  // 1 = (1, 0) -> 11 = (2, 3): X first: 1 -> 2 (+1); then Y 0 -> 3: - is 1 hop: 2 -> 11.
  auto r = g.device_route(1, 11);
  EXPECT_EQ(names(g, r), (std::vector<std::string>{"d1->d2", "d2->d11"}));
  EXPECT_EQ(g.hops(1, 11), 2);
  // Latency 1 us (X) + 2 us (Y); bottleneck 10 GB/s (X).
  EXPECT_DOUBLE_EQ(g.route_latency(r), 3e-6);
  EXPECT_DOUBLE_EQ(g.route_bandwidth(r), 10e9);
  EXPECT_EQ(g.device_route(4, 4).size(), 0u);
}

TEST(TopologyGraph, UnidirectionalRingAlwaysGoesPlus) {
  TopologyGraph g(test::torus_spec({5}, {1e9}, {1e-7}, false));
  // 0 -> 4: 4 hops + (the - way would be 1 hop, but there are no - links).
  EXPECT_EQ(g.hops(0, 4), 4);
  EXPECT_EQ(names(g, g.device_route(3, 1)), (std::vector<std::string>{"d3->d4", "d4->d0", "d0->d1"}));
}

TEST(TopologyGraph, SplitDuplexPairs) {
  auto g = torus_3x4();
  for (int l = 0; l < g.link_count(); ++l) {
    ASSERT_GE(g.link(l).reverse, 0);
    EXPECT_EQ(g.link(g.link(l).reverse).reverse, l);
    EXPECT_EQ(g.link(g.link(l).reverse).src, g.link(l).dst);
    EXPECT_EQ(g.link(g.link(l).reverse).physical, g.link(l).physical);
  }
  // Bandwidth per dimension.
  EXPECT_DOUBLE_EQ(g.link(g.device_route(0, 1)[0]).bandwidth, 10e9);
  EXPECT_DOUBLE_EQ(g.link(g.device_route(0, 3)[0]).bandwidth, 20e9);
}

TEST(TopologyGraph, GraphRoutesMinimiseInverseBandwidth) {
  // F1-like: ring a-b-c-d at 1 GB/s, every device to the host at 0.25 GB/s.
  auto spec = test::graph_spec({"a", "b", "c", "d", "e"}, {"host"},
                               {{"a", "b", 1e9, 1e-6}, {"b", "c", 1e9, 1e-6}, {"c", "d", 1e9, 1e-6}, {"d", "a", 1e9, 1e-6},
                                {"a", "host", 0.25e9, 1e-6}, {"b", "host", 0.25e9, 1e-6}, {"c", "host", 0.25e9, 1e-6},
                                {"d", "host", 0.25e9, 1e-6}, {"e", "host", 0.25e9, 1e-6}});
  TopologyGraph g(spec);
  // a -> c: via b or via d, both 2 ns/B (2 x 1e-9 s/B); the host path costs 8e-9 s/B. Tie: lower
  // next node (b, index 1, before d, index 3).
  EXPECT_EQ(names(g, g.device_route(0, 2)), (std::vector<std::string>{"a->b", "b->c"}));
  // c -> a: via b (1) or d (3): b.
  EXPECT_EQ(names(g, g.device_route(2, 0)), (std::vector<std::string>{"c->b", "b->a"}));
  // a -> e: only through the host.
  EXPECT_EQ(names(g, g.device_route(0, 4)), (std::vector<std::string>{"a->host", "host->e"}));
  EXPECT_EQ(g.hops(0, 4), 2);
  EXPECT_DOUBLE_EQ(g.route_bandwidth(g.device_route(0, 4)), 0.25e9);
}

TEST(TopologyGraph, DisconnectedGraphIsAnInputError) {
  auto spec = test::graph_spec({"a", "b", "c"}, {}, {{"a", "b", 1e9, 0}});
  EXPECT_THROW(TopologyGraph{spec}, InputError);
}

TEST(TopologyGraph, GroupsAndUnknownGroup) {
  auto g = torus_3x4();
  EXPECT_EQ(g.group("all").devices.size(), 12u);
  EXPECT_THROW(g.group("nope"), UnknownNameError);
}

TEST(TopologyGraph, CoreGranularityRoutes) {
  // 1-D torus of 3 chips, 4 cores each, bidirectional. Ports: K = 2 x 1 dims = 2; the + port is
  // core 0 x 4 / 2 = 0, the - port core 1 x 4 / 2 = 2.
  TopologyGraph g(test::torus_spec({3}, {100e9}, {5e-7}, true, 4), topology::Granularity::core);
  // Nodes: 3 x (4 cores + memory) = 15. Links: 6 chip links, 3 x 8 on-chip ring links,
  // 3 x 2 memory links = 36.
  EXPECT_EQ(g.node_count(), 15);
  EXPECT_EQ(g.link_count(), 36);
  EXPECT_EQ(g.cores_of(1), 4);
  // d0.core2 -> d1.core2: on-chip 2 -> 0 (2 hops either way: tie +: 2 -> 3 -> 0), the + chip link
  // into d1's - port (core 2), already there.
  auto r = g.route(g.endpoint(0, 2), g.endpoint(1, 2));
  EXPECT_EQ(names(g, r), (std::vector<std::string>{"d0.core2->d0.core3", "d0.core3->d0.core0", "d0.core0->d1.core2"}));
  // Latency: 2 x 10 ns + 500 ns.
  EXPECT_NEAR(g.route_latency(r), 520e-9, 1e-15);
  // Memory of d2 to its core 1: memory link into core 0, then 0 -> 1.
  EXPECT_EQ(names(g, g.route(g.memory_node(2), g.endpoint(2, 1))),
            (std::vector<std::string>{"d2.mem->d2.core0", "d2.core0->d2.core1"}));
  EXPECT_DOUBLE_EQ(g.link(g.route(g.memory_node(2), g.endpoint(2, 0))[0]).bandwidth, 256e9 * 0.8);
  // The chip-level hop count is unchanged.
  EXPECT_EQ(g.hops(0, 2), 1);
}

TEST(TopologyGraph, F1LikeGraphRoutesThroughRingsAndHost) {
  // configs/f1_16xlarge.yaml's network (seed 004 §II-A): two rings of 4 FPGAs at 8 Gb/s, every FPGA
  // on the host at 2 Gb/s.
  std::string links;
  for (int group : {0, 4})
    for (int i = 0; i < 4; ++i)
      links += "    - {a: fpga" + std::to_string(group + i) + ", b: fpga" + std::to_string(group + (i + 1) % 4) +
               ", bandwidth: 8Gb/s}\n";
  for (int i = 0; i < 8; ++i) links += "    - {a: fpga" + std::to_string(i) + ", b: host, bandwidth: 2Gb/s}\n";
  const auto spec = test::platform_from_yaml(
      "system:\n"
      "  name: f1_like\n"
      "  devices:\n"
      "    - {type: f1_superlip, count: 8, names: [fpga0, fpga1, fpga2, fpga3, fpga4, fpga5, fpga6, fpga7]}\n"
      "  graph:\n"
      "    hosts: [host]\n"
      "    latency: 1us\n"
      "    links:\n" +
      links);
  TopologyGraph g(spec);
  const int f0 = spec.device_index("fpga0"), f2 = spec.device_index("fpga2"), f5 = spec.device_index("fpga5");
  // Inside a group: the ring (2 x 1/(1 GB/s)) beats the host (2 x 1/(0.25 GB/s)); tie between
  // fpga1 and fpga3: fpga1.
  EXPECT_EQ(names(g, g.device_route(f0, f2)), (std::vector<std::string>{"fpga0->fpga1", "fpga1->fpga2"}));
  // Between groups: through the host.
  EXPECT_EQ(names(g, g.device_route(f0, f5)), (std::vector<std::string>{"fpga0->host", "host->fpga5"}));
}

TEST(TopologyGraph, ShippedConfigsBuildAtBothGranularities) {
  for (const char* name : {"torus_8pf", "torus_8pf_asym", "tpu_v2v3_256", "tpu_v3_128", "f1_16xlarge", "mcm_ring36"}) {
    SCOPED_TRACE(name);
    auto spec = topology::load_system(std::string(PARTSIM_TEST_DATA_DIR) + "/platforms/" + name + ".yaml");
    TopologyGraph chip(spec);
    TopologyGraph core(spec, topology::Granularity::core);
    EXPECT_EQ(chip.device_count(), spec.device_count());
    // Every device reaches every other one (spot check: 0 to the last and back).
    const int last = spec.device_count() - 1;
    EXPECT_GT(chip.device_route(0, last).size(), 0u);
    EXPECT_GT(core.device_route(last, 0).size(), 0u);
  }
  // torus_8pf at core granularity: 64 chips x (32 cores + memory) = 2112 nodes.
  auto spec = topology::load_system(std::string(PARTSIM_TEST_DATA_DIR) + "/platforms/torus_8pf.yaml");
  EXPECT_EQ(TopologyGraph(spec, topology::Granularity::core).node_count(), 2112);
}
