// --explain for dsm plans: a layer's cheapest configurations per pass (search.hpp explain_layer),
// from the per-pass model of seed 003 §II-D over the search space of §II-E.

#include <algorithm>
#include <utility>
#include <vector>

#include "sim/planners/dsm/chain_dp.hpp"
#include "sim/planners/dsm/pass_search.hpp"
#include "sim/planners/dsm/search.hpp"

namespace partsim::dsm {

std::vector<ExplainRow> explain_layer(const GroupChain& network, std::size_t group, Pass pass,
                                      const DsmSystem& system, const DsmOptions& options, int top) {
  std::vector<ExplainRow> rows;
  const DsmLayer& L = network.groups.at(group).layer;
  detail::NetworkSearch planner(network, system, options);
  for (ChipSplit sp : planner.splits_for(L))
    for (int f : planner.dysm_for(L, sp)) {
      const DsmLayer Ls = with_minibatch(L, ceil_div(L.mb, f));
      const long long iterations = L.ts * f;
      const double grad = pass == Pass::upd ? detail::gradient_time(L, sp, system) : 0.0;
      for (const Split5& c : planner.factorizations().of(system.cores())) {
        bool fits = true;
        const ChipFactors cf = chip_factors(sp, system.M, system.N);
        const Split5 chipd{Ls.in, ceil_div(Ls.out, cf.out), Ls.ij, Ls.kij, ceil_div(Ls.mb, cf.mb)};
        for (Dim d : kDims) fits = fits && get(c, d) <= get(chipd, d);
        if (!fits) continue;
        const CoreConfig config{c, Split5{}};
        const PassCost pc = evaluate_pass(Ls, pass, sp, config, flags_for(pass, false, false, false), system);
        rows.push_back(ExplainRow{sp, f, config, pc, iterations, grad,
                                  pc.total * static_cast<double>(iterations) + grad});
      }
    }
  std::stable_sort(rows.begin(), rows.end(), [](const ExplainRow& a, const ExplainRow& b) { return a.total_s < b.total_s; });
  // The best CoreD of every (ChipD, DySM) pair first, so the table shows the alternatives that
  // differ in kind; then the runners-up.
  std::vector<ExplainRow> shown, rest;
  std::vector<std::pair<ChipSplit, int>> seen;
  for (const auto& row : rows) {
    const auto key = std::make_pair(row.split, row.dysm_factor);
    if (std::find(seen.begin(), seen.end(), key) == seen.end()) {
      seen.push_back(key);
      shown.push_back(row);
    } else {
      rest.push_back(row);
    }
  }
  shown.insert(shown.end(), rest.begin(), rest.end());
  if (static_cast<int>(shown.size()) > top) shown.resize(static_cast<std::size_t>(top));
  return shown;
}

}  // namespace partsim::dsm
