#include "sim/planners/mars/acc_sets.hpp"

#include <algorithm>
#include <limits>
#include <set>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/connected_components.hpp>

namespace partsim::mars {
namespace {

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;

/// Components of the graph of `n` devices with `edges`, each sorted, ordered by their first device.
std::vector<std::vector<int>> components(int n, const std::vector<AccEdge>& edges) {
  Graph g(static_cast<std::size_t>(n));
  for (const auto& e : edges) boost::add_edge(static_cast<std::size_t>(e.a), static_cast<std::size_t>(e.b), g);
  std::vector<int> component(static_cast<std::size_t>(n));
  const int count = boost::connected_components(g, component.data());
  std::vector<std::vector<int>> out(static_cast<std::size_t>(count));
  for (int d = 0; d < n; ++d) out[static_cast<std::size_t>(component[static_cast<std::size_t>(d)])].push_back(d);
  std::sort(out.begin(), out.end());
  return out;
}

bool passes_through_device(const topology::TopologyGraph& t, const topology::Route& r, int a, int b) {
  for (int link : r) {
    const auto& node = t.node(t.link(link).dst);
    if (node.kind == topology::TopoNodeKind::device && node.device != a && node.device != b) return true;
  }
  return false;
}

}  // namespace

std::vector<AccEdge> accelerator_graph(const topology::TopologyGraph& t) {
  std::vector<AccEdge> edges;
  for (int a = 0; a < t.device_count(); ++a)
    for (int b = a + 1; b < t.device_count(); ++b) {
      const topology::Route r = t.device_route(a, b);
      if (r.empty() || passes_through_device(t, r, a, b)) continue;
      edges.push_back({a, b, t.route_bandwidth(r)});
    }
  return edges;
}

std::vector<std::vector<int>> candidate_sets(const topology::TopologyGraph& t) {
  const int n = t.device_count();
  std::vector<AccEdge> edges = accelerator_graph(t);
  std::vector<std::vector<int>> out;
  std::set<std::vector<int>> seen;
  auto record = [&](const std::vector<std::vector<int>>& parts) {
    for (const auto& p : parts)
      if (seen.insert(p).second) out.push_back(p);
  };
  record(components(n, edges));
  while (!edges.empty()) {
    double lowest = std::numeric_limits<double>::infinity();
    for (const auto& e : edges) lowest = std::min(lowest, e.bandwidth);
    const std::size_t before = components(n, edges).size();
    std::size_t chosen = edges.size();
    std::size_t best_min = 0;
    for (std::size_t i = 0; i < edges.size(); ++i) {
      if (edges[i].bandwidth != lowest) continue;
      if (chosen == edges.size()) chosen = i;  // the lowest pair, unless a removal splits
      std::vector<AccEdge> rest = edges;
      rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(i));
      const auto parts = components(n, rest);
      if (parts.size() <= before) continue;
      // The two parts the split made: the components holding the edge's ends.
      std::size_t size_a = 0, size_b = 0;
      for (const auto& p : parts) {
        if (std::binary_search(p.begin(), p.end(), edges[i].a)) size_a = p.size();
        if (std::binary_search(p.begin(), p.end(), edges[i].b)) size_b = p.size();
      }
      const std::size_t smaller = std::min(size_a, size_b);
      if (smaller > best_min) {
        best_min = smaller;
        chosen = i;
      }
    }
    edges.erase(edges.begin() + static_cast<std::ptrdiff_t>(chosen));
    record(components(n, edges));
  }
  return out;
}

double ring_bandwidth(const topology::TopologyGraph& t, const std::vector<int>& set) {
  double bw = std::numeric_limits<double>::infinity();
  if (set.size() < 2) return bw;
  for (std::size_t i = 0; i < set.size(); ++i)
    bw = std::min(bw, t.route_bandwidth(t.device_route(set[i], set[(i + 1) % set.size()])));
  return bw;
}

double set_to_set_bandwidth(const topology::TopologyGraph& t, const std::vector<int>& a, const std::vector<int>& b) {
  double slowest = std::numeric_limits<double>::infinity();
  for (int x : a)
    for (int y : b)
      if (x != y) slowest = std::min(slowest, t.route_bandwidth(t.device_route(x, y)));
  return slowest * static_cast<double>(std::min(a.size(), b.size()));
}

}  // namespace partsim::mars
