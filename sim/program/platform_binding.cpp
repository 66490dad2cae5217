#include "sim/program/platform_binding.hpp"

#include <string>

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

}  // namespace partsim::program
