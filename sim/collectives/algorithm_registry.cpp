#include "sim/collectives/algorithm_registry.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "sim/common/error.hpp"
#include "sim/common/text.hpp"

namespace partsim::collectives {

bool Algorithm::implements(const std::string& collective) const {
  return std::find(collectives.begin(), collectives.end(), collective) != collectives.end();
}

std::string Algorithm::why_not(const Participants& who, const topology::TopologyGraph& graph) const {
  return cannot_run ? cannot_run(who, graph) : std::string();
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

std::vector<std::string> named_algorithms(const std::string& name, const std::string& collective) {
  std::vector<std::string> names;
  if (name == "auto") {
    for (const Algorithm& a : algorithm_registry().list())
      if (a.implements(collective)) names.push_back(a.name);
    return names;
  }
  std::size_t start = 0;
  while (start <= name.size()) {
    const std::size_t comma = std::min(name.find(',', start), name.size());
    std::string item = name.substr(start, comma - start);
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    if (!item.empty()) names.push_back(algorithm_registry().find(item).name);  // throws for an unknown name
    start = comma + 1;
  }
  return names;
}

namespace {

/// The protocols to choose among: the platform's, or one that adds nothing.
std::vector<topology::CollectiveProtocol> protocols_of(const topology::CollectiveSettings& settings) {
  if (!settings.protocols.empty()) return settings.protocols;
  return {topology::CollectiveProtocol{}};
}

}  // namespace

Choice choose(const std::string& collective, double bytes, const std::string& requested, const Participants& who,
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
  const std::vector<std::string> names = named_algorithms(name, collective);
  if (names.empty()) throw InputError(from + ": '" + name + "' names no algorithm");
  const bool single = names.size() == 1 && name != "auto";
  std::vector<const Algorithm*> runnable;
  std::string reasons;
  for (const std::string& n : names) {
    const Algorithm& a = algorithm_registry().find(n);
    if (!a.implements(collective)) {
      if (name != "auto")
        throw InputError(from + ": algorithm '" + n + "' does not implement " + collective + " (it implements " +
                         join(a.collectives, [](const std::string& c) { return c; }) + ")");
      continue;
    }
    if (std::string why = a.why_not(who, graph); !why.empty()) {
      if (single) throw InputError(why);
      reasons += (reasons.empty() ? "" : "; ") + why;
      continue;
    }
    runnable.push_back(&a);
  }
  if (runnable.empty())
    throw InputError(from + ": none of '" + name + "' can run " + collective + " here: " + reasons);
  const auto protocols = protocols_of(graph.spec().collectives);
  Choice best{runnable.front(), protocols.front(), 0};
  if (runnable.size() == 1 && protocols.size() == 1) return best;  // nothing to weigh
  const Fabric fabric = fabric_of(who, graph);
  double best_s = std::numeric_limits<double>::infinity();
  for (const Algorithm* a : runnable)
    for (const auto& protocol : protocols) {
      const double t = formula_time(*a, protocol, collective, bytes, with_protocol(fabric, protocol));
      if (t < best_s) {
        best_s = t;
        best = {a, protocol, t};
      }
    }
  return best;
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
  if (who.devices.size() > 2) {
    const auto& d = who.devices;
    const auto next = graph.device_route(d[0], d[1]);
    const auto previous = graph.device_route(d[0], d.back());
    f.ring_shares_port = !next.empty() && !previous.empty() && next.front() == previous.front();
  }
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
  f.in_switch_efficiency = settings.in_switch_efficiency;
  f.domains_reduce = !domains.empty() && !graph.spec().is_torus() &&
                     std::all_of(domains.begin(), domains.end(), [&](const std::vector<int>& d) {
                       return d.size() > 1 && on_reducing_switch(d, graph);
                     });
  return f;
}

Fabric with_protocol(Fabric fabric, const topology::CollectiveProtocol& protocol) {
  for (LinkCost* c : {&fabric.link, &fabric.intra, &fabric.inter}) {
    c->alpha += protocol.step_latency;
    c->bandwidth *= protocol.efficiency;
  }
  for (AxisRing& axis : fabric.axes) {
    axis.latency += protocol.step_latency;
    axis.bandwidth *= protocol.efficiency;
  }
  return fabric;
}

double formula_time(const Algorithm& algorithm, const topology::CollectiveProtocol& protocol,
                    const std::string& collective, double bytes, const Fabric& fabric) {
  if (fabric.p < 2) return 0;
  return protocol.base_latency + algorithm.formula(collective, bytes, fabric);
}

bool on_reducing_switch(const std::vector<int>& members, const topology::TopologyGraph& graph) {
  const auto& spec = graph.spec();
  if (spec.is_torus() || members.empty()) return false;
  const auto& nodes = spec.graph().nodes;
  auto reduces = [&](const std::string& name) {
    const auto it = std::find_if(nodes.begin(), nodes.end(), [&](const auto& n) { return n.name == name; });
    return it != nodes.end() && it->kind == topology::NodeKind::switch_node && it->in_switch_reduction;
  };
  // The reducing switches the first member is linked to, then the devices each of them links.
  const std::string& first = spec.device_names.at(static_cast<std::size_t>(members.front()));
  std::set<std::string> candidates;
  for (const auto& link : spec.graph().links) {
    if (link.a == first && reduces(link.b)) candidates.insert(link.b);
    if (link.b == first && reduces(link.a)) candidates.insert(link.a);
  }
  for (const std::string& sw : candidates) {
    std::set<int> linked;
    for (const auto& link : spec.graph().links) {
      if (link.a == sw) linked.insert(spec.device_index(link.b));
      if (link.b == sw) linked.insert(spec.device_index(link.a));
    }
    if (std::all_of(members.begin(), members.end(), [&](int d) { return linked.contains(d); })) return true;
  }
  return false;
}

Schedule build_with(const Choice& choice, const std::string& collective, double bytes, const Participants& who,
                    const topology::TopologyGraph& graph) {
  const auto& settings = graph.spec().collectives;
  const Algorithm& algorithm = *choice.algorithm;  // its builder refuses participants it cannot run on
  Fabric fabric;
  if (algorithm.reads_fabric) fabric = with_protocol(fabric_of(who, graph), choice.protocol);
  Schedule s = algorithm.build(BuildInput{collective, bytes, who, graph, settings,
                                          algorithm.reads_fabric ? &fabric : nullptr});
  const double efficiency = settings.protocol_efficiency * choice.protocol.efficiency;
  if (efficiency > 0 && efficiency < 1)
    for (Transfer& t : s.transfers) t.bytes /= efficiency;
  s.step_overhead_s = settings.endpoint_overhead + choice.protocol.step_latency;
  s.start_overhead_s = choice.protocol.base_latency;
  s.what = {kind_named(collective).value_or(Kind::unnamed), algorithm.name};
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
  return build_with(choose(collective, bytes, requested, who, graph), collective, bytes, who, graph);
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
