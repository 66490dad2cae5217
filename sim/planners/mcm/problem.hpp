#pragma once
// The multi-chip placement problem of seed 002 §3 (eq. 5): a map f from the nodes of a tensor graph
// to the chiplets D = {0..C-1} of a package whose chiplets sit on a uni-directional ring (chiplet d
// sends only to d+1), maximising throughput under the static constraints (eq. 2-4) and a dynamic
// one, H(G, f): every chiplet's peak memory fits its SRAM (constraints.hpp).
//
// A PlacementProblem is the graph and platform reduced to what the constraints, the analytical
// model and the searches read: per node its forward compute time on one chiplet (the platform's
// device model, the same sim/devices roofline the SimGrid replay uses), its weight bytes and its
// output tensor bytes; the edges; the chiplets' SRAM and the ring's links.
//
// Contract: built from a finalized graph (inference: forward pass only; the MCM runs inference
// pipelined, seed 002 §3) and a platform whose devices are all of one type and whose links form a
// uni-directional ring in device order (configs/mcm_ring36.yaml); anything else is an InputError
// naming the platform. Bytes use the platform's precision. Seconds, bytes, bytes/s.

#include <cstdint>
#include <string>
#include <vector>

#include "topology/system_spec.hpp"
#include "workloads/graph.hpp"

namespace partsim::mcm {

/// A placement: chip of every node, indexed like the graph's layers (topological order).
using Placement = std::vector<int>;

struct Node {
  std::string name;
  double compute_s = 0;      // forward pass on one chiplet (device model)
  double weight_bytes = 0;   // resident on its chiplet (weight-stationary pipelining)
  double output_bytes = 0;   // its output tensor, whole batch
};

struct Edge {
  int from = 0;  // producer node
  int to = 0;    // consumer node
  double bytes = 0;
};

struct PlacementProblem {
  std::string graph_name;
  std::vector<Node> nodes;
  std::vector<Edge> edges;            // producer index < consumer index
  std::vector<std::vector<int>> consumers;  // per node, its consumer nodes (ascending)
  int chips = 0;                      // C
  double sram_bytes = 0;              // per chiplet
  double link_bandwidth = 0;          // bytes/s of each ring link (d -> d+1)
  double link_latency_s = 0;          // per hop

  int size() const { return static_cast<int>(nodes.size()); }
};

/// The problem of placing `graph` (finalized) on `spec`.
PlacementProblem make_problem(const topology::SystemSpec& spec, const workloads::Graph& graph);

}  // namespace partsim::mcm
