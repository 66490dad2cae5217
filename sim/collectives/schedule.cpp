#include "sim/collectives/schedule.hpp"

#include <algorithm>
#include <map>
#include <numeric>

#include "sim/common/error.hpp"

namespace partsim::collectives {

void Schedule::add(int src, int dst, double bytes, int step) {
  if (!transfers.empty() && step < transfers.back().step) throw Error("Schedule::add: steps out of order");
  transfers.push_back({src, dst, bytes, step});
  step_count = std::max(step_count, step + 1);
}

std::vector<std::vector<int>> dependencies(const Schedule& schedule) {
  const auto& ts = schedule.transfers;
  std::vector<std::vector<int>> deps(ts.size());
  // Per node: the transfers it took part in during its latest step so far, and that step.
  std::map<int, std::pair<int, std::vector<int>>> latest;  // node -> (step, transfers)
  std::map<int, std::pair<int, std::vector<int>>> current;  // involvements in the step being read
  std::size_t i = 0;
  while (i < ts.size()) {
    const int step = ts[i].step;
    std::size_t end = i;
    while (end < ts.size() && ts[end].step == step) ++end;
    current.clear();
    for (std::size_t t = i; t < end; ++t) {
      if (auto it = latest.find(ts[t].src); it != latest.end()) deps[t] = it->second.second;
      for (int node : {ts[t].src, ts[t].dst}) {
        auto& slot = current[node];
        slot.first = step;
        if (slot.second.empty() || slot.second.back() != static_cast<int>(t)) slot.second.push_back(static_cast<int>(t));
      }
    }
    for (auto& [node, involvement] : current) latest[node] = std::move(involvement);
    i = end;
  }
  return deps;
}

Schedule lower_to_nodes(const Schedule& s, const topology::TopologyGraph& graph) {
  if (s.on_nodes) return s;
  Schedule out;
  out.on_nodes = true;
  out.transfers.reserve(s.transfers.size());
  for (const auto& t : s.transfers) {
    const int ca = graph.cores_of(t.src);
    const int cb = graph.cores_of(t.dst);
    const int shares = std::max(ca, cb);
    for (int c = 0; c < shares; ++c)
      out.add(graph.endpoint(t.src, c % ca), graph.endpoint(t.dst, c % cb), t.bytes / shares, t.step);
  }
  out.step_count = s.step_count;
  return out;
}

std::vector<double> step_times(const Schedule& s, const topology::TopologyGraph& graph) {
  if (!s.on_nodes) throw Error("step_times: the schedule must be lowered to nodes first");
  std::vector<double> times(s.step_count, 0.0);
  std::vector<double> load(graph.link_count(), 0.0);
  std::vector<topology::Route> routes;
  const auto& ts = s.transfers;
  std::size_t i = 0;
  while (i < ts.size()) {
    const int step = ts[i].step;
    std::size_t end = i;
    while (end < ts.size() && ts[end].step == step) ++end;
    routes.clear();
    for (std::size_t t = i; t < end; ++t) {
      routes.push_back(graph.route(ts[t].src, ts[t].dst));
      for (int l : routes.back()) load[l] += ts[t].bytes;
    }
    double worst = 0;
    for (const auto& r : routes) {
      if (r.empty()) continue;
      double transmit = 0;
      for (int l : r) transmit = std::max(transmit, load[l] / graph.link(l).bandwidth);
      worst = std::max(worst, graph.route_latency(r) + transmit);
    }
    for (const auto& r : routes)
      for (int l : r) load[l] = 0;
    times[step] = worst;
    i = end;
  }
  return times;
}

double evaluate(const Schedule& s, const topology::TopologyGraph& graph) {
  auto times = step_times(s, graph);
  return std::accumulate(times.begin(), times.end(), 0.0);
}

}  // namespace partsim::collectives
