#pragma once
// Accelerator-set candidates (seed 004 §V): G(Acc, BW) has an edge between two accelerators that
// talk without a third accelerator on the way (a direct link, or through hosts and switches only),
// weighted by the route's slowest link. MARS removes the lowest-bandwidth edge again and again; every
// connected component seen on the way is a candidate AccSet. Ties (equal bandwidth) are broken
// towards the edge whose removal splits a component most evenly, else the lowest device pair (our
// choice: the paper does not say; on f1_16xlarge it yields the whole system, the two groups, four
// pairs and eight single FPGAs).
//
// Contract: pure; device indices; sets sorted ascending, candidates in order of appearance.

#include <vector>

#include "topology/topology_graph.hpp"

namespace partsim::mars {

struct AccEdge {
  int a = 0, b = 0;
  double bandwidth = 0;  // bytes/s, the route's slowest link
};

/// The edges of G(Acc, BW).
std::vector<AccEdge> accelerator_graph(const topology::TopologyGraph& topology);

/// The candidate AccSets, in order of appearance (the whole connected system first).
std::vector<std::vector<int>> candidate_sets(const topology::TopologyGraph& topology);

/// Bandwidth of a ring over `set` in order: the slowest route between consecutive members (bytes/s;
/// infinity for one device).
double ring_bandwidth(const topology::TopologyGraph& topology, const std::vector<int>& set);

/// Bandwidth from set `a` to set `b`: min(|a|, |b|) parallel routes at the slowest route between them.
double set_to_set_bandwidth(const topology::TopologyGraph& topology, const std::vector<int>& a, const std::vector<int>& b);

}  // namespace partsim::mars
