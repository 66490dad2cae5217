#include "sim/program/platform_binding.hpp"

#include <algorithm>
#include <string>
#include <unordered_map>

#include "sim/common/error.hpp"

namespace partsim::program {

int node_of(const topology::TopologyGraph& graph, const Endpoint& endpoint) {
  if (endpoint.device < 0 || endpoint.device >= graph.device_count())
    throw Error("program: endpoint names device " + std::to_string(endpoint.device) + " of " +
                std::to_string(graph.device_count()));
  if (endpoint.memory) {
    const int node = graph.memory_node(endpoint.device);
    if (node < 0)
      throw Error("program: device " + std::to_string(endpoint.device) +
                  " has no external-memory node at this granularity");
    return node;
  }
  return graph.endpoint(endpoint.device, endpoint.core < 0 ? 0 : endpoint.core);
}

TransferTime uncontended_transfer_time(const topology::TopologyGraph& graph) {
  return [&graph](const Endpoint& src, const Endpoint& dst, double bytes) {
    const int a = node_of(graph, src);
    const int b = node_of(graph, dst);
    if (a == b) return 0.0;
    const topology::Route route = graph.route(a, b);
    return graph.route_latency(route) + bytes / graph.route_bandwidth(route);
  };
}

TransferRoutes::TransferRoutes(const Program& program, const topology::TopologyGraph& graph)
    : pair_of_task_(program.size(), -1) {
  // Keyed by src x node_count + dst.
  std::unordered_map<long long, int> index;
  const long long n = graph.node_count();
  const auto& tasks = program.tasks();
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const Task& t = tasks[i];
    if (t.kind != TaskKind::transfer) continue;
    const int a = node_of(graph, t.src);
    const int b = node_of(graph, t.dst);
    const auto [it, inserted] = index.try_emplace(a * n + b, static_cast<int>(pairs_.size()));
    if (inserted) {
      pairs_.emplace_back(a, b);
      routes_.push_back(a == b ? topology::Route{} : graph.route(a, b));
      resolved_.push_back(a == b ? Resolved{}
                                 : Resolved{graph.route_latency(routes_.back()), graph.route_bandwidth(routes_.back())});
    }
    pair_of_task_[i] = it->second;
  }
}

const topology::Route& TransferRoutes::route(std::size_t task) const {
  const int p = pair_of_task_.at(task);
  return p < 0 ? empty_ : routes_[static_cast<std::size_t>(p)];
}

double TransferRoutes::uncontended_time(std::size_t task, double bytes) const {
  const int p = pair_of_task_.at(task);
  if (p < 0) throw Error("program: task " + std::to_string(task) + " is not a transfer");
  const auto pair = static_cast<std::size_t>(p);
  if (pairs_[pair].first == pairs_[pair].second) return 0.0;
  return resolved_[pair].latency + bytes / resolved_[pair].bandwidth;
}

std::vector<std::pair<int, int>> TransferRoutes::communicating_pairs() const {
  std::vector<std::pair<int, int>> out;
  for (const auto& [a, b] : pairs_)
    if (a != b) out.emplace_back(a, b);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace partsim::program
