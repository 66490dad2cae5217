#pragma once
// DeePa's search for an optimal global configuration (seed 001 §4, appendix A.1), on an abstract
// cost graph: every node v has K_v configurations with a cost each (compute + update), every edge
// (u, v) a K_u x K_v table of transfer costs (xfer). The cost of a global configuration is eq. 1:
// the sum of the chosen nodes' costs and of every edge's entry at its endpoints' choices.
//
// The search repeats node elimination (eq. 2: a node with one in-edge and one out-edge becomes one
// edge whose table is the min over its configurations) and edge elimination (eq. 3: two edges with
// the same endpoints become one whose table is the sum) until neither applies, enumerates every
// global configuration of the graph that is left, then undoes the node eliminations in reverse
// order (each eliminated node takes its argmin of eq. 2 at its neighbours' choices).
//
// The working graph is a Boost.Graph multigraph (parallel edges are what edge elimination merges).
//
// Contract: pure; costs are finite doubles >= 0 (any unit); ties are broken towards the lower
// configuration index, so results are deterministic. Enumerating more than `max_enumerated`
// global configurations is an InputError (the graph did not reduce; the message says how far).

#include <cstdint>
#include <utility>
#include <vector>

namespace partsim::deepa {

/// A K_u x K_v table, row-major: at(cu, cv).
struct CostTable {
  int rows = 0;
  int cols = 0;
  std::vector<double> cost;
  double at(int r, int c) const { return cost[static_cast<std::size_t>(r) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(c)]; }
};

struct CostEdge {
  int from = 0;
  int to = 0;
  CostTable xfer;  // xfer.rows = K_from, xfer.cols = K_to
};

struct CostGraph {
  std::vector<std::vector<double>> node_cost;  // [v][c]: compute(c) + update(c); size K_v >= 1
  std::vector<CostEdge> edges;                 // a DAG (parallel edges allowed)
};

struct SearchResult {
  std::vector<int> choice;              // per node, the chosen configuration index
  double cost = 0;                      // eq. 1 of `choice`
  int node_eliminations = 0;
  int edge_eliminations = 0;
  int nodes_left = 0;                   // nodes of the final graph
  int edges_left = 0;
  std::uint64_t enumerated = 0;         // global configurations of the final graph enumerated
};

/// The §4 search. Throws InputError when the final graph has more than `max_enumerated`
/// global configurations.
SearchResult eliminate_and_search(const CostGraph& graph, std::uint64_t max_enumerated = 100'000'000);

/// The size check of eliminate_and_search (the same InputError past `max_enumerated`) from the
/// graph's structure alone: `sizes` K_v per node, `edges` (from, to). The eliminations depend on the
/// degrees, not on the costs, so a graph that will not reduce is refused before its cost tables
/// are computed (on 256 devices, bert_large's took two minutes before this refusal).
void check_enumeration(const std::vector<int>& sizes, const std::vector<std::pair<int, int>>& edges,
                       std::uint64_t max_enumerated = 100'000'000);

/// Eq. 1 for a given global configuration.
double global_cost(const CostGraph& graph, const std::vector<int>& choice);

/// Every global configuration, for tests (exponential: small graphs only).
SearchResult brute_force(const CostGraph& graph);

}  // namespace partsim::deepa
