#include "topology/topology_graph.hpp"

#include "topology/topology_boost_graph.hpp"

#include <boost/graph/dijkstra_shortest_paths.hpp>
#include <boost/graph/strong_components.hpp>
#include <boost/property_map/property_map.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>

#include "sim/common/error.hpp"
#include "sim/common/text.hpp"

namespace partsim::topology {

/// Distances to destinations of a graph system, computed when first asked for. Bounded: when the
/// cached vectors would hold more than kMaxDoubles distances (256 MiB) they are all dropped and
/// computed again as needed (a route to every destination of a 10^4-GPU cluster would otherwise keep
/// 10^8 of them).
struct TopologyGraph::DistanceCache {
  using WeightedGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, boost::no_property,
                                              boost::property<boost::edge_weight_t, double>>;
  static constexpr std::size_t kMaxDoubles = std::size_t{32} << 20;

  explicit DistanceCache(std::size_t system_nodes) : reversed(system_nodes), to(system_nodes) {}

  WeightedGraph reversed;  // every link reversed, weight 1/bandwidth (s/B)
  std::mutex mutex;        // routes may be asked for from several threads
  std::vector<std::shared_ptr<const std::vector<double>>> to;  // per destination system node
  std::size_t cached_doubles = 0;
};

std::shared_ptr<const std::vector<double>> TopologyGraph::distances_to(int dst) const {
  DistanceCache& cache = *distances_;
  const std::lock_guard<std::mutex> lock(cache.mutex);
  auto& slot = cache.to.at(static_cast<size_t>(dst));
  if (slot) return slot;
  const size_t n = static_cast<size_t>(system_node_count_);
  auto dist = std::make_shared<std::vector<double>>(n, std::numeric_limits<double>::infinity());
  boost::dijkstra_shortest_paths(
      cache.reversed, static_cast<DistanceCache::WeightedGraph::vertex_descriptor>(dst),
      boost::distance_map(boost::make_iterator_property_map(dist->begin(), boost::get(boost::vertex_index, cache.reversed))));
  if (cache.cached_doubles + n > DistanceCache::kMaxDoubles) {
    for (auto& cached : cache.to) cached.reset();
    cache.cached_doubles = 0;
  }
  cache.cached_doubles += n;
  slot = std::move(dist);
  return slot;
}

namespace {

std::string dim_label(int dim) {
  static const char* const names[] = {"x", "y", "z", "w"};
  return dim < 4 ? names[dim] : "d" + std::to_string(dim);
}

}  // namespace

Granularity parse_granularity(const std::string& text) {
  if (text == "chip") return Granularity::chip;
  if (text == "core") return Granularity::core;
  throw UnknownNameError("granularity", text, "chip, core");
}

std::string to_string(Granularity g) { return g == Granularity::chip ? "chip" : "core"; }

TopologyGraph::TopologyGraph(const SystemSpec& spec, Granularity granularity)
    : spec_(spec), granularity_(granularity) {
  const int n = spec_.device_count();
  if (n < 1) throw InputError("system '" + spec_.name + "' has no devices");

  // Device nodes: one per device, or its cores (+ memory, + bus) at core granularity.
  first_core_node_.assign(n, -1);
  core_count_.assign(n, 1);
  memory_node_.assign(n, -1);
  bus_node_.assign(n, -1);
  // Node names: the spec's device names (also the graph's node names), else dev<i>.
  std::vector<std::string> device_names(n);
  for (int d = 0; d < n; ++d)
    device_names[d] = static_cast<int>(spec_.device_names.size()) == n && !spec_.device_names[d].empty()
                          ? spec_.device_names[d]
                          : "dev" + std::to_string(d);
  if (!spec_.is_torus()) {
    int d = 0;
    for (const auto& gn : spec_.graph().nodes)
      if (gn.kind == NodeKind::device) device_names.at(d++) = gn.name;
  }
  device_names_ = device_names;
  for (int d = 0; d < n; ++d) {
    const auto* chip = std::get_if<TemplateDevice>(&spec_.device_type(d).model);
    if (granularity_ == Granularity::core && chip != nullptr && chip->cores > 0) {
      core_count_[d] = chip->cores;
      for (int c = 0; c < chip->cores; ++c) {
        int id = add_node({device_names[d] + ".core" + std::to_string(c), TopoNodeKind::core, d, c});
        if (c == 0) first_core_node_[d] = id;
      }
      memory_node_[d] = add_node({device_names[d] + ".mem", TopoNodeKind::memory, d, -1});
      if (chip->interconnect == OnChipInterconnect::split_bus)
        bus_node_[d] = add_node({device_names[d] + ".bus", TopoNodeKind::bus, d, -1});
    } else {
      first_core_node_[d] = add_node({device_names[d], TopoNodeKind::device, d, -1});
    }
  }
  system_node_to_node_.assign(first_core_node_.begin(), first_core_node_.end());

  if (spec_.is_torus())
    build_torus_system();
  else
    build_graph_system();
  system_link_count_ = link_count();
  if (granularity_ == Granularity::core) build_cores();

  // The Boost graph mirrors nodes_ and links_ (edge index = link id).
  auto graph = std::make_shared<BoostGraph>(nodes_.size());
  for (int id = 0; id < link_count(); ++id) boost::add_edge(links_[id].src, links_[id].dst, id, static_cast<TopologyBoostGraphBase&>(*graph));
  graph_ = std::move(graph);
}

const TopologyGraph::BoostGraph& TopologyGraph::boost_graph() const { return *graph_; }

int TopologyGraph::add_node(TopoNode n) {
  nodes_.push_back(std::move(n));
  return node_count() - 1;
}

int TopologyGraph::add_link(TopoLink l) {
  links_.push_back(std::move(l));
  return link_count() - 1;
}

void TopologyGraph::add_link_pair(TopoLink forward) {
  TopoLink back = forward;
  std::swap(back.src, back.dst);
  back.direction = -forward.direction;
  back.name = nodes_[back.src].name + "->" + nodes_[back.dst].name;
  int f = add_link(std::move(forward));
  int b = add_link(std::move(back));
  links_[f].reverse = b;
  links_[b].reverse = f;
}

// ---- torus ------------------------------------------------------------------------------------

void TopologyGraph::build_torus_system() {
  const auto& t = spec_.torus();
  const int n = spec_.device_count();
  const int ndims = static_cast<int>(t.dims.size());
  system_node_count_ = n;
  plus_link_.assign(ndims, std::vector<int>(n, -1));
  minus_link_.assign(ndims, std::vector<int>(n, -1));

  // Port core where a chip-to-chip link of (dim, direction) attaches, at core granularity.
  const int ports = 2 * ndims;
  auto port_node = [&](int device, int dim, int dir) {
    int c = core_count_[device];
    int port = 2 * dim + (dir < 0 ? 1 : 0);
    return first_core_node_[device] + port * c / ports;
  };
  auto make = [&](int from, int to, int dim, int dir) {
    TopoLink l;
    l.src = port_node(from, dim, dir);
    l.dst = port_node(to, dim, -dir);  // a + link enters its destination through the - port
    l.name = nodes_[l.src].name + "->" + nodes_[l.dst].name;
    l.physical = device_names_[std::min(from, to)] + "-" + device_names_[std::max(from, to)] + "." + dim_label(dim);
    l.bandwidth = t.bandwidth.at(dim);
    l.latency = t.latency.at(dim);
    l.kind = TopoLinkKind::chip_to_chip;
    l.dimension = dim;
    l.direction = dir;
    return l;
  };
  for (int dim = 0; dim < ndims; ++dim) {
    const int size = t.dims[dim];
    if (size < 2) continue;
    for (int d = 0; d < n; ++d) {
      auto c = coordinates(d);
      c[dim] = (c[dim] + 1) % size;
      const int next = device_at(c);
      if (size == 2) {
        // One neighbour, one physical link: 0 -> 1 is its UP half, 1 -> 0 its DOWN half (which,
        // at core granularity, leaves 1 through the - port the UP half entered by).
        if (c[dim] == 1) {
          int f = link_count();
          add_link_pair(make(d, next, dim, +1));
          plus_link_[dim][d] = f;
          plus_link_[dim][next] = f + 1;
        }
      } else if (t.bidirectional) {
        TopoLink f = make(d, next, dim, +1);
        int id = link_count();
        add_link_pair(f);
        // add_link_pair: the - half leaves `next` through its - port and enters `d` at its + port.
        plus_link_[dim][d] = id;
        minus_link_[dim][next] = id + 1;
      } else {
        plus_link_[dim][d] = add_link(make(d, next, dim, +1));
      }
    }
  }
  system_link_src_.resize(links_.size());
  system_link_dst_.resize(links_.size());
  for (std::size_t id = 0; id < links_.size(); ++id) {
    system_link_src_[id] = nodes_[links_[id].src].device;
    system_link_dst_[id] = nodes_[links_[id].dst].device;
  }
}

int TopologyGraph::dimensions() const {
  return spec_.is_torus() ? static_cast<int>(spec_.torus().dims.size()) : 0;
}

int TopologyGraph::dim_size(int dim) const {
  if (!spec_.is_torus()) throw Error("dim_size: system '" + spec_.name + "' is not a torus");
  return spec_.torus().dims.at(dim);
}

std::vector<int> TopologyGraph::coordinates(int device) const {
  const auto& dims = spec_.torus().dims;
  std::vector<int> c(dims.size());
  for (std::size_t k = 0; k < dims.size(); ++k) {
    c[k] = device % dims[k];
    device /= dims[k];
  }
  return c;
}

int TopologyGraph::device_at(const std::vector<int>& coords) const {
  const auto& dims = spec_.torus().dims;
  int index = 0;
  for (std::size_t k = dims.size(); k-- > 0;) index = index * dims[k] + coords.at(k);
  return index;
}

std::vector<int> TopologyGraph::axis_ring(int device, int dim) const {
  auto c = coordinates(device);
  std::vector<int> ring;
  for (int i = 0; i < dim_size(dim); ++i) {
    c[dim] = i;
    ring.push_back(device_at(c));
  }
  return ring;
}

std::vector<std::vector<int>> TopologyGraph::axis_rings(int dim) const {
  std::vector<std::vector<int>> rings;
  for (int d = 0; d < device_count(); ++d)
    if (coordinates(d)[dim] == 0) rings.push_back(axis_ring(d, dim));
  return rings;
}

// ---- graph ------------------------------------------------------------------------------------

void TopologyGraph::build_graph_system() {
  const auto& g = spec_.graph();
  // System node ids: devices in order of appearance, then switches and hosts in order.
  std::map<std::string, int> system_id;
  int next_device = 0;
  std::vector<const GraphNode*> others;
  std::vector<int> other_rank;
  system_rank_.clear();
  for (int i = 0; i < static_cast<int>(g.nodes.size()); ++i) {
    const auto& gn = g.nodes[i];
    if (gn.kind == NodeKind::device) {
      system_id[gn.name] = next_device++;
      system_rank_.push_back(i);
    } else {
      others.push_back(&gn);
      other_rank.push_back(i);
    }
  }
  system_rank_.insert(system_rank_.end(), other_rank.begin(), other_rank.end());
  system_node_count_ = next_device;
  for (const auto* gn : others) {
    system_id[gn->name] = system_node_count_++;
    int id = add_node({gn->name, gn->kind == NodeKind::host ? TopoNodeKind::host : TopoNodeKind::switch_node, -1, -1});
    system_node_to_node_.push_back(id);
  }

  std::map<std::string, int> physical_count;
  for (const auto& gl : g.links) {
    auto ia = system_id.find(gl.a);
    auto ib = system_id.find(gl.b);
    if (ia == system_id.end() || ib == system_id.end())
      throw InputError("graph link " + gl.a + " - " + gl.b + " names an unknown node");
    TopoLink l;
    // Graph links of a template chip attach to its core 0 (first_core_node_ is the device node at
    // chip granularity).
    l.src = system_node_to_node_[ia->second];
    l.dst = system_node_to_node_[ib->second];
    l.name = nodes_[l.src].name + "->" + nodes_[l.dst].name;
    l.physical = gl.a + "-" + gl.b;
    int dup = physical_count[l.physical]++;
    if (dup > 0) {
      l.physical += "#" + std::to_string(dup);
      l.name += "#" + std::to_string(dup);
    }
    l.bandwidth = gl.bandwidth;
    l.latency = gl.latency;
    l.kind = TopoLinkKind::chip_to_chip;
    if (gl.directed) {
      add_link(std::move(l));
    } else {
      int id = link_count();
      add_link_pair(std::move(l));
      if (dup > 0) links_[id + 1].name += "#" + std::to_string(dup);
    }
  }
  // System-level adjacency and link ends.
  std::map<int, int> node_to_system;
  for (int s = 0; s < system_node_count_; ++s) node_to_system[system_node_to_node_[s]] = s;
  system_out_.assign(system_node_count_, {});
  system_link_src_.resize(links_.size());
  system_link_dst_.resize(links_.size());
  for (std::size_t id = 0; id < links_.size(); ++id) {
    system_link_src_[id] = node_to_system.at(links_[id].src);
    system_link_dst_[id] = node_to_system.at(links_[id].dst);
    system_out_[system_link_src_[id]].push_back(static_cast<int>(id));
  }

  // Every system node must reach every other (one strongly connected component); the distances
  // themselves are computed per destination when first needed (distances_to).
  distances_ = std::make_shared<DistanceCache>(static_cast<size_t>(system_node_count_));
  for (std::size_t id = 0; id < links_.size(); ++id)
    boost::add_edge(system_link_dst_[id], system_link_src_[id], 1.0 / links_[id].bandwidth, distances_->reversed);
  std::vector<int> component(static_cast<size_t>(system_node_count_));
  if (system_node_count_ > 0 && boost::strong_components(distances_->reversed, component.data()) > 1) {
    // Name one pair without a path: node 0 and the first node outside its component, in the
    // direction that is missing (breadth-first from node 0 over the links).
    std::vector<char> reached(static_cast<size_t>(system_node_count_), 0);
    std::vector<int> frontier{0};
    reached[0] = 1;
    while (!frontier.empty()) {
      const int u = frontier.back();
      frontier.pop_back();
      for (int l : system_out_[static_cast<size_t>(u)])
        if (!reached[static_cast<size_t>(system_link_dst_[l])]) {
          reached[static_cast<size_t>(system_link_dst_[l])] = 1;
          frontier.push_back(system_link_dst_[l]);
        }
    }
    for (int s = 1; s < system_node_count_; ++s) {
      if (component[static_cast<size_t>(s)] == component[0]) continue;
      const std::string& first = nodes_[system_node_to_node_[0]].name;
      const std::string& other = nodes_[system_node_to_node_[s]].name;
      throw InputError("system '" + spec_.name + "': no path from " + (reached[static_cast<size_t>(s)] ? other : first) +
                       " to " + (reached[static_cast<size_t>(s)] ? first : other));
    }
  }
}

// ---- cores ------------------------------------------------------------------------------------

void TopologyGraph::build_cores() {
  const int n = device_count();
  ring_plus_.assign(n, {});
  ring_minus_.assign(n, {});
  bus_up_.assign(n, {});
  bus_down_.assign(n, {});
  memory_up_.assign(n, -1);
  memory_down_.assign(n, -1);
  for (int d = 0; d < n; ++d) {
    if (memory_node_[d] < 0) continue;  // not a template chip at core granularity
    const auto& chip = std::get<TemplateDevice>(spec_.device_type(d).model);
    const int cores = core_count_[d];
    const int core0 = first_core_node_[d];
    auto on_chip = [&](int a, int b, double bandwidth, double latency, TopoLinkKind kind, int direction) {
      TopoLink l;
      l.src = a;
      l.dst = b;
      l.name = nodes_[a].name + "->" + nodes_[b].name;
      l.physical = nodes_[a].name + "-" + nodes_[b].name;
      l.bandwidth = bandwidth;
      l.latency = latency;
      l.kind = kind;
      l.direction = direction;
      return l;
    };
    if (chip.interconnect == OnChipInterconnect::ring) {
      ring_plus_[d].assign(cores, -1);
      ring_minus_[d].assign(cores, -1);
      if (cores == 2) {
        int f = add_link(on_chip(core0, core0 + 1, chip.core_to_core_bandwidth, chip.on_chip_latency,
                                 TopoLinkKind::on_chip, +1));
        int b = add_link(on_chip(core0 + 1, core0, chip.core_to_core_bandwidth, chip.on_chip_latency,
                                 TopoLinkKind::on_chip, +1));
        links_[b].physical = links_[f].physical;
        links_[f].reverse = b;
        links_[b].reverse = f;
        ring_plus_[d] = {f, b};
      } else if (cores > 2) {
        for (int c = 0; c < cores; ++c) {
          int next = (c + 1) % cores;
          int id = link_count();
          add_link_pair(on_chip(core0 + c, core0 + next, chip.core_to_core_bandwidth, chip.on_chip_latency,
                                TopoLinkKind::on_chip, +1));
          ring_plus_[d][c] = id;
          ring_minus_[d][next] = id + 1;
        }
      }
    } else {
      bus_up_[d].assign(cores, -1);
      bus_down_[d].assign(cores, -1);
      for (int c = 0; c < cores; ++c) {
        int id = link_count();
        add_link_pair(on_chip(core0 + c, bus_node_[d], chip.core_to_core_bandwidth, chip.on_chip_latency,
                              TopoLinkKind::on_chip, 0));
        bus_up_[d][c] = id;
        bus_down_[d][c] = id + 1;
      }
    }
    // External memory on core 0's ring stop, at the achieved bandwidth (seed 003 §IV: 80 % of peak).
    int id = link_count();
    add_link_pair(on_chip(memory_node_[d], core0, chip.effective_memory_bandwidth(), chip.memory_latency,
                          TopoLinkKind::memory, 0));
    memory_up_[d] = id;
    memory_down_[d] = id + 1;
  }
}

int TopologyGraph::cores_of(int device) const { return core_count_.at(device); }

int TopologyGraph::endpoint(int device, int core) const {
  if (core < 0 || core >= core_count_.at(device))
    throw Error("device " + std::to_string(device) + " has no core " + std::to_string(core));
  return first_core_node_[device] + core;
}

int TopologyGraph::memory_node(int device) const { return memory_node_.at(device); }

const DeviceGroup& TopologyGraph::group(const std::string& name) const {
  if (const auto* g = spec_.find_group(name)) return *g;
  throw UnknownNameError("group", name, join(spec_.groups, [](const auto& g) { return g.name; }));
}

// ---- routing ----------------------------------------------------------------------------------

Route TopologyGraph::system_route(int src, int dst) const {
  Route r;
  if (src == dst) return r;
  if (spec_.is_torus()) {
    const auto& t = spec_.torus();
    auto cur = coordinates(src);
    const auto target = coordinates(dst);
    for (std::size_t k = 0; k < t.dims.size(); ++k) {
      const int size = t.dims[k];
      const int plus = (target[k] - cur[k] + size) % size;
      const int minus = size - plus;
      const bool go_plus = !t.bidirectional || size == 2 || plus <= minus;  // ties towards +
      for (int h = 0, steps = go_plus ? plus : minus; h < steps; ++h) {
        int here = device_at(cur);
        r.push_back(go_plus ? plus_link_[k][here] : minus_link_[k][here]);
        cur[k] = (cur[k] + (go_plus ? 1 : size - 1)) % size;
      }
    }
    return r;
  }
  // Graph: walk the shortest-path DAG towards dst, lowest next-node index (position in the file's
  // node list) first, then lowest link id.
  const std::shared_ptr<const std::vector<double>> distances = distances_to(dst);
  const std::vector<double>& dist = *distances;
  int u = src;
  while (u != dst) {
    int best = -1;
    for (int l : system_out_[u]) {
      int v = system_link_dst_[l];
      double via = 1.0 / links_[l].bandwidth + dist[v];
      if (std::abs(via - dist[u]) > 1e-9 * dist[u]) continue;
      if (best < 0 || system_rank_[v] < system_rank_[system_link_dst_[best]]) best = l;
    }
    if (best < 0) throw Error("route: no path from system node " + std::to_string(src));
    r.push_back(best);
    u = system_link_dst_[best];
  }
  return r;
}

int TopologyGraph::device_of(int node) const { return nodes_.at(node).device; }

Route TopologyGraph::on_chip_route(int device, int from, int to) const {
  Route r;
  if (from == to || device < 0 || memory_node_[device] < 0) return r;
  const int core0 = first_core_node_[device];
  if (nodes_[from].kind == TopoNodeKind::memory) {
    r.push_back(memory_up_[device]);
    Route rest = on_chip_route(device, core0, to);
    r.insert(r.end(), rest.begin(), rest.end());
    return r;
  }
  if (nodes_[to].kind == TopoNodeKind::memory) {
    r = on_chip_route(device, from, core0);
    r.push_back(memory_down_[device]);
    return r;
  }
  const int a = nodes_[from].core;
  const int b = nodes_[to].core;
  const int cores = core_count_[device];
  if (!bus_up_[device].empty()) return {bus_up_[device][a], bus_down_[device][b]};
  const int plus = (b - a + cores) % cores;
  const int minus = cores - plus;
  const bool go_plus = cores == 2 || plus <= minus;  // ties towards +, as on the torus
  int c = a;
  for (int h = 0, steps = go_plus ? plus : minus; h < steps; ++h) {
    r.push_back(go_plus ? ring_plus_[device][c] : ring_minus_[device][c]);
    c = (c + (go_plus ? 1 : cores - 1)) % cores;
  }
  return r;
}

Route TopologyGraph::route(int src, int dst) const {
  if (src < 0 || src >= node_count() || dst < 0 || dst >= node_count())
    throw Error("route: node id out of range");
  if (!nodes_[src].is_endpoint() || !nodes_[dst].is_endpoint())
    throw Error("route: " + nodes_[src].name + " or " + nodes_[dst].name + " is not an endpoint");
  auto system_of = [&](int node) {
    if (nodes_[node].device >= 0) return nodes_[node].device;
    for (int s = system_node_count_ - 1; s >= 0; --s)
      if (system_node_to_node_[s] == node) return s;
    throw Error("route: node " + nodes_[node].name + " is not on the system graph");
  };
  const int sa = system_of(src);
  const int sb = system_of(dst);
  if (sa == sb) return on_chip_route(device_of(src), src, dst);
  Route r;
  int cur = src;
  for (int l : system_route(sa, sb)) {
    Route inside = on_chip_route(device_of(cur), cur, links_[l].src);
    r.insert(r.end(), inside.begin(), inside.end());
    r.push_back(l);
    cur = links_[l].dst;
  }
  Route inside = on_chip_route(device_of(cur), cur, dst);
  r.insert(r.end(), inside.begin(), inside.end());
  return r;
}

int TopologyGraph::hops(int src_device, int dst_device) const {
  return static_cast<int>(system_route(src_device, dst_device).size());
}

double TopologyGraph::route_latency(const Route& r) const {
  double s = 0;
  for (int l : r) s += links_.at(l).latency;
  return s;
}

double TopologyGraph::route_bandwidth(const Route& r) const {
  double b = std::numeric_limits<double>::infinity();
  for (int l : r) b = std::min(b, links_.at(l).bandwidth);
  return b;
}

}  // namespace partsim::topology
