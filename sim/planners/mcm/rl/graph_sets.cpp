#include "sim/planners/mcm/rl/graph_sets.hpp"

#include <limits>
#include <string>

#include "sim/common/error.hpp"

namespace partsim::mcm::rl {

std::vector<workloads::RandomDagOptions> graph_set_dags(GraphSet set, const GraphSetOptions& o) {
  const int offset = set == GraphSet::training ? 0 : set == GraphSet::validation ? 500 : 900;
  const int room = set == GraphSet::training ? 500 : set == GraphSet::validation ? 400 : 100;
  if (o.count < 1 || o.count > room)
    throw InputError("a " + std::string(set == GraphSet::training ? "training" : set == GraphSet::validation ? "validation" : "test") +
                     " set holds 1 to " + std::to_string(room) + " graphs, not " + std::to_string(o.count));
  if (o.seed > (std::numeric_limits<std::uint64_t>::max() - 999) / 1000)
    throw InputError("graph set seed " + std::to_string(o.seed) + " is too large: graph seeds are seed x 1000 + k");
  std::vector<workloads::RandomDagOptions> out;
  for (int k = 0; k < o.count; ++k) {
    workloads::RandomDagOptions g;
    g.seed = o.seed * 1000 + static_cast<std::uint64_t>(offset + k);
    g.min_nodes = o.min_nodes;
    g.max_nodes = o.max_nodes;
    out.push_back(g);
  }
  return out;
}

std::vector<PlacementProblem> graph_set(const topology::SystemSpec& spec, GraphSet set, const GraphSetOptions& o) {
  std::vector<PlacementProblem> out;
  for (const workloads::RandomDagOptions& g : graph_set_dags(set, o)) out.push_back(make_problem(spec, workloads::random_dag(g)));
  return out;
}

}  // namespace partsim::mcm::rl
