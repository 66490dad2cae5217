#pragma once
// The Boost.Graph DAG behind workloads::Graph (graph.hpp declares it, so that the many users of a
// Graph need not include Boost.Graph). Include this only where the DAG itself is used.

#include <boost/graph/adjacency_list.hpp>

#include <cstddef>

#include "workloads/graph.hpp"

namespace partsim::workloads {

/// Vertex property is the index into Graph::layers() (equal to the vertex descriptor).
using BoostDag = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, std::size_t, TensorEdge>;

/// Graph::dag(): a BoostDag (Boost's free functions take it as one).
struct Dag : BoostDag {
  using BoostDag::BoostDag;
};

}  // namespace partsim::workloads
