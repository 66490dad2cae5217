// The registry of collective algorithms (sim/collectives/algorithm_registry.hpp): every algorithm's
// schedule replayed on SimGrid against its step rule (within 0.1 %, uncontended), its alpha-beta
// formula against the step rule where the formula's assumptions hold (a ring, a star of one switch, a
// torus, a two-level switch fabric), the crossover the theory predicts (tree and halving-doubling
// beat the ring on small messages), and a plug-in algorithm added from outside with one call.

#include <gtest/gtest.h>

#include <cmath>
#include <ostream>
#include <string>

#include "sim/collectives/algorithm_registry.hpp"
#include "sim/collectives/collectives.hpp"
#include "sim/common/error.hpp"
#include "sim/replay/replay.hpp"
#include "tests/topology_graph/spec_builders.hpp"

using namespace partsim;
using namespace partsim::collectives;
using topology::TopologyGraph;

namespace {

constexpr double kLinkLatency = 1e-6;  // s per link
constexpr double kLinkBandwidth = 100e9;  // bytes/s per link and direction

/// p devices on one switch (each device one link); `reducing`: the switch reduces (NVLink SHARP).
topology::SystemSpec star(int p, bool reducing = false) {
  std::vector<std::string> devices;
  std::vector<test::LinkSpec> links;
  for (int i = 0; i < p; ++i) {
    devices.push_back("g" + std::to_string(i));
    links.push_back({devices.back(), "sw", kLinkBandwidth, kLinkLatency});
  }
  auto s = test::graph_spec(devices, {"sw"}, links);
  auto& node = std::get<topology::GraphTopology>(s.topology).nodes.back();
  node.kind = topology::NodeKind::switch_node;
  node.in_switch_reduction = reducing;
  return s;
}

/// n nodes of q devices: a switch per node (300 GB/s links) and a rail switch per member index
/// joining the same member of every node (25 GB/s links), as a rail-optimised GPU cluster.
topology::SystemSpec two_level(int n, int q) {
  std::vector<std::string> devices;
  std::vector<test::LinkSpec> links;
  std::vector<std::string> switches;
  for (int node = 0; node < n; ++node) switches.push_back("node" + std::to_string(node));
  for (int k = 0; k < q; ++k) switches.push_back("rail" + std::to_string(k));
  for (int node = 0; node < n; ++node)
    for (int k = 0; k < q; ++k) {
      devices.push_back("n" + std::to_string(node) + "g" + std::to_string(k));
      links.push_back({devices.back(), "node" + std::to_string(node), 300e9, 5e-7});
      links.push_back({devices.back(), "rail" + std::to_string(k), 25e9, 2e-6});
    }
  auto s = test::graph_spec(devices, switches, links);
  for (auto& node : std::get<topology::GraphTopology>(s.topology).nodes)
    if (node.kind == topology::NodeKind::host) node.kind = topology::NodeKind::switch_node;
  return s;
}

topology::SystemSpec ring_of(int p) { return test::torus_spec({p}, {kLinkBandwidth}, {kLinkLatency}, false); }

Request request(const std::string& collective, double bytes, const std::string& algorithm) {
  Request r;
  r.collective = collective;
  r.bytes = bytes;
  r.algorithm = algorithm;
  r.group = "all";
  return r;
}

struct Case {
  std::string name;
  std::string platform;  // star8, star8_reducing, ring8, ring8_bidirectional, torus4x4, two_level_2x4
  std::string algorithm;
  std::string collective;
  double bytes;
  bool formula_exact;  // the alpha-beta formula's assumptions hold here
  bool contended = false;  // transfers of one step share links unevenly: the step rule is a lower bound
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

topology::SystemSpec platform(const std::string& name) {
  if (name == "star8") return star(8);
  if (name == "star8_reducing") return star(8, true);
  if (name == "ring8") return ring_of(8);
  if (name == "ring8_bidirectional") return test::torus_spec({8}, {kLinkBandwidth}, {kLinkLatency}, true);
  if (name == "torus4x4") return test::torus_spec({4, 4}, {kLinkBandwidth, kLinkBandwidth}, {kLinkLatency, kLinkLatency}, true);
  return two_level(2, 4);
}

class AlgorithmOnPlatform : public testing::TestWithParam<Case> {};

TEST_P(AlgorithmOnPlatform, ReplayEqualsStepRuleAndFormula) {
  const Case& c = GetParam();
  const TopologyGraph g(platform(c.platform));
  Request r = request(c.collective, c.bytes, c.algorithm);
  if (c.algorithm == "torus") r.group.clear();  // every device of the torus
  const Schedule s = build_schedule(r, g);
  const double step_rule = evaluate(lower_to_nodes(s, g), g);
  ASSERT_GT(step_rule, 0);
  const auto replayed = replay::replay(g, s);
  if (c.contended) {  // max-min sharing of uneven loads: SimGrid takes longer than the busiest link alone
    EXPECT_GE(replayed.simulated_s, step_rule * (1 - 1e-3)) << "SimGrid against the step rule";
  } else {
    EXPECT_NEAR(replayed.simulated_s, step_rule, 1e-3 * step_rule) << "SimGrid against the step rule";
  }
  const double formula = formula_time(r, g);
  if (c.formula_exact) {
    EXPECT_NEAR(formula, step_rule, 1e-3 * step_rule) << "alpha-beta formula against the step rule";
  }
}

std::string case_name(const testing::TestParamInfo<Case>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(
    Registry, AlgorithmOnPlatform,
    testing::Values(Case{"RingOnRing", "ring8", "ring", "all_reduce", 64e6, true},
                    Case{"RingOnStar", "star8", "ring", "all_reduce", 64e6, true},
                    Case{"RingReduceScatterOnStar", "star8", "ring", "reduce_scatter", 64e6, true},
                    Case{"BidirectionalRingOnBidirectionalRing", "ring8_bidirectional", "ring_bidirectional", "all_gather", 64e6, true},
                    Case{"TorusOnTorus", "torus4x4", "torus", "all_reduce", 64e6, true},
                    Case{"DirectOnStar", "star8", "direct", "all_reduce", 64e6, true},
                    Case{"HalvingDoublingOnStar", "star8", "halving_doubling", "all_reduce", 64e6, true},
                    Case{"HalvingDoublingOnRing", "ring8", "halving_doubling", "reduce_scatter", 64e6, false, true},
                    Case{"TreeOnStar", "star8", "double_binary_tree", "all_reduce", 64e6, false},
                    Case{"InSwitchOnStar", "star8_reducing", "in_switch", "all_reduce", 64e6, true},
                    Case{"InSwitchReduceScatter", "star8_reducing", "in_switch", "reduce_scatter", 64e6, true},
                    Case{"HierarchicalOnTwoLevel", "two_level_2x4", "hierarchical", "all_reduce", 64e6, true},
                    Case{"HierarchicalAllGather", "two_level_2x4", "hierarchical", "all_gather", 64e6, true},
                    Case{"RingOnTwoLevel", "two_level_2x4", "ring", "all_reduce", 64e6, false}),
    case_name);

double step_rule_time(const TopologyGraph& g, const std::string& algorithm, double bytes) {
  return evaluate(lower_to_nodes(build_schedule(request("all_reduce", bytes, algorithm), g), g), g);
}

}  // namespace

TEST(AlgorithmFormulas, ByHand) {
  // Star of 8, a = 2 hops x 1 us = 2e-6 s, B = 1e11 B/s, S = 64 MB.
  Fabric f;
  f.p = 8;
  f.link = {2e-6, 1e11};
  const double S = 64e6;
  const auto& reg = algorithm_registry();
  // Ring all-reduce: 2 x 7 x (2e-6 + 64e6 / 8e11) = 14 x 8.2e-5 = 1.148e-3 s.
  EXPECT_NEAR(reg.find("ring").formula("all_reduce", S, f), 1.148e-3, 1e-12);
  // Halving-doubling: 2 (3 x 2e-6 + 7/8 x 64e6 / 1e11) = 2 (6e-6 + 5.6e-4) = 1.132e-3 s.
  EXPECT_NEAR(reg.find("halving_doubling").formula("all_reduce", S, f), 1.132e-3, 1e-12);
  // Direct: 2 (2e-6 + 7/8 x 64e6 / 1e11) = 1.124e-3 s.
  EXPECT_NEAR(reg.find("direct").formula("all_reduce", S, f), 1.124e-3, 1e-12);
  // In the switch: 2e-6 + 64e6 x 9/8 / 1e11 = 7.22e-4 s.
  EXPECT_NEAR(reg.find("in_switch").formula("all_reduce", S, f), 7.22e-4, 1e-12);
  // Tree, one chunk: H = 3: 2 x 3 x (2e-6 + 64e6 / 1e11) = 6 x 6.42e-4 = 3.852e-3 s.
  EXPECT_NEAR(reg.find("double_binary_tree").formula("all_reduce", S, f), 3.852e-3, 1e-12);
  // Hierarchical, 2 nodes of 4: inside a = 1e-6, B = 3e11; across a = 4e-6, B = 2.5e10:
  // 2 x 3 x (1e-6 + 64e6 / 1.2e12) + 2 x 1 x (4e-6 + 64e6 / (4 x 2 x 2.5e10)) = 3.26e-4 + 6.48e-4 = 9.74e-4 s.
  f.domains = 2;
  f.domain_size = 4;
  f.intra = {1e-6, 3e11};
  f.inter = {4e-6, 2.5e10};
  EXPECT_NEAR(reg.find("hierarchical").formula("all_reduce", S, f), 9.74e-4, 1e-12);
}

TEST(AlgorithmChoice, TreeAndHalvingDoublingBeatTheRingOnSmallMessagesOnly) {
  const TopologyGraph star16(star(16));
  // 1 KB: latency-bound. Ring 30 steps, halving-doubling 8, tree 2 x 4 = 8 (one chunk).
  EXPECT_LT(step_rule_time(star16, "halving_doubling", 1e3), step_rule_time(star16, "ring", 1e3));
  EXPECT_LT(step_rule_time(star16, "double_binary_tree", 1e3), step_rule_time(star16, "ring", 1e3));
  // 1 GB without pipelining chunks: the tree moves the whole payload H times, the ring 2(p-1)/p times.
  EXPECT_GT(step_rule_time(star16, "double_binary_tree", 1e9), step_rule_time(star16, "ring", 1e9));
  // On a ring of 8, halving-doubling's long-distance exchanges share links: it loses on 1 GB.
  const TopologyGraph ring8(ring_of(8));
  Request hd = request("all_reduce", 1e9, "halving_doubling");
  Request ring = request("all_reduce", 1e9, "ring");
  EXPECT_GT(evaluate(lower_to_nodes(build_schedule(hd, ring8), ring8), ring8),
            evaluate(lower_to_nodes(build_schedule(ring, ring8), ring8), ring8));
}

TEST(AlgorithmChoice, RefusesWhatCannotRun) {
  const TopologyGraph star6(star(6));
  EXPECT_THROW(build_schedule(request("all_reduce", 1e6, "halving_doubling"), star6), InputError);  // not 2^k
  EXPECT_THROW(build_schedule(request("all_reduce", 1e6, "in_switch"), star6), InputError);  // no reduction
  EXPECT_THROW(build_schedule(request("all_gather", 1e6, "double_binary_tree"), star6), InputError);  // AR only
  EXPECT_THROW(build_schedule(request("all_reduce", 1e6, "no_such_algorithm"), star6), UnknownNameError);
}

TEST(AlgorithmRegistryPlugin, OneCallAddsAnAlgorithm) {
  // A "star_gather" plug-in: everyone sends its S/p share to the first member, which sends the
  // whole result back (a naive gather-broadcast all-gather).
  if (!algorithm_registry().contains("naive_gather")) {
    Algorithm a;
    a.name = "naive_gather";
    a.collectives = {"all_gather"};
    a.description = "all to the first member, then back";
    a.formula_text = "2 a + (p-1) S/(pB) + (p-1) S/B";
    a.build = [](const BuildInput& in) {
      Schedule s;
      const auto& m = in.who.devices;
      const double share = in.bytes / static_cast<double>(m.size());
      for (std::size_t i = 1; i < m.size(); ++i) s.add(m[i], m[0], share, 0);
      for (std::size_t i = 1; i < m.size(); ++i) s.add(m[0], m[i], in.bytes, 1);
      return s;
    };
    a.formula = [](const std::string&, double bytes, const Fabric& f) {
      return 2 * f.link.alpha + (f.p - 1) * bytes / (f.p * f.link.bandwidth) + (f.p - 1) * bytes / f.link.bandwidth;
    };
    algorithm_registry().add(a);
  }
  const TopologyGraph g(star(4));
  const Request r = request("all_gather", 4e6, "naive_gather");
  // 2 x 2e-6 + 3 x 1e6 / 1e11 + 3 x 4e6 / 1e11 = 4e-6 + 3e-5 + 1.2e-4 = 1.54e-4 s.
  EXPECT_NEAR(evaluate(lower_to_nodes(build_schedule(r, g), g), g), 1.54e-4, 1e-12);
  EXPECT_NEAR(formula_time(r, g), 1.54e-4, 1e-12);
}
