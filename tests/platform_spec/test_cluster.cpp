// GPU clusters by parameters (system.cluster): the expansion's devices, switches, links and groups
// (counted by hand from topology/gpu_cluster.hpp's rules), the routes it gives (same node, same rail,
// cross-rail PXN, through a spine), --set and --dump-config, its errors, and the collectives map.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "tests/platform_spec/test_tables.hpp"
#include "tests/support/input_errors.hpp"
#include "tests/support/platform_yaml.hpp"
#include "topology/gpu_cluster.hpp"
#include "topology/system_parser.hpp"
#include "topology/system_writer.hpp"
#include "topology/topology_graph.hpp"

namespace {

using namespace partsim::topology;
using partsim::test::input_error_of;
using partsim::test::platform_from_yaml;

using partsim::test::kTestTable;

/// A cluster of test GPUs; `cluster_keys` are added to the cluster map ("nodes: 4, ...").
std::string cluster_platform(const std::string& cluster_keys, const std::string& extra = "") {
  return "system:\n  name: c\n  precision: bf16\n  device_types:\n"
         "    gpu: {preset: h100_sxm5_80gb, efficiency_table: " +
         kTestTable +
         "}\n"
         "  cluster: {device_type: gpu, nvlink_bandwidth: 300GB/s, nvlink_latency: 500ns, nic_bandwidth: 200Gb/s,\n"
         "            network_latency: 700ns, " +
         cluster_keys + "}\n" + extra;
}

int count_kind(const GraphTopology& g, NodeKind kind) {
  int n = 0;
  for (const auto& node : g.nodes) n += node.kind == kind;
  return n;
}

/// The node names a route visits after its source.
std::vector<std::string> hops(const TopologyGraph& graph, int src_device, int dst_device) {
  std::vector<std::string> names;
  for (int l : graph.device_route(src_device, dst_device)) names.push_back(graph.node(graph.link(l).dst).name);
  return names;
}

TEST(GpuCluster, FourNodesOfEightGpusRailOptimized) {
  const SystemSpec s = platform_from_yaml(cluster_platform("nodes: 4"));
  ASSERT_TRUE(s.cluster.has_value());
  ASSERT_EQ(s.device_count(), 32);
  EXPECT_EQ(s.device_names[0], "node0.gpu0");
  EXPECT_EQ(s.device_names[13], "node1.gpu5");  // node-major: 13 = 1 x 8 + 5
  EXPECT_EQ(s.device_index("node3.gpu7"), 31);
  const GraphTopology& g = s.graph();
  // 32 GPUs + 4 NVSwitches + 8 rail leaves (4 nodes fit one 64-port leaf per rail), no spine.
  EXPECT_EQ(count_kind(g, NodeKind::device), 32);
  EXPECT_EQ(count_kind(g, NodeKind::switch_node), 12);
  ASSERT_EQ(g.nodes.size(), 44u);
  EXPECT_EQ(g.nodes[32].name, "node0.nvswitch");
  EXPECT_FALSE(g.nodes[32].in_switch_reduction);
  EXPECT_EQ(g.nodes[36].name, "rail0.leaf0");
  EXPECT_EQ(g.nodes[43].name, "rail7.leaf0");
  // 32 NVLink links + 32 NIC links.
  ASSERT_EQ(g.links.size(), 64u);
  EXPECT_EQ(g.links[9].a, "node1.gpu1");
  EXPECT_EQ(g.links[9].b, "node1.nvswitch");
  EXPECT_DOUBLE_EQ(g.links[9].bandwidth, 300e9);
  EXPECT_DOUBLE_EQ(g.links[9].latency, 500e-9);
  EXPECT_EQ(g.links[32 + 8 + 3].a, "node1.gpu3");  // NIC links node by node, NIC by NIC
  EXPECT_EQ(g.links[32 + 8 + 3].b, "rail3.leaf0");
  EXPECT_DOUBLE_EQ(g.links[32 + 8 + 3].bandwidth, 25e9);  // 200 Gb/s
  EXPECT_DOUBLE_EQ(g.links[32 + 8 + 3].latency, 700e-9);
  // Groups: all, node0..node3.
  ASSERT_EQ(s.groups.size(), 5u);
  EXPECT_EQ(s.groups[0].name, "all");
  EXPECT_EQ(s.groups[0].devices.size(), 32u);
  EXPECT_EQ(s.groups[2].name, "node1");
  EXPECT_EQ(s.groups[2].devices, (std::vector<int>{8, 9, 10, 11, 12, 13, 14, 15}));
}

TEST(GpuCluster, RoutesSameNodeSameRailAndCrossRail) {
  const TopologyGraph graph(platform_from_yaml(cluster_platform("nodes: 4")));
  // Same node: GPU -> NVSwitch -> GPU, two NVLink hops.
  EXPECT_EQ(hops(graph, 0, 5), (std::vector<std::string>{"node0.nvswitch", "node0.gpu5"}));
  EXPECT_DOUBLE_EQ(graph.route_latency(graph.device_route(0, 5)), 1e-6);
  // Different nodes, same rail: GPU -> leaf -> GPU.
  EXPECT_EQ(hops(graph, 2, 26), (std::vector<std::string>{"rail2.leaf0", "node3.gpu2"}));
  EXPECT_DOUBLE_EQ(graph.route_bandwidth(graph.device_route(2, 26)), 25e9);
  // Different nodes, different rails: PXN, NVLink to the source node's GPU on the destination's
  // rail, then that rail.
  EXPECT_EQ(hops(graph, 0, 13),
            (std::vector<std::string>{"node0.nvswitch", "node0.gpu5", "rail5.leaf0", "node1.gpu5"}));
}

TEST(GpuCluster, LeavesJoinedByASpinePerRail) {
  // 6 nodes on 4-port switches: 2 nodes per leaf (radix/2 down), 3 leaves per rail, one spine per
  // rail with each leaf's 2 uplinks as one link of 2 x 25 GB/s / 2 (oversubscription 2).
  const SystemSpec s = platform_from_yaml(
      cluster_platform("nodes: 6, gpus_per_node: 2, nics_per_node: 2, switch_radix: 4, oversubscription: 2"));
  const GraphTopology& g = s.graph();
  // 12 GPUs, 6 NVSwitches, 2 rails x 3 leaves, 2 spines.
  EXPECT_EQ(count_kind(g, NodeKind::switch_node), 6 + 6 + 2);
  // 12 NVLink + 12 NIC + 6 uplinks.
  ASSERT_EQ(g.links.size(), 30u);
  EXPECT_EQ(g.links.back().a, "rail1.leaf2");
  EXPECT_EQ(g.links.back().b, "rail1.spine");
  EXPECT_DOUBLE_EQ(g.links.back().bandwidth, 25e9);
  EXPECT_EQ(cluster_leaf_count(*s.cluster), 3);
  const TopologyGraph graph(s);
  // node0.gpu1 -> node5.gpu1: rail 1, leaf 0 -> spine -> leaf 2.
  EXPECT_EQ(hops(graph, 1, 11), (std::vector<std::string>{"rail1.leaf0", "rail1.spine", "rail1.leaf2", "node5.gpu1"}));
  // node0.gpu1 -> node1.gpu1: both on leaf 0 of rail 1.
  EXPECT_EQ(hops(graph, 1, 3), (std::vector<std::string>{"rail1.leaf0", "node1.gpu1"}));
}

TEST(GpuCluster, FatTreeAndSharedNics) {
  // 3 nodes x 4 GPUs sharing 2 NICs (GPUs 0,1 -> NIC 0; 2,3 -> NIC 1), every NIC of a node on one leaf;
  // 3 x 2 = 6 NIC ports fit one 8-port leaf.
  const SystemSpec s = platform_from_yaml(
      cluster_platform("nodes: 3, gpus_per_node: 4, nics_per_node: 2, fabric: fat_tree, switch_radix: 8"));
  const GraphTopology& g = s.graph();
  // 12 GPUs; 3 NVSwitches, 6 NIC nodes, 1 leaf.
  EXPECT_EQ(count_kind(g, NodeKind::switch_node), 10);
  EXPECT_EQ(g.nodes[12 + 3].name, "node0.nic0");
  EXPECT_EQ(g.nodes.back().name, "leaf0");
  // 12 NVLink + 12 GPU-NIC + 6 NIC-leaf.
  EXPECT_EQ(g.links.size(), 30u);
  EXPECT_EQ(cluster_nic_of(*s.cluster, 1), 0);
  EXPECT_EQ(cluster_nic_of(*s.cluster, 2), 1);
  const TopologyGraph graph(s);
  EXPECT_EQ(hops(graph, 1, 9), (std::vector<std::string>{"node0.nic0", "leaf0", "node2.nic0", "node2.gpu1"}));
  // 5 nodes x 2 NICs = 10 ports > 8: leaves of floor(4 / 2) = 2 nodes, 3 leaves and a spine.
  const SystemSpec big = platform_from_yaml(
      cluster_platform("nodes: 5, gpus_per_node: 4, nics_per_node: 2, fabric: fat_tree, switch_radix: 8"));
  EXPECT_EQ(cluster_leaf_count(*big.cluster), 3);
  EXPECT_EQ(big.graph().nodes.back().name, "spine");
  const TopologyGraph big_graph(big);
  EXPECT_EQ(hops(big_graph, 0, 19).size(), 6u);  // nic, leaf0, spine, leaf2, nic, gpu
}

TEST(GpuCluster, OneNodeHasNoFabric) {
  const SystemSpec s = platform_from_yaml(cluster_platform("nodes: 1, in_switch_reduction: true"));
  EXPECT_EQ(s.device_count(), 8);
  EXPECT_EQ(s.graph().nodes.size(), 9u);
  EXPECT_TRUE(s.graph().nodes[8].in_switch_reduction);
  EXPECT_EQ(s.graph().links.size(), 8u);
}

TEST(GpuCluster, SetChangesTheNodeCountAndDumpWritesTheParameters) {
  const std::string text = cluster_platform("nodes: 4", "  groups: [{name: pair, devices: [node0.gpu0, node1.gpu0]}]\n");
  const SystemSpec two = platform_from_yaml(text, {"system.cluster.nodes=2"});
  EXPECT_EQ(two.device_count(), 16);
  EXPECT_EQ(two.cluster->nodes, 2);
  ASSERT_EQ(two.groups.size(), 4u);  // all, node0, node1, then the file's group
  EXPECT_EQ(two.groups[3].name, "pair");
  EXPECT_EQ(two.groups[3].devices, (std::vector<int>{0, 8}));
  const std::string dumped = system_to_yaml(two);
  EXPECT_NE(dumped.find("cluster:"), std::string::npos) << dumped;
  EXPECT_NE(dumped.find("nodes: 2"), std::string::npos) << dumped;
  EXPECT_EQ(dumped.find("devices: [node0"), dumped.find("devices: [node0.gpu0, node1.gpu0]")) << dumped;
  EXPECT_EQ(dumped.find("graph:"), std::string::npos) << "the expansion is not written";
  EXPECT_EQ(dumped.find("nvswitch"), std::string::npos) << dumped;
  const SystemSpec back = platform_from_yaml(dumped);
  EXPECT_EQ(back, two) << dumped;
  EXPECT_EQ(system_to_yaml(back), dumped);
  EXPECT_EQ(content_hash(back), content_hash(two));
}

TEST(GpuCluster, AThousandThreeHundredFortyFourNodesExpandAndBuildQuickly) {
  // The large-model work's biggest cluster: 1344 DGX nodes = 10752 GPUs. Expansion and the topology
  // graph are O(GPUs); routes are computed per destination when asked for.
  const auto start = std::chrono::steady_clock::now();
  const SystemSpec s = platform_from_yaml(cluster_platform("nodes: 1344"));
  const TopologyGraph graph(s);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(s.device_count(), 10752);
  // 1344 nodes on 64-port leaves: 32 nodes per leaf, 42 leaves per rail, 8 rails, 8 spines.
  EXPECT_EQ(cluster_leaf_count(*s.cluster), 42);
  EXPECT_EQ(static_cast<int>(s.graph().nodes.size()), 10752 + 1344 + 8 * 42 + 8);
  EXPECT_LT(seconds, 10.0) << "expected well under a second in a Release build";
  EXPECT_EQ(hops(graph, 0, 10751).size(), 6u);  // PXN to gpu7 of node 0, leaf, spine, leaf, gpu
}

TEST(GpuCluster, ErrorsNameTheKey) {
  auto error = [](const std::string& text) { return input_error_of([&] { platform_from_yaml(text); }); };
  EXPECT_EQ(error(cluster_platform("nodes: 2", "  devices: [{type: gpu}]\n")),
            "platform.yaml:8:12: system.devices: must be left out with cluster: the cluster places its GPUs "
            "(node<i>.gpu<g>)");
  EXPECT_EQ(error(cluster_platform("nodes: 2, nics_per_node: 9")),
            "platform.yaml:7:62: system.cluster.nics_per_node: must be at most gpus_per_node (8): every NIC serves "
            "at least one GPU (got 9)");
  EXPECT_EQ(error(cluster_platform("nodes: 2, switch_radix: 7")),
            "platform.yaml:7:61: system.cluster.switch_radix: must be even and >= 2 (half the ports down, half up; "
            "got 7)");
  EXPECT_EQ(error(cluster_platform("nodes: 2, oversubscription: 0.5")),
            "platform.yaml:7:65: system.cluster.oversubscription: must be >= 1 (got 0.5)");
  EXPECT_EQ(error(cluster_platform("nodes: 2, fabric: torus")),
            "platform.yaml:7:55: system.cluster.fabric: must be one of rail_optimized, fat_tree (got torus)");
  EXPECT_EQ(error(cluster_platform("nodes: 0")), "platform.yaml:7:44: system.cluster.nodes: must be > 0 (got 0)");
  EXPECT_EQ(error(cluster_platform("nodes: 2", "  star: {latency: 0s}\n")),
            "platform.yaml:6:12: system.cluster: only one topology may be given (already have star)");
  const std::string unknown_type =
      "system:\n  name: c\n  cluster: {device_type: gpu, nvlink_bandwidth: 1GB/s, nic_bandwidth: 1GB/s}\n";
  EXPECT_EQ(error(unknown_type).substr(0, 80),
            "platform.yaml:3:26: system.cluster.device_type: unknown device type 'gpu' (defin");
  EXPECT_EQ(error(cluster_platform("nodes: 1000, gpus_per_node: 1001, nics_per_node: 1")),
            "platform.yaml:7:44: system.cluster.nodes: nodes x gpus_per_node is 1001000, more GPUs than a platform "
            "may have (at most 1000000)");
}

// ---- In-switch reduction on a hand-written graph ---------------------------------------------------

TEST(GraphSwitches, AMapMarksASwitchThatReducesAndRoundTrips) {
  const std::string text =
      "system:\n  name: g\n  devices: [{type: tpu_v2, count: 2}]\n"
      "  graph:\n    switches: [plain, {name: nvs0, in_switch_reduction: true}]\n"
      "    links: [{a: d0, b: nvs0, bandwidth: 1GB/s}, {a: d1, b: nvs0, bandwidth: 1GB/s},\n"
      "            {a: d0, b: plain, bandwidth: 1GB/s}]\n";
  const SystemSpec s = platform_from_yaml(text);
  ASSERT_EQ(s.graph().nodes.size(), 4u);
  EXPECT_EQ(s.graph().nodes[2].name, "plain");
  EXPECT_FALSE(s.graph().nodes[2].in_switch_reduction);
  EXPECT_EQ(s.graph().nodes[3].name, "nvs0");
  EXPECT_TRUE(s.graph().nodes[3].in_switch_reduction);
  const std::string dumped = system_to_yaml(s);
  EXPECT_NE(dumped.find("switches: [plain, {name: nvs0, in_switch_reduction: true}]"), std::string::npos) << dumped;
  SystemSpec back = platform_from_yaml(dumped);
  // The dump writes the tpu_v2 preset's network_bandwidth out, which these 1 GB/s links contradict:
  // a warning about the dump's own key, not a difference of platform.
  back.warnings = s.warnings;
  EXPECT_EQ(back, s);
  EXPECT_EQ(input_error_of([&] { platform_from_yaml(text, {"system.graph.switches[1].reduce=true"}); }),
            "--set system.graph.switches[1].reduce=true: system.graph.switches[1].reduce: unknown key (allowed: "
            "in_switch_reduction, name)");
}

// ---- Collectives ----------------------------------------------------------------------------------

const std::string kTwoTpuStar = "system:\n  name: s\n  devices: [{type: tpu_v2, count: 2}]\n  star: {latency: 0s}\n";

TEST(Collectives, DefaultsWhenLeftOutAndRoundTripWhenGiven) {
  EXPECT_EQ(platform_from_yaml(kTwoTpuStar).collectives, CollectiveSettings{});
  EXPECT_EQ(system_to_yaml(platform_from_yaml(kTwoTpuStar)).find("collectives"), std::string::npos);
  const SystemSpec s = platform_from_yaml(
      kTwoTpuStar + "  collectives: {algorithm: {all_reduce: ring, all_gather.x: torus}, channels: 8, chunk: 512KiB,\n"
              "                endpoint_overhead: 5us, protocol_efficiency: 0.92}\n");
  EXPECT_EQ(s.collectives.algorithm.at("all_reduce"), "ring");
  EXPECT_EQ(s.collectives.algorithm.at("all_gather.x"), "torus");
  EXPECT_EQ(s.collectives.channels, 8);
  EXPECT_DOUBLE_EQ(s.collectives.chunk_bytes, 512.0 * 1024);
  EXPECT_DOUBLE_EQ(s.collectives.endpoint_overhead, 5e-6);
  EXPECT_DOUBLE_EQ(s.collectives.protocol_efficiency, 0.92);
  const std::string dumped = system_to_yaml(s);
  EXPECT_EQ(platform_from_yaml(dumped), s) << dumped;
  EXPECT_EQ(system_to_yaml(platform_from_yaml(dumped)), dumped);
  // A zero chunk and overhead are allowed.
  EXPECT_DOUBLE_EQ(platform_from_yaml(kTwoTpuStar + "  collectives: {chunk: 0B, endpoint_overhead: 0s}\n").collectives.chunk_bytes,
                   0.0);
}

TEST(Collectives, ProtocolsAndInSwitchEfficiencyReadInFileOrderAndRoundTrip) {
  const SystemSpec s = platform_from_yaml(
      kTwoTpuStar + "  collectives:\n    in_switch_efficiency: 0.85\n    protocols:\n"
              "      LL: {base_latency: 6.6us, step_latency: 0.6us, efficiency: 0.5}\n"
              "      Simple: {base_latency: 8.4us, step_latency: 3.4us}\n");
  EXPECT_DOUBLE_EQ(s.collectives.in_switch_efficiency, 0.85);
  ASSERT_EQ(s.collectives.protocols.size(), 2u);
  EXPECT_EQ(s.collectives.protocols[0].name, "LL");
  EXPECT_DOUBLE_EQ(s.collectives.protocols[0].base_latency, 6.6e-6);
  EXPECT_DOUBLE_EQ(s.collectives.protocols[0].step_latency, 0.6e-6);
  EXPECT_DOUBLE_EQ(s.collectives.protocols[0].efficiency, 0.5);
  EXPECT_EQ(s.collectives.protocols[1].name, "Simple");
  EXPECT_DOUBLE_EQ(s.collectives.protocols[1].efficiency, 1.0);  // the default
  const std::string dumped = system_to_yaml(s);
  EXPECT_EQ(platform_from_yaml(dumped), s) << dumped;
  EXPECT_EQ(input_error_of([&] {
              platform_from_yaml(kTwoTpuStar + "  collectives: {protocols: {LL: {efficiency: 1.5}}}\n");
            }),
            "platform.yaml:5:46: system.collectives.protocols.LL.efficiency: must be in (0, 1] (got 1.5)");
  EXPECT_EQ(input_error_of([&] { platform_from_yaml(kTwoTpuStar + "  collectives: {protocols: {LL: {latency: 1us}}}\n"); })
                .substr(0, 90),
            "platform.yaml:5:34: system.collectives.protocols.LL.latency: unknown key (allowed: base_la");
}

TEST(GpuCluster, NvlinkEfficiencyScalesTheNvlinkLinksOnly) {
  const SystemSpec s = platform_from_yaml(cluster_platform("nodes: 2, nvlink_efficiency: 0.8"));
  EXPECT_DOUBLE_EQ(s.cluster->nvlink_efficiency, 0.8);
  const auto& links = s.graph().links;
  EXPECT_DOUBLE_EQ(links.front().bandwidth, 300e9 * 0.8);  // GPU <-> node switch: 240 GB/s
  EXPECT_DOUBLE_EQ(links.back().bandwidth, 25e9);          // the last link is a NIC's: 200 Gb/s as given
  EXPECT_EQ(platform_from_yaml(system_to_yaml(s)), s);
}

TEST(Collectives, UnknownCollectivesAndEmptyNamesAreRefused) {
  auto error = [](const std::string& collectives) {
    return input_error_of([&] { platform_from_yaml(kTwoTpuStar + "  collectives: " + collectives + "\n"); });
  };
  EXPECT_EQ(error("{algorithm: {allreduce: ring}}"),
            "platform.yaml:5:29: system.collectives.algorithm.allreduce: unknown collective 'allreduce' (valid: p2p, "
            "reduce_scatter, all_gather, all_reduce, broadcast, all_to_all, all_to_all_direct, rotate; a key is a "
            "collective or collective.axis)");
  EXPECT_EQ(error("{algorithm: {all_reduce.: ring}}"),
            "platform.yaml:5:29: system.collectives.algorithm.all_reduce.: the axis after '.' must not be empty");
  EXPECT_EQ(error("{algorithm: {all_reduce: \"\"}}"),
            "platform.yaml:5:41: system.collectives.algorithm.all_reduce: an algorithm name must not be empty");
  EXPECT_EQ(error("{algorithm: [ring]}"),
            "platform.yaml:5:28: system.collectives.algorithm: expected a map from collective names to algorithm names");
  EXPECT_EQ(error("{protocol_efficiency: 1.5}"),
            "platform.yaml:5:38: system.collectives.protocol_efficiency: must be in (0, 1] (got 1.5)");
  EXPECT_EQ(error("{channels: 0}"), "platform.yaml:5:27: system.collectives.channels: must be > 0 (got 0)");
  EXPECT_EQ(error("{chanels: 2}"),
            "platform.yaml:5:17: system.collectives.chanels: unknown key (allowed: algorithm, channels, chunk, "
            "endpoint_overhead, in_switch_efficiency, protocol_efficiency, protocols)");
}

}  // namespace
