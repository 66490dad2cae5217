#include "sim/collectives/schedule.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

#include "sim/common/error.hpp"

namespace partsim::collectives {

void Schedule::add(int src, int dst, double bytes, int step, int origin) {
  if (!transfers.empty() && step < transfers.back().step) throw Error("Schedule::add: steps out of order");
  transfers.push_back({src, dst, bytes, step, origin});
  step_count = std::max(step_count, step + 1);
}

Schedule merge(const Schedule& a, const Schedule& b) {
  if (a.on_nodes != b.on_nodes) throw Error("merge: one schedule is on nodes, the other on devices");
  Schedule out;
  out.on_nodes = a.on_nodes;
  std::size_t i = 0, j = 0;
  const auto& x = a.transfers;
  const auto& y = b.transfers;
  while (i < x.size() || j < y.size()) {
    const bool take_a = j == y.size() || (i < x.size() && x[i].step <= y[j].step);
    const Transfer& t = take_a ? x[i++] : y[j++];
    out.add(t.src, t.dst, t.bytes, t.step);
  }
  out.step_count = std::max(a.step_count, b.step_count);
  out.step_overhead_s = std::max(a.step_overhead_s, b.step_overhead_s);
  out.start_overhead_s = std::max(a.start_overhead_s, b.start_overhead_s);
  if (a.what.kind == b.what.kind && a.what.algorithm == b.what.algorithm) out.what = a.what;
  return out;
}

Schedule lower_to_nodes(const Schedule& s, const topology::TopologyGraph& graph) {
  if (s.on_nodes) return s;
  Schedule out;
  out.on_nodes = true;
  out.what = s.what;
  out.transfers.reserve(s.transfers.size());
  for (std::size_t i = 0; i < s.transfers.size(); ++i) {
    const auto& t = s.transfers[i];
    const int ca = graph.cores_of(t.src);
    const int cb = graph.cores_of(t.dst);
    const int shares = std::max(ca, cb);
    for (int c = 0; c < shares; ++c)
      out.add(graph.endpoint(t.src, c % ca), graph.endpoint(t.dst, c % cb), t.bytes / shares, t.step,
              static_cast<int>(i));
  }
  out.step_count = s.step_count;
  out.step_overhead_s = s.step_overhead_s;
  out.start_overhead_s = s.start_overhead_s;
  return out;
}

std::vector<double> step_times(const Schedule& s, const topology::TopologyGraph& graph) {
  if (!s.on_nodes) throw Error("step_times: the schedule must be lowered to nodes first");
  std::vector<double> times(s.step_count, 0.0);
  std::vector<double> load(graph.link_count(), 0.0);
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> first_start(graph.link_count(), inf);
  std::vector<topology::Route> routes;
  std::vector<double> latencies;
  const auto& ts = s.transfers;
  std::size_t i = 0;
  while (i < ts.size()) {
    const int step = ts[i].step;
    std::size_t end = i;
    while (end < ts.size() && ts[end].step == step) ++end;
    routes.clear();
    latencies.clear();
    for (std::size_t t = i; t < end; ++t) {
      routes.push_back(graph.route(ts[t].src, ts[t].dst));
      latencies.push_back(graph.route_latency(routes.back()));
      for (int l : routes.back()) {
        load[l] += ts[t].bytes;
        first_start[l] = std::min(first_start[l], latencies.back());
      }
    }
    double worst = 0;
    for (std::size_t k = 0; k < routes.size(); ++k) {
      const auto& r = routes[k];
      if (r.empty()) continue;
      // Own bytes at the route's slowest link, after the route's latency.
      worst = std::max(worst, latencies[k] + ts[i + k].bytes / graph.route_bandwidth(r));
      // Each link's whole load, from the moment its first transfer starts sending.
      for (int l : r) worst = std::max(worst, first_start[l] + load[l] / graph.link(l).bandwidth);
    }
    for (const auto& r : routes)
      for (int l : r) {
        load[l] = 0;
        first_start[l] = inf;
      }
    times[step] = worst + s.step_overhead_s;
    i = end;
  }
  return times;
}

double evaluate(const Schedule& s, const topology::TopologyGraph& graph) {
  auto times = step_times(s, graph);
  return (s.transfers.empty() ? 0.0 : s.start_overhead_s) + std::accumulate(times.begin(), times.end(), 0.0);
}

}  // namespace partsim::collectives
