#pragma once
// The platform as a graph: nodes (devices, switches, hosts; at core granularity also the cores,
// on-chip buses and external memories of template chips), directed links with bandwidth and
// latency, deterministic routes, hop counts, device groups and torus axis rings.
//
// Contract: this is the ONE routing definition. The analytic evaluators sum link loads over
// route(); the SimGrid replay (sim/replay) installs exactly these routes, link by link. No SimGrid
// here.
//
// Links are directed. The two directions of one full-duplex physical link are two TopoLinks that
// name each other in `reverse` (SimGrid: one split-duplex link, UP = the lower id). Routing rules:
//  - torus: dimension order (dimension 0, "X", first); in each dimension the shorter direction when
//    the torus is bidirectional, ties towards +; always + when uni-directional
//    (system_spec.hpp, TorusTopology);
//  - graph: the path minimising the sum of 1/bandwidth over its links, ties broken towards the
//    lowest next-node index at every hop (system_spec.hpp, GraphTopology), computed with Boost's
//    dijkstra_shortest_paths on the reversed graph (distance to the destination, when a route to
//    that destination is first asked for, then kept), then walked from the source greedily, so it is
//    deterministic. A route may pass through a device (a GPU cluster's cross-rail route does:
//    topology/gpu_cluster.hpp);
//  - core granularity (template chips only): a chip's cores sit on a bidirectional on-chip ring
//    (shorter direction, ties towards +) or on a split bus (a bus node every core links to); the
//    chip-to-chip links attach to "port" cores spread evenly round the ring (torus port of
//    dimension k and direction + / - is port 2k / 2k+1 of K = 2 x dims, at core floor(port x C / K));
//    graph links attach to core 0; the external memory hangs off core 0. A route between cores of
//    different chips is: on-chip path to the port core of its first chip-to-chip link, that link,
//    the on-chip path from where it enters the next chip to the port of the next link, ... , and
//    the on-chip path to the destination core. The chip-level route decides the chip-to-chip links.

#include <memory>
#include <string>
#include <vector>

#include "topology/system_spec.hpp"

namespace partsim::topology {

struct TopologyBoostGraph;  // topology/topology_boost_graph.hpp

enum class Granularity { chip, core };

Granularity parse_granularity(const std::string& text);  // "chip" | "core", else InputError
std::string to_string(Granularity g);

enum class TopoNodeKind { device, core, memory, bus, switch_node, host };

struct TopoNode {
  std::string name;        // unique; also the SimGrid host or router name
  TopoNodeKind kind = TopoNodeKind::device;
  int device = -1;         // device index (device, core, memory and bus nodes)
  int core = -1;           // core index within its chip (core nodes)
  /// Nodes that send and receive data (SimGrid hosts); buses and switches only forward.
  bool is_endpoint() const { return kind != TopoNodeKind::bus && kind != TopoNodeKind::switch_node; }
};

enum class TopoLinkKind { chip_to_chip, on_chip, memory };

struct TopoLink {
  std::string name;        // unique name of this direction
  std::string physical;    // name of the physical link (shared by both directions)
  int src = -1;            // node ids
  int dst = -1;
  double bandwidth = 0;    // bytes/s in this direction
  double latency = 0;      // s
  TopoLinkKind kind = TopoLinkKind::chip_to_chip;
  int dimension = -1;      // torus dimension, -1 otherwise
  int direction = 0;       // +1 / -1 along the torus dimension or on-chip ring, 0 otherwise
  int reverse = -1;        // the other direction of the same physical link, -1 if none
};

using Route = std::vector<int>;  // link ids, in order from source to destination

class TopologyGraph {
 public:
  /// Edge property: the link id. Defined in topology/topology_boost_graph.hpp.
  using BoostGraph = TopologyBoostGraph;

  explicit TopologyGraph(const SystemSpec& spec, Granularity granularity = Granularity::chip);

  const SystemSpec& spec() const { return spec_; }
  Granularity granularity() const { return granularity_; }

  int node_count() const { return static_cast<int>(nodes_.size()); }
  int link_count() const { return static_cast<int>(links_.size()); }
  const TopoNode& node(int id) const { return nodes_.at(id); }
  const TopoLink& link(int id) const { return links_.at(id); }
  const std::vector<TopoNode>& nodes() const { return nodes_; }
  const std::vector<TopoLink>& links() const { return links_; }
  const BoostGraph& boost_graph() const;  // include topology/topology_boost_graph.hpp to use it

  int device_count() const { return spec_.device_count(); }
  /// Cores that are separate nodes for `device`: the chip's core count at core granularity for a
  /// template device, else 1.
  int cores_of(int device) const;
  /// The endpoint node of core `core` of `device` (core 0 = the device node at chip granularity).
  int endpoint(int device, int core = 0) const;
  /// The external-memory node of `device` at core granularity, -1 if it has none.
  int memory_node(int device) const;

  /// Links from node `src` to node `dst` (empty when src == dst). Throws Error if no path exists.
  Route route(int src_node, int dst_node) const;
  /// Device to device (core 0 at core granularity).
  Route device_route(int src_device, int dst_device) const { return route(endpoint(src_device), endpoint(dst_device)); }
  /// Number of chip-to-chip links between two devices (their chip-level hop count).
  int hops(int src_device, int dst_device) const;
  double route_latency(const Route& r) const;    // s, sum over the links
  double route_bandwidth(const Route& r) const;  // bytes/s, the slowest link (infinity when empty)

  // ---- torus ----
  bool is_torus() const { return spec_.is_torus(); }
  int dimensions() const;                        // 0 for a graph
  int dim_size(int dim) const;
  std::vector<int> coordinates(int device) const;
  int device_at(const std::vector<int>& coords) const;
  /// The devices along dimension `dim` through `device`, in + order, starting at coordinate 0.
  std::vector<int> axis_ring(int device, int dim) const;
  /// Every ring along `dim`, ordered by the index of its first device.
  std::vector<std::vector<int>> axis_rings(int dim) const;

  // ---- groups ----
  const std::vector<DeviceGroup>& groups() const { return spec_.groups; }
  /// The named group; throws UnknownNameError listing the groups.
  const DeviceGroup& group(const std::string& name) const;

 private:
  void build_torus_system();
  void build_graph_system();
  void build_cores();
  int add_node(TopoNode n);
  int add_link(TopoLink l);
  void add_link_pair(TopoLink forward);  // adds forward and its reverse
  Route system_route(int src_sys, int dst_sys) const;
  Route on_chip_route(int device, int from_node, int to_node) const;
  int device_of(int node) const;

  SystemSpec spec_;
  Granularity granularity_;
  std::vector<TopoNode> nodes_;
  std::vector<std::string> device_names_;
  std::vector<TopoLink> links_;
  std::shared_ptr<const BoostGraph> graph_;  // shared by copies (built by the constructor only)

  // System level (chip granularity view): system node ids are devices [0, n) then graph switches
  // and hosts; system links are links_[0, system_link_count_).
  int system_node_count_ = 0;
  int system_link_count_ = 0;
  std::vector<int> system_node_to_node_;               // system node -> node id (devices: core 0)
  std::vector<int> system_link_src_, system_link_dst_;  // system link -> system node ids
  std::vector<std::vector<int>> plus_link_, minus_link_;  // [dim][device] -> link id or -1
  // graph: distances (s/B) to a destination system node from every system node, computed when a
  // route first needs them (construction stays O(nodes + links) for clusters of 10^4 GPUs). Shared
  // by copies of this graph, which have the same links.
  struct DistanceCache;
  std::shared_ptr<DistanceCache> distances_;
  std::shared_ptr<const std::vector<double>> distances_to(int dst_system_node) const;
  std::vector<std::vector<int>> system_out_;          // graph: system node -> outgoing system links
  std::vector<int> system_rank_;                      // graph: system node -> index in GraphTopology::nodes

  // Core granularity.
  std::vector<int> first_core_node_;                  // per device: node id of core 0
  std::vector<int> core_count_;                       // per device
  std::vector<int> memory_node_;                      // per device, -1 if none
  std::vector<int> bus_node_;                         // per device, -1 if none
  std::vector<int> link_src_core_, link_dst_core_;    // per system link: attach core at each end (-1: not a chip)
  std::vector<std::vector<int>> ring_plus_, ring_minus_;  // per device: on-chip link core i -> i+1 / i -> i-1
  std::vector<std::vector<int>> bus_up_, bus_down_;   // per device: core -> bus / bus -> core
  std::vector<int> memory_up_, memory_down_;          // per device: memory -> core 0 / core 0 -> memory
};

}  // namespace partsim::topology
