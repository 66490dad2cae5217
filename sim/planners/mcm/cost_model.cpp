#include "sim/planners/mcm/cost_model.hpp"


#include "sim/planners/mcm/constraints.hpp"

namespace partsim::mcm {

AnalyticalCost analytical_cost(const PlacementProblem& p, const Placement& f) {
  check_shape(p, f);
  const auto C = static_cast<std::size_t>(p.chips);
  AnalyticalCost cost;
  cost.chips.assign(C, ChipCost{});
  for (std::size_t v = 0; v < p.nodes.size(); ++v) cost.chips[static_cast<std::size_t>(f[v])].compute_s += p.nodes[v].compute_s;
  // Link load: a transfer from chip a to chip c > a crosses the links into a+1, ..., c.
  std::vector<double> bytes_in(C, 0.0), transfers_in(C, 0.0);
  for (std::size_t u = 0; u < p.nodes.size(); ++u) {
    const int a = f[u];
    for (int v : p.consumers[u]) {
      const int c = f[static_cast<std::size_t>(v)];
      if (c <= a) continue;  // same chip (c < a breaks eq. 2)
      for (int d = a + 1; d <= c; ++d) {
        bytes_in[static_cast<std::size_t>(d)] += p.nodes[u].output_bytes;
        transfers_in[static_cast<std::size_t>(d)] += 1;
      }
    }
  }
  for (std::size_t d = 0; d < C; ++d) {
    cost.chips[d].receive_s = bytes_in[d] / p.link_bandwidth + transfers_in[d] * p.link_latency_s;
    if (cost.chips[d].latency_s() > cost.latency_s) {
      cost.latency_s = cost.chips[d].latency_s();
      cost.bottleneck_chip = static_cast<int>(d);
    }
  }
  return cost;
}

}  // namespace partsim::mcm
