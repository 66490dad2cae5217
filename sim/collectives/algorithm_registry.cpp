#include "sim/collectives/algorithm_registry.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/common/error.hpp"
#include "sim/common/text.hpp"

namespace partsim::collectives {

bool Algorithm::implements(const std::string& collective) const {
  return std::find(collectives.begin(), collectives.end(), collective) != collectives.end();
}

void AlgorithmRegistry::add(Algorithm algorithm) {
  if (algorithm.name.empty() || !algorithm.build || !algorithm.formula || algorithm.collectives.empty())
    throw Error("collective algorithm '" + algorithm.name + "' needs a name, collectives, a builder and a formula");
  if (contains(algorithm.name)) throw Error("collective algorithm '" + algorithm.name + "' is registered twice");
  algorithms_.push_back(std::move(algorithm));
}

bool AlgorithmRegistry::contains(const std::string& name) const {
  return std::any_of(algorithms_.begin(), algorithms_.end(), [&](const Algorithm& a) { return a.name == name; });
}

const Algorithm& AlgorithmRegistry::find(const std::string& name) const {
  for (const Algorithm& a : algorithms_)
    if (a.name == name) return a;
  throw UnknownNameError("collective algorithm", name, join(algorithms_, [](const Algorithm& a) { return a.name; }));
}

namespace {

/// The platform's default for the collective, if the file names one ("all_reduce.x" first).
std::string platform_default(const std::string& collective, const std::string& axis,
                             const topology::CollectiveSettings& settings) {
  if (!axis.empty() && axis != "all") {
    if (auto it = settings.algorithm.find(collective + "." + axis); it != settings.algorithm.end()) return it->second;
  }
  if (auto it = settings.algorithm.find(collective); it != settings.algorithm.end()) return it->second;
  return "";
}

}  // namespace

const Algorithm& choose_algorithm(const std::string& collective, const std::string& requested, const Participants& who,
                                  const topology::TopologyGraph& graph, const std::string& axis) {
  std::string name = requested;
  std::string from = "--algorithm";
  if (name.empty()) {
    name = platform_default(collective, axis, graph.spec().collectives);
    from = "system.collectives.algorithm." + collective;
  }
  if (name.empty()) {
    name = who.torus_axes.empty() ? "ring" : "torus";
    from = "the built-in default";
  }
  const Algorithm& a = algorithm_registry().find(name);
  if (!a.implements(collective))
    throw InputError(from + ": algorithm '" + name + "' does not implement " + collective + " (it implements " +
                     join(a.collectives, [](const std::string& c) { return c; }) + ")");
  return a;
}

std::vector<std::vector<int>> locality_domains(const std::vector<int>& devices, const topology::TopologyGraph& graph) {
  std::vector<std::vector<int>> domains;
  if (devices.empty()) return domains;
  const auto& spec = graph.spec();
  if (spec.cluster) {  // the expansion's nodes: device = node x gpus_per_node + gpu
    const int q = std::max(1, spec.cluster->gpus_per_node);
    std::vector<int> node_of_domain;
    for (int d : devices) {
      const int node = d / q;
      auto it = std::find(node_of_domain.begin(), node_of_domain.end(), node);
      if (it == node_of_domain.end()) {
        node_of_domain.push_back(node);
        domains.emplace_back();
        it = node_of_domain.end() - 1;
      }
      domains[static_cast<std::size_t>(it - node_of_domain.begin())].push_back(d);
    }
    return domains;
  }
  // Any graph: the slowest route bandwidth among the participants marks the links between domains;
  // a member joins the first domain whose first member it reaches faster than that.
  double slowest = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < devices.size(); ++i)
    for (std::size_t j = i + 1; j < devices.size(); ++j)
      slowest = std::min(slowest, graph.route_bandwidth(graph.device_route(devices[i], devices[j])));
  for (int d : devices) {
    bool placed = false;
    for (auto& domain : domains)
      if (graph.route_bandwidth(graph.device_route(domain.front(), d)) > slowest) {
        domain.push_back(d);
        placed = true;
        break;
      }
    if (!placed) domains.push_back({d});
  }
  // A uniform fabric (every route as slow as the slowest): one domain.
  if (domains.size() == devices.size() && devices.size() > 1) return {devices};
  return domains;
}

namespace {

LinkCost link_between(const std::vector<std::pair<int, int>>& pairs, const topology::TopologyGraph& graph) {
  const auto& settings = graph.spec().collectives;
  LinkCost c;
  double bandwidth = std::numeric_limits<double>::infinity();
  for (const auto& [a, b] : pairs) {
    if (a == b) continue;
    topology::Route route;
    for (int l : graph.device_route(a, b))
      if (graph.link(l).kind == topology::TopoLinkKind::chip_to_chip) route.push_back(l);
    c.alpha = std::max(c.alpha, graph.route_latency(route));
    bandwidth = std::min(bandwidth, graph.route_bandwidth(route));
  }
  c.alpha += settings.endpoint_overhead;
  c.bandwidth = std::isfinite(bandwidth) ? bandwidth * settings.protocol_efficiency : 0;
  return c;
}

}  // namespace

Fabric fabric_of(const Participants& who, const topology::TopologyGraph& graph) {
  Fabric f;
  const auto& settings = graph.spec().collectives;
  f.p = static_cast<int>(who.devices.size());
  f.channels = settings.channels;
  f.chunk_bytes = settings.chunk_bytes;
  std::vector<std::pair<int, int>> ring;
  for (std::size_t i = 0; i < who.devices.size(); ++i)
    ring.emplace_back(who.devices[i], who.devices[(i + 1) % who.devices.size()]);
  f.link = link_between(ring, graph);
  if (!who.torus_axes.empty()) {
    const auto& t = graph.spec().torus();
    for (int k : who.torus_axes)
      f.axes.push_back({graph.dim_size(k), t.latency.at(static_cast<std::size_t>(k)) + settings.endpoint_overhead,
                        t.bandwidth.at(static_cast<std::size_t>(k)) * settings.protocol_efficiency, t.bidirectional});
  }
  // Locality domains are not looked for among a torus's axes (the torus algorithm reads the axes).
  const auto domains = !who.domains.empty() ? who.domains
                       : who.torus_axes.empty() ? locality_domains(who.devices, graph)
                                                : std::vector<std::vector<int>>{who.devices};
  f.domains = static_cast<int>(domains.size());
  f.domain_size = domains.empty() ? 0 : static_cast<int>(domains.front().size());
  std::vector<std::pair<int, int>> intra, inter;
  for (const auto& d : domains)
    for (std::size_t i = 0; i < d.size(); ++i) intra.emplace_back(d[i], d[(i + 1) % d.size()]);
  for (std::size_t k = 0; k < domains.size(); ++k)
    for (std::size_t i = 0; i < domains[k].size() && i < domains[(k + 1) % domains.size()].size(); ++i)
      inter.emplace_back(domains[k][i], domains[(k + 1) % domains.size()][i]);
  f.intra = link_between(intra, graph);
  f.inter = link_between(inter, graph);
  return f;
}

Schedule build_with(const Algorithm& algorithm, const std::string& collective, double bytes, const Participants& who,
                    const topology::TopologyGraph& graph) {
  const auto& settings = graph.spec().collectives;
  Schedule s = algorithm.build(BuildInput{collective, bytes, who, graph, settings});
  if (settings.protocol_efficiency > 0 && settings.protocol_efficiency < 1)
    for (Transfer& t : s.transfers) t.bytes /= settings.protocol_efficiency;
  s.step_overhead_s = settings.endpoint_overhead;
  return s;
}

Participants participants_of(const std::vector<int>& devices, const topology::TopologyGraph& graph) {
  Participants who;
  who.devices = devices;
  if (graph.is_torus() && static_cast<int>(devices.size()) == graph.device_count())
    for (int k = 0; k < graph.dimensions(); ++k)
      if (graph.dim_size(k) > 1) who.torus_axes.push_back(k);
  return who;
}

Schedule collective_schedule(const std::string& collective, const std::vector<int>& devices, double bytes,
                             const std::string& requested, const topology::TopologyGraph& graph) {
  const Participants who = participants_of(devices, graph);
  return build_with(choose_algorithm(collective, requested, who, graph), collective, bytes, who, graph);
}

int ring_pass(Schedule& s, const std::vector<std::vector<int>>& rings, double bytes, bool bidirectional, int step0) {
  int steps = 0;
  for (const auto& ring : rings) steps = std::max(steps, static_cast<int>(ring.size()) - 1);
  for (int k = 0; k < steps; ++k) {
    for (const auto& ring : rings) {
      const int p = static_cast<int>(ring.size());
      if (k >= p - 1) continue;
      const int dirs = bidirectional && p > 2 ? 2 : 1;
      const double chunk = bytes / (p * dirs);
      for (int dir = 0; dir < dirs; ++dir)
        for (int i = 0; i < p; ++i) s.add(ring[i], ring[(i + (dir == 0 ? 1 : p - 1)) % p], chunk, step0 + k);
    }
  }
  return steps;
}

}  // namespace partsim::collectives
