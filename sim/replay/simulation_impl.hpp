#pragma once
// Private to sim/replay: the state of a Simulation, shared by replay.cpp (the platform) and
// program_replay.cpp (Programs).

#include <simgrid/s4u.hpp>

#include <memory>
#include <utility>
#include <vector>

#include "sim/replay/replay.hpp"

namespace partsim::replay {

struct Simulation::Impl {
  const topology::TopologyGraph& graph;
  std::unique_ptr<simgrid::s4u::Engine> engine;
  std::vector<simgrid::s4u::Host*> hosts;                       // per node (nullptr for routers)
  std::vector<simgrid::kernel::routing::NetPoint*> netpoints;  // per node
  std::vector<simgrid::s4u::LinkInRoute> link_in_route;         // per link id
  std::vector<std::pair<int, int>> pairs;                       // the (src, dst) nodes routed
  std::vector<double> pair_latency;                             // per pair: its route's latency, s
  bool ran = false;

  explicit Impl(const topology::TopologyGraph& g) : graph(g) {}
};

}  // namespace partsim::replay
