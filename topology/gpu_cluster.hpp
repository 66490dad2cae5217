#pragma once
// GPU clusters described by their parameters (ClusterTopology, `system.cluster` in a platform file)
// and the graph they stand for. The parser expands a cluster into SystemSpec's devices, names,
// groups and GraphTopology, so the topology graph, the SimGrid platform and the planners see an
// ordinary graph; the spec keeps the parameters for --dump-config and --set.
//
// The expansion (configs/README.md, "system.cluster"), in O(GPUs) time and memory:
//  - Devices, node-major (device index = node x gpus_per_node + gpu, Megatron-LM's rank order), named
//    `node<i>.gpu<g>`, all of type `device_type`. Groups: `all`, then `node<i>` for every node.
//  - Inside node i: one switch `node<i>.nvswitch` (the NVSwitches of a DGX together, with
//    `in_switch_reduction` from the key); each GPU has one link to it at nvlink_bandwidth x
//    nvlink_efficiency and nvlink_latency (all of the GPU's NVLinks as one link, per direction).
//  - NICs: GPU g uses NIC g x nics_per_node / gpus_per_node. With one NIC per GPU the NIC and its
//    cable are the GPU's link to its leaf switch (nic_bandwidth, network_latency); when GPUs share a
//    NIC, the NIC is a node `node<i>.nic<r>` joined to each of its GPUs at nic_bandwidth with no
//    latency, and its one link to the leaf carries what they send. PCIe between a GPU and its NIC is
//    not modelled. A cluster of one node has no InfiniBand fabric.
//  - rail_optimized (DGX SuperPOD): NIC r of every node is on rail r. A rail is its own two-level
//    tree: when the nodes fit on one switch (nodes <= switch_radix) one leaf `rail<r>.leaf0` holds
//    them all; otherwise leaves `rail<r>.leaf<j>` with switch_radix/2 nodes each, joined by one spine
//    `rail<r>.spine` (a non-blocking core: each leaf's radix/2 uplinks are one link of
//    radix/2 x nic_bandwidth / oversubscription; routes are single-path, so separate spine switches
//    would put every leaf-to-leaf flow on one of them).
//    Routes (TopologyGraph: minimum sum of 1/bandwidth, ties towards the lower node index, which may
//    pass through a GPU): same node, GPU -> nvswitch -> GPU; same rail on different nodes,
//    GPU -> leaf -> GPU (or -> leaf -> spine -> leaf -> across leaves); different rails on different
//    nodes, NCCL's PXN: over NVLink to the source node's GPU on the destination's rail
//    (GPU -> nvswitch -> GPU'), then that rail to the destination. Rails are not joined by the
//    fabric: a real SuperPOD's spines also join rails, but NCCL (PXN, on by default since 2.12) keeps
//    cross-rail traffic on NVLink, and a single-path route models what NCCL does.
//  - fat_tree: all NICs of a node on one leaf. When every NIC fits on one switch
//    (nodes x nics_per_node <= switch_radix) one leaf `leaf0` holds them; otherwise leaves `leaf<j>`
//    with floor(switch_radix / 2 / nics_per_node) nodes each, joined by one spine `spine` as above.
//    Routes between nodes: GPU -> leaf -> GPU, or GPU -> leaf -> spine -> leaf -> GPU.
// Node order in the graph (ties in routing go to lower indices): GPUs, node switches, shared NICs,
// leaves (rail by rail), spines.

#include <string>
#include <vector>

#include "topology/system_spec.hpp"

namespace partsim::topology {

/// "node3.gpu5".
std::string cluster_gpu_name(int node, int gpu);

/// The NIC (rail) GPU `gpu` of a node uses: gpu x nics_per_node / gpus_per_node.
int cluster_nic_of(const ClusterTopology& cluster, int gpu);

/// The groups a cluster generates: `all`, then `node<i>` for each node.
std::vector<DeviceGroup> cluster_groups(const ClusterTopology& cluster);

/// Leaf switches per rail (rail_optimized) or in all (fat_tree); 0 for a single node.
int cluster_leaf_count(const ClusterTopology& cluster);

/// What is wrong with a cluster's parameters: the key to blame and the message; both empty when the
/// parameters describe a cluster.
struct ClusterProblem {
  std::string key;
  std::string message;
};

/// Checks what the keys cannot check alone: nics_per_node at most gpus_per_node, an even
/// switch_radix >= 2, a fat-tree leaf with room for one node's NICs, oversubscription >= 1, at most
/// 1000000 GPUs.
ClusterProblem cluster_problem(const ClusterTopology& cluster);

/// Replaces spec's devices, device names, groups and topology with the expansion of `cluster`
/// (above); spec.cluster is set to `cluster`. The parameters must be valid (cluster_problem() finds nothing)
/// and cluster.device_type a key of spec.device_types, else throws InputError.
void expand_cluster(const ClusterTopology& cluster, SystemSpec& spec);

}  // namespace partsim::topology
