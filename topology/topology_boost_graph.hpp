#pragma once
// The Boost.Graph mirror of a TopologyGraph (TopologyGraph::boost_graph(); edge property = link id).
// Split from topology_graph.hpp so that the many users of a TopologyGraph need not include
// Boost.Graph; include this only where the Boost graph itself is used.

#include <boost/graph/adjacency_list.hpp>

#include "topology/topology_graph.hpp"

namespace partsim::topology {

using TopologyBoostGraphBase = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, boost::no_property,
                                                     boost::property<boost::edge_index_t, int>>;

/// A TopologyBoostGraphBase (Boost's free functions take it as one).
struct TopologyBoostGraph : TopologyBoostGraphBase {
  using TopologyBoostGraphBase::TopologyBoostGraphBase;
};

}  // namespace partsim::topology
