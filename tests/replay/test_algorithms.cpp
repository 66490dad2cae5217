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
#include "bench/replay/collective_program.hpp"
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
/// joining the same member of every node (25 GB/s links), as a rail-optimised GPU cluster;
/// `reducing`: the node switches reduce (NVLink SHARP).
topology::SystemSpec two_level(int n, int q, bool reducing = false) {
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
    if (node.kind == topology::NodeKind::host) {
      node.kind = topology::NodeKind::switch_node;
      node.in_switch_reduction = reducing && node.name.starts_with("node");
    }
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
  if (name == "two_level_2x4_reducing") {
    auto s = two_level(2, 4, true);
    s.collectives.in_switch_efficiency = 0.85;
    return s;
  }
  if (name == "two_level_4x4") return two_level(4, 4);
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
  const auto replayed = bench::replay_collective(g, s);
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
                    Case{"HierarchicalPipelinedFourNodes", "two_level_4x4", "hierarchical", "all_reduce", 256e6, true},
                    Case{"HierarchicalReduceScatterPipelined", "two_level_4x4", "hierarchical", "reduce_scatter", 256e6, true},
                    Case{"HierarchicalInReducingSwitches", "two_level_2x4_reducing", "hierarchical", "all_reduce", 64e6, true},
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
  // Hierarchical, 2 nodes of 4: inside a = 1e-6, B = 3e11; across a = 4e-6, B = 2.5e10.
  // Unpipelined (k = 1): 2 x 3 x (1e-6 + 64e6 / 1.2e12) + 2 x 1 x (4e-6 + 64e6 / (4 x 2 x 2.5e10))
  // = 3.26e-4 + 6.48e-4 = 9.74e-4 s. In k chunks of c = S/k, phase i (intra RS, inter RS, inter AG,
  // intra AG) of chunk j runs in block i + j. k = 4 (c = 16 MB) is the fastest of 1, 2, 4, 8, 16
  // (9.74, 9.287, 9.16, 9.267, 9.68 x 1e-4 s). A step inside with m phases: 1e-6 + m c / 1.2e12; across
  // with m phases (1 step): 4e-6 + m c / 2e11. Blocks 0..6: 3 x 1.4333e-5 = 4.3e-5;
  // 8.4e-5 + 2 x 1.4333e-5 = 1.12667e-4; 1.64e-4 + 2 x 1.4333e-5 = 1.92667e-4; both levels with two phases:
  // 1.64e-4 + 2 x 2.7667e-5 = 2.19333e-4; then 1.92667e-4, 1.12667e-4, 4.3e-5. Sum 9.16e-4 s.
  f.domains = 2;
  f.domain_size = 4;
  f.intra = {1e-6, 3e11};
  f.inter = {4e-6, 2.5e10};
  EXPECT_NEAR(reg.find("hierarchical").formula("all_reduce", S, f), 9.16e-4, 1e-9);
  // 1 KB: latency-bound, one chunk: 2 x 3 x (1e-6 + 1e3/1.2e12) + 2 x (4e-6 + 1e3/2e11) = 1.4010e-5 s.
  EXPECT_NEAR(reg.find("hierarchical").formula("all_reduce", 1e3, f), 6 * (1e-6 + 1e3 / 1.2e12) + 2 * (4e-6 + 5e-9),
              1e-15);
  // Inside switches that reduce, at efficiency 0.85, one node of 4 (no phases across): the reduce-scatter
  // of chunk j and the all-gather of chunk j - 1 share a block, each port carrying c (q+1)/q; alone c.
  // k = 16, c = 4e6: 2 blocks of 1e-6 + 4e6 / 2.55e11 and 15 of 1e-6 + 5e6 / 2.55e11:
  // 2 x 1.6686e-5 + 15 x 2.0608e-5 = 3.4249e-4 s (k = 8: 3.5243e-4; the one-step in_switch: 2.8335e-4).
  Fabric one;
  one.p = 4;
  one.domains = 1;
  one.domain_size = 4;
  one.intra = {1e-6, 3e11};
  one.domains_reduce = true;
  one.in_switch_efficiency = 0.85;
  EXPECT_NEAR(reg.find("hierarchical").formula("all_reduce", S, one),
              2 * (1e-6 + 4e6 / 2.55e11) + 15 * (1e-6 + 5e6 / 2.55e11), 1e-12);
}

TEST(AlgorithmChoice, ProtocolsAndAlgorithmListsTakeTheFastestClosedForm) {
  // Star of 8 (a = 2 us per message, B = 1e11): LL costs 5 us per call and 1 us per step at half the
  // bandwidth, Simple 10 us and 3 us at the full bandwidth. Ring all-reduce, 14 steps of S/8:
  //   1 KB: LL 5e-6 + 14 (3e-6 + 125 / 5e10) = 4.7035e-5 s; Simple 1e-5 + 14 (5e-6 + 125 / 1e11) = 8.00175e-5 s.
  //   1 GB: LL 5e-6 + 14 (3e-6 + 1.25e8 / 5e10) = 3.5047e-2 s; Simple 1e-5 + 14 (5e-6 + 1.25e-3) = 1.7580e-2 s.
  auto spec = star(8);
  spec.collectives.protocols = {{"LL", 5e-6, 1e-6, 0.5}, {"Simple", 10e-6, 3e-6, 1.0}};
  const TopologyGraph g(spec);
  const Participants who = participants_of({0, 1, 2, 3, 4, 5, 6, 7}, g);
  const Choice small = choose("all_reduce", 1e3, "ring", who, g);
  EXPECT_EQ(small.protocol.name, "LL");
  EXPECT_NEAR(small.formula_s, 4.7035e-5, 1e-12);
  const Choice large = choose("all_reduce", 1e9, "ring", who, g);
  EXPECT_EQ(large.protocol.name, "Simple");
  EXPECT_NEAR(large.formula_s, 1.758e-2, 1e-9);
  // The schedule carries the protocol: the step rule charges its call and step latency and its
  // efficiency, and equals the closed form (a ring on a star is uncontended).
  for (double bytes : {1e3, 1e9}) {
    const Schedule s = build_schedule(request("all_reduce", bytes, "ring"), g);
    EXPECT_NEAR(evaluate(lower_to_nodes(s, g), g), choose("all_reduce", bytes, "ring", who, g).formula_s,
                1e-9 * bytes / 1e3);
  }
  // A list: the fastest that can run. 1 KB: halving-doubling (2 x 3 steps) beats the ring (14) and the
  // tree; in_switch cannot run (the switch does not reduce) and is skipped.
  EXPECT_EQ(choose("all_reduce", 1e3, "ring, halving_doubling,in_switch", who, g).algorithm->name, "halving_doubling");
  EXPECT_EQ(choose("all_reduce", 1e3, "auto", who, g).algorithm->name, "direct");  // 2 steps, 1 message each
  EXPECT_THROW(choose("all_reduce", 1e3, "in_switch", who, g), InputError);  // named alone: refused
  EXPECT_THROW(choose("all_reduce", 1e3, "ring,nope", who, g), UnknownNameError);
  EXPECT_THROW(choose("all_gather", 1e3, "ring,double_binary_tree", who, g), InputError);  // tree: AR only
  const TopologyGraph reducing(star(8, true));
  EXPECT_EQ(choose("all_reduce", 1e9, "auto", participants_of({0, 1, 2, 3, 4, 5, 6, 7}, reducing), reducing)
                .algorithm->name,
            "in_switch");
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
