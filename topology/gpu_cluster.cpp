#include "topology/gpu_cluster.hpp"

#include "sim/common/error.hpp"

namespace partsim::topology {
namespace {

constexpr long long kMaxGpus = 1'000'000;  // the most devices a platform may have (system_parser.cpp)

/// Nodes per leaf switch, and whether one leaf holds every node (then no spine is needed).
struct LeafShape {
  int nodes_per_leaf = 0;
  int leaves = 0;  // per rail (rail_optimized) or in all (fat_tree)
};

LeafShape leaf_shape(const ClusterTopology& c) {
  if (c.nodes < 2) return {};
  // NIC ports one node takes on a leaf: one per rail, or all its NICs on a fat tree's leaf.
  const long long ports_per_node = c.fabric == ClusterFabric::rail_optimized ? 1 : c.nics_per_node;
  if (c.nodes * ports_per_node <= c.switch_radix) return {c.nodes, 1};
  // Half the ports go down to NICs, half up to the spine.
  const int per_leaf = static_cast<int>((c.switch_radix / 2) / ports_per_node);
  return {per_leaf, (c.nodes + per_leaf - 1) / per_leaf};
}

}  // namespace

std::string cluster_gpu_name(int node, int gpu) {
  return "node" + std::to_string(node) + ".gpu" + std::to_string(gpu);
}

int cluster_nic_of(const ClusterTopology& cluster, int gpu) {
  return static_cast<int>(static_cast<long long>(gpu) * cluster.nics_per_node / cluster.gpus_per_node);
}

std::vector<DeviceGroup> cluster_groups(const ClusterTopology& cluster) {
  std::vector<DeviceGroup> groups;
  groups.reserve(static_cast<size_t>(cluster.nodes) + 1);
  DeviceGroup all{"all", {}};
  const int gpus = cluster.nodes * cluster.gpus_per_node;
  all.devices.reserve(static_cast<size_t>(gpus));
  for (int d = 0; d < gpus; ++d) all.devices.push_back(d);
  groups.push_back(std::move(all));
  for (int n = 0; n < cluster.nodes; ++n) {
    DeviceGroup node{"node" + std::to_string(n), {}};
    for (int g = 0; g < cluster.gpus_per_node; ++g) node.devices.push_back(n * cluster.gpus_per_node + g);
    groups.push_back(std::move(node));
  }
  return groups;
}

int cluster_leaf_count(const ClusterTopology& cluster) { return leaf_shape(cluster).leaves; }

ClusterProblem cluster_problem(const ClusterTopology& c) {
  if (static_cast<long long>(c.nodes) * c.gpus_per_node > kMaxGpus)
    return {"nodes", "nodes x gpus_per_node is " + std::to_string(static_cast<long long>(c.nodes) * c.gpus_per_node) +
           ", more GPUs than a platform may have (at most 1000000)"};
  if (c.nics_per_node > c.gpus_per_node)
    return {"nics_per_node", "must be at most gpus_per_node (" + std::to_string(c.gpus_per_node) +
                                 "): every NIC serves at least one GPU (got " + std::to_string(c.nics_per_node) + ")"};
  if (c.switch_radix < 2 || c.switch_radix % 2 != 0)
    return {"switch_radix", "must be even and >= 2 (half the ports down, half up; got " +
                                std::to_string(c.switch_radix) + ")"};
  if (c.fabric == ClusterFabric::fat_tree && c.nodes > 1 &&
      static_cast<long long>(c.nodes) * c.nics_per_node > c.switch_radix && c.switch_radix / 2 < c.nics_per_node)
    return {"switch_radix", "a fat-tree leaf has switch_radix/2 = " + std::to_string(c.switch_radix / 2) +
           " ports down, fewer than one node's " + std::to_string(c.nics_per_node) + " NICs"};
  if (!(c.oversubscription >= 1.0))
    return {"oversubscription", "must be >= 1 (got " + std::to_string(c.oversubscription) + ")"};
  return {};
}

void expand_cluster(const ClusterTopology& c, SystemSpec& spec) {
  if (const ClusterProblem problem = cluster_problem(c); !problem.key.empty())
    throw InputError("cluster." + problem.key + ": " + problem.message);
  if (!spec.device_types.count(c.device_type))
    throw InputError("cluster: device_type '" + c.device_type + "' is not a device type of the system");
  const int gpus = c.nodes * c.gpus_per_node;
  const bool shared_nics = c.nics_per_node < c.gpus_per_node;
  const LeafShape shape = leaf_shape(c);
  const int rails = c.fabric == ClusterFabric::rail_optimized ? c.nics_per_node : 1;

  GraphTopology g;
  g.nodes.reserve(static_cast<size_t>(gpus + c.nodes * (1 + (shared_nics ? c.nics_per_node : 0)) +
                                      rails * (shape.leaves + 1)));
  g.links.reserve(static_cast<size_t>(2 * gpus + (shared_nics ? c.nodes * c.nics_per_node : 0) + rails * shape.leaves));
  spec.device_type_of.assign(static_cast<size_t>(gpus), c.device_type);
  spec.device_names.clear();
  spec.device_names.reserve(static_cast<size_t>(gpus));
  for (int n = 0; n < c.nodes; ++n)
    for (int gpu = 0; gpu < c.gpus_per_node; ++gpu) {
      spec.device_names.push_back(cluster_gpu_name(n, gpu));
      g.nodes.push_back({spec.device_names.back(), NodeKind::device, c.device_type, false});
    }

  // NVLink: every GPU to its node's switch.
  auto node_switch = [](int n) { return "node" + std::to_string(n) + ".nvswitch"; };
  for (int n = 0; n < c.nodes; ++n) g.nodes.push_back({node_switch(n), NodeKind::switch_node, "", c.in_switch_reduction});
  for (int d = 0; d < gpus; ++d)
    g.links.push_back({spec.device_names[static_cast<size_t>(d)], node_switch(d / c.gpus_per_node),
                       c.nvlink_bandwidth * c.nvlink_efficiency,
                       c.nvlink_latency, false});

  if (c.nodes > 1) {
    // The node that stands for NIC `nic` of node `n` towards its leaf: the GPU itself when it has
    // the NIC to itself, else the shared NIC's node.
    auto nic_node = [&](int n, int nic) {
      return shared_nics ? "node" + std::to_string(n) + ".nic" + std::to_string(nic)
                         : cluster_gpu_name(n, nic);  // one NIC per GPU: NIC r is GPU r's
    };
    if (shared_nics) {
      for (int n = 0; n < c.nodes; ++n)
        for (int nic = 0; nic < c.nics_per_node; ++nic) g.nodes.push_back({nic_node(n, nic), NodeKind::switch_node, "", false});
      for (int d = 0; d < gpus; ++d)
        g.links.push_back({spec.device_names[static_cast<size_t>(d)],
                           nic_node(d / c.gpus_per_node, cluster_nic_of(c, d % c.gpus_per_node)), c.nic_bandwidth, 0.0,
                           false});
    }
    auto leaf_name = [&](int rail, int leaf) {
      return c.fabric == ClusterFabric::rail_optimized ? "rail" + std::to_string(rail) + ".leaf" + std::to_string(leaf)
                                                        : "leaf" + std::to_string(leaf);
    };
    auto spine_name = [&](int rail) {
      return c.fabric == ClusterFabric::rail_optimized ? "rail" + std::to_string(rail) + ".spine" : std::string("spine");
    };
    for (int rail = 0; rail < rails; ++rail)
      for (int leaf = 0; leaf < shape.leaves; ++leaf) g.nodes.push_back({leaf_name(rail, leaf), NodeKind::switch_node, "", false});
    if (shape.leaves > 1)
      for (int rail = 0; rail < rails; ++rail) g.nodes.push_back({spine_name(rail), NodeKind::switch_node, "", false});

    // NIC -> leaf: node n is on leaf n / nodes_per_leaf of every rail (of the fabric, for a fat tree).
    for (int n = 0; n < c.nodes; ++n)
      for (int nic = 0; nic < c.nics_per_node; ++nic) {
        const int rail = c.fabric == ClusterFabric::rail_optimized ? nic : 0;
        g.links.push_back({nic_node(n, nic), leaf_name(rail, n / shape.nodes_per_leaf), c.nic_bandwidth,
                           c.network_latency, false});
      }
    // Leaf -> spine: the leaf's radix/2 uplinks as one link, divided by the oversubscription.
    const double uplink = (c.switch_radix / 2) * c.nic_bandwidth / c.oversubscription;
    if (shape.leaves > 1)
      for (int rail = 0; rail < rails; ++rail)
        for (int leaf = 0; leaf < shape.leaves; ++leaf)
          g.links.push_back({leaf_name(rail, leaf), spine_name(rail), uplink, c.network_latency, false});
  }

  spec.topology = std::move(g);
  spec.groups = cluster_groups(c);
  spec.cluster = c;
}

}  // namespace partsim::topology
