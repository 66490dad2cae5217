#include "sim/collectives/collectives.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "sim/common/error.hpp"
#include "sim/common/text.hpp"

namespace partsim::collectives {

namespace {

using topology::TopologyGraph;

const std::vector<CollectiveInfo> kCollectives = {
    {"p2p", "point to point, --src to --dst (default: the next device): L + S/B over the route"},
    {"reduce_scatter", "reduce-scatter of S per device: each ends with its S/p reduced (--algorithm)"},
    {"all_gather", "all-gather of an S result from the S/p each device holds (--algorithm)"},
    {"all_reduce", "all-reduce of S per device (--algorithm; a torus: DeepSpatialMatrix 2-D, RS X, AR Y of S/M, AG X)"},
    {"broadcast", "pipelined chain broadcast from --root in --chunks pieces; --axis all: along Y, then X"},
    {"all_to_all", "relayout (DeepSpatialMatrix): each device scatters S evenly to all; shifts along each axis in turn"},
    {"all_to_all_direct", "relayout with every pair at once on the routes (contended: the step rule)"},
    {"rotate", "neighbour rotation: every device sends S to its + neighbour along --axis x|y (or group ring)"},
};

struct Resolved {
  bool on_axes = false;
  std::vector<int> dims;   // torus axes used, in order (axes of size 1 left out)
  std::vector<int> ring;   // group mode: devices in ring order
};

int parse_axis(const std::string& axis, const TopologyGraph& g) {
  static const std::vector<std::string> names = {"x", "y", "z", "w"};
  int dim = -1;
  for (std::size_t k = 0; k < names.size(); ++k)
    if (axis == names[k]) dim = static_cast<int>(k);
  if (dim < 0 || dim >= g.dimensions()) {
    std::string valid = "all";
    for (int k = 0; k < g.dimensions() && k < 4; ++k) valid += ", " + names[k];
    throw UnknownNameError("axis", axis, valid);
  }
  return dim;
}

Resolved resolve(const Request& r, const TopologyGraph& g) {
  Resolved p;
  if (!r.group.empty()) {
    if (!r.axis.empty()) throw InputError("give --axis or --group, not both");
    p.ring = g.group(r.group).devices;
    if (p.ring.empty()) throw InputError("group '" + r.group + "' has no devices");
    return p;
  }
  if (g.is_torus()) {
    p.on_axes = true;
    if (r.axis.empty() || r.axis == "all") {
      for (int k = 0; k < g.dimensions(); ++k)
        if (g.dim_size(k) > 1) p.dims.push_back(k);
    } else {
      p.dims.push_back(parse_axis(r.axis, g));
    }
    return p;
  }
  if (!r.axis.empty())
    throw InputError("--axis applies to a torus; system '" + g.spec().name + "' is a graph: use --group");
  if (const auto* all = g.spec().find_group("all")) {
    p.ring = all->devices;
  } else {
    for (int d = 0; d < g.device_count(); ++d) p.ring.push_back(d);
  }
  return p;
}


/// Pipelined chains, each starting at its holder: (p-1)+(k-1) steps of bytes/k.
int chain_pass(Schedule& s, const std::vector<std::vector<int>>& chains, double bytes, int chunks, int step0) {
  int steps = 0;
  for (const auto& c : chains)
    if (c.size() > 1) steps = std::max(steps, static_cast<int>(c.size()) - 1 + chunks - 1);
  for (int j = 0; j < steps; ++j)
    for (const auto& c : chains)
      for (int i = 0; i + 1 < static_cast<int>(c.size()); ++i) {
        const int piece = j - i;
        if (piece >= 0 && piece < chunks) s.add(c[i], c[i + 1], bytes / chunks, step0 + j);
      }
  return steps;
}

/// All-to-all by shifts on rings: step k sends bytes/p from ring[i] to ring[i+k].
int shift_pass(Schedule& s, const std::vector<std::vector<int>>& rings, double bytes, int step0) {
  int steps = 0;
  for (const auto& ring : rings) steps = std::max(steps, static_cast<int>(ring.size()) - 1);
  for (int k = 1; k <= steps; ++k)
    for (const auto& ring : rings) {
      const int p = static_cast<int>(ring.size());
      if (k >= p) continue;
      for (int i = 0; i < p; ++i) s.add(ring[i], ring[(i + k) % p], bytes / p, step0 + k - 1);
    }
  return steps;
}

std::vector<int> rotated(std::vector<int> ring, int first) {
  auto it = std::find(ring.begin(), ring.end(), first);
  if (it == ring.end()) throw InputError("device " + std::to_string(first) + " is not in the ring");
  std::rotate(ring.begin(), it, ring.end());
  return ring;
}

void check_device(const TopologyGraph& g, int d, const std::string& what) {
  if (d < 0 || d >= g.device_count())
    throw InputError(what + " " + std::to_string(d) + " is not a device (0.." + std::to_string(g.device_count() - 1) + ")");
}

}  // namespace

const std::vector<CollectiveInfo>& collective_list() { return kCollectives; }

Participants participants(const Request& r, const TopologyGraph& g) {
  const Resolved p = resolve(r, g);
  Participants who;
  if (p.on_axes) {
    who.torus_axes = p.dims;
    for (int d = 0; d < g.device_count(); ++d) who.devices.push_back(d);
    if (p.dims.size() == 1) who.devices = g.axis_rings(p.dims.front()).front();  // one ring's worth (the formula's p)
  } else {
    who.devices = p.ring;
  }
  return who;
}

namespace {

// build_schedule without the schedule's identity (every return names the same collective).
Schedule build_unnamed(const Request& r, const TopologyGraph& g) {
  if (std::none_of(kCollectives.begin(), kCollectives.end(), [&](const auto& c) { return c.name == r.collective; })) {
    throw UnknownNameError("collective", r.collective, join(kCollectives, [](const auto& c) { return c.name; }));
  }
  if (!(r.bytes >= 0) || !std::isfinite(r.bytes)) throw InputError("--bytes must be >= 0");
  Schedule s;
  const std::string& name = r.collective;

  if (name == "p2p") {
    check_device(g, r.src, "--src");
    int dst = r.dst;
    if (dst < 0) {
      if (g.is_torus()) {
        auto c = g.coordinates(r.src);
        c[0] = (c[0] + 1) % g.dim_size(0);
        dst = g.device_at(c);
      } else {
        dst = (r.src + 1) % g.device_count();
      }
    }
    check_device(g, dst, "--dst");
    if (dst != r.src) s.add(r.src, dst, r.bytes, 0);
    return s;
  }

  const Resolved p = resolve(r, g);
  std::vector<std::vector<int>> group_rings;
  if (!p.on_axes) group_rings.push_back(p.ring);
  auto rings_of = [&](int dim) { return g.axis_rings(dim); };

  if (is_reducing(name)) {
    const Participants who = participants(r, g);
    const Choice choice = choose(name, r.bytes, r.algorithm, who, g, r.axis);
    if (who.torus_axes.size() == 1 && choice.algorithm->name != "torus")
      throw InputError("--axis " + r.axis + " runs the rings of one torus axis (algorithm torus); algorithm '" +
                       choice.algorithm->name + "' takes --axis all or --group");
    return build_with(choice, name, r.bytes, who, g);
  }
  if (!r.algorithm.empty())
    throw InputError("--algorithm applies to reduce_scatter, all_gather and all_reduce, not " + name);

  if (name == "broadcast") {
    const int chunks = r.chunks > 0 ? r.chunks : default_broadcast_chunks;
    if (!p.on_axes) {
      const int root = r.root >= 0 ? r.root : p.ring.front();
      check_device(g, root, "--root");
      if (std::find(p.ring.begin(), p.ring.end(), root) == p.ring.end())
        throw InputError("--root " + std::to_string(root) + " is not in group '" + (r.group.empty() ? "all" : r.group) + "'");
      chain_pass(s, {rotated(p.ring, root)}, r.bytes, chunks, 0);
      return s;
    }
    const int root = r.root >= 0 ? r.root : 0;
    check_device(g, root, "--root");
    // Holders: the devices that agree with the root on every axis used; broadcast along the last
    // axis first (seed 003 §II-D: "first along Y and then along X").
    const auto root_c = g.coordinates(root);
    std::vector<int> holders;
    for (int d = 0; d < g.device_count(); ++d) {
      auto c = g.coordinates(d);
      bool same = true;
      for (int k : p.dims) same = same && c[k] == root_c[k];
      if (same) holders.push_back(d);
    }
    int step = 0;
    for (auto it = p.dims.rbegin(); it != p.dims.rend(); ++it) {
      std::vector<std::vector<int>> chains;
      std::vector<int> next;
      for (int h : holders) {
        chains.push_back(rotated(g.axis_ring(h, *it), h));
        next.insert(next.end(), chains.back().begin(), chains.back().end());
      }
      step += chain_pass(s, chains, r.bytes, chunks, step);
      std::sort(next.begin(), next.end());
      holders = std::move(next);
    }
    return s;
  }

  if (name == "all_to_all") {
    if (!p.on_axes) {
      shift_pass(s, group_rings, r.bytes, 0);
      return s;
    }
    int step = 0;
    for (int k : p.dims) step += shift_pass(s, rings_of(k), r.bytes, step);
    return s;
  }

  if (name == "all_to_all_direct") {
    std::vector<std::vector<int>> sets = group_rings;
    if (p.on_axes) {
      if (p.dims.size() == 1) {
        sets = rings_of(p.dims[0]);
      } else {
        sets.assign(1, {});
        for (int d = 0; d < g.device_count(); ++d) sets[0].push_back(d);
      }
    }
    for (const auto& set : sets) {
      const int n = static_cast<int>(set.size());
      for (int a : set)
        for (int b : set)
          if (a != b) s.add(a, b, r.bytes / n, 0);
    }
    return s;
  }

  if (name == "rotate") {
    if (!p.on_axes) {
      const int n = static_cast<int>(p.ring.size());
      if (n > 1)
        for (int i = 0; i < n; ++i) s.add(p.ring[i], p.ring[(i + 1) % n], r.bytes, 0);
      return s;
    }
    if (p.dims.size() != 1)
      throw InputError("rotate runs along one axis: give --axis x or y (or --group)");
    for (const auto& ring : rings_of(p.dims[0]))
      for (std::size_t i = 0; i < ring.size(); ++i) s.add(ring[i], ring[(i + 1) % ring.size()], r.bytes, 0);
    return s;
  }
  throw Error("build_schedule: collective '" + name + "' has no schedule");
}

}  // namespace

Schedule build_schedule(const Request& r, const TopologyGraph& g) {
  Schedule s = build_unnamed(r, g);
  s.what.kind = kind_named(r.collective).value_or(Kind::unnamed);  // the reducing ones: build_with named the algorithm
  return s;
}

double formula_time(const Request& r, const TopologyGraph& g) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (r.collective == "p2p") {
    Schedule s = build_schedule(r, g);
    if (s.transfers.empty()) return 0;
    // The chip-to-chip links of the route (the chip-level route at either granularity):
    // L_route + S / B_bottleneck (= hops L + S/B along one torus axis).
    topology::Route route;
    for (int l : g.device_route(s.transfers[0].src, s.transfers[0].dst))
      if (g.link(l).kind == topology::TopoLinkKind::chip_to_chip) route.push_back(l);
    return g.route_latency(route) + r.bytes / g.route_bandwidth(route);
  }
  if (is_reducing(r.collective)) {
    const Participants who = participants(r, g);
    const Choice choice = choose(r.collective, r.bytes, r.algorithm, who, g, r.axis);
    return formula_time(*choice.algorithm, choice.protocol, r.collective, r.bytes,
                        with_protocol(fabric_of(who, g), choice.protocol));
  }
  const Resolved p = resolve(r, g);
  if (!p.on_axes) return nan;
  const auto& t = g.spec().torus();
  std::vector<AxisRing> axes;
  for (int k : p.dims) axes.push_back({g.dim_size(k), t.latency.at(k), t.bandwidth.at(k), t.bidirectional});
  const double S = r.bytes;
  const std::string& name = r.collective;
  if (name == "broadcast") return torus_broadcast_time(axes, S, r.chunks > 0 ? r.chunks : default_broadcast_chunks);
  if (name == "all_to_all") return torus_all_to_all_time(axes, S);
  if (name == "rotate") {
    if (axes.size() != 1) throw InputError("rotate runs along one axis: give --axis x or y (or --group)");
    return rotate_time(axes[0], S);
  }
  return nan;
}

double closed_form_time(const Request& r, const TopologyGraph& g) {
  return evaluate(lower_to_nodes(build_schedule(r, g), g), g);
}

}  // namespace partsim::collectives
