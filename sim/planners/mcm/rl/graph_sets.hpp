#pragma once
// The seeded sets of random DAGs (workloads/random_dag.hpp) that the constrained RL pre-trains,
// validates and is tested on (seed 002 §5.2: training, validation and test sets of graphs; its
// Fig. 5 / Table 2 on 16 unseen test graphs). One seed names all three, disjoint by construction:
// training graphs have seeds seed*1000 + k, validation seed*1000 + 500 + k, test seed*1000 + 900 + k
// (k from 0; at most 500, 400 and 100 of each).

#include <cstdint>
#include <vector>

#include "sim/planners/mcm/problem.hpp"
#include "workloads/random_dag.hpp"

namespace partsim::mcm::rl {

enum class GraphSet { training, validation, test };

struct GraphSetOptions {
  std::uint64_t seed = 1;
  int count = 12;
  int min_nodes = 10, max_nodes = 120;
};

/// The random graphs of the set (InputError when count exceeds the set's room, see above), as
/// workloads::random_dag options; workloads::random_dag_spec(g) names one on the command line.
std::vector<workloads::RandomDagOptions> graph_set_dags(GraphSet set, const GraphSetOptions& options);

/// The placement problems of those graphs on `spec`.
std::vector<PlacementProblem> graph_set(const topology::SystemSpec& spec, GraphSet set, const GraphSetOptions& options);

}  // namespace partsim::mcm::rl
