// DeepSpatialMatrix's search (seed 003 §II-E and §III), the entry point: the chain DP
// (chain_dp.cpp) over the per-pass search (pass_search.cpp), then timestep pipelining
// (timestep_pipeline.cpp, §III-D) and inference weight preloading (memory_reuse.cpp, §III-B).
// Option words: options.cpp; --explain: explain.cpp.

#include "sim/planners/dsm/search.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "sim/planners/dsm/chain_dp.hpp"
#include "sim/planners/dsm/memory_reuse.hpp"
#include "sim/planners/dsm/timestep_pipeline.hpp"

namespace partsim::dsm {

std::map<std::string, double> PassChoice::breakdown() const {
  auto both = [&](auto f) { return over_iterations(f(first), f(rest)); };
  double mac_busy = both([](const PassCost& c) { return c.mac_busy; });
  double pri = both([](const PassCost& c) { return c.pricomp; });
  double hidden = both([](const PassCost& c) { return std::max(0.0, c.ovl - c.pricomp); });
  double aux = both([](const PassCost& c) { return c.aux; });
  double partial = both([](const PassCost& c) { return c.partial_sum; });
  double non_ovl = both([](const PassCost& c) { return c.non_ovl; });
  non_ovl += grad_reduction_s + relayout_s + onchip_relayout_s;
  double underuse = std::max(0.0, pri - mac_busy);
  const double sum = mac_busy + underuse + hidden + non_ovl + aux;
  // Pipelined layers (§III-D) report their share of the group's time: scale the terms to it.
  const double scale = sum > 0 ? total_s / sum : 1.0;
  return {{"mac_busy_s", mac_busy * scale},
          {"array_underuse_s", underuse * scale},
          {"overlap_not_hidden_s", hidden * scale},
          {"non_overlapped_s", non_ovl * scale},
          {"auxiliary_s", aux * scale},
          {"partial_sum_s", partial * scale},
          {"gradient_reduction_s", grad_reduction_s * scale},
          {"relayout_s", (relayout_s + onchip_relayout_s) * scale}};
}

DsmResult search_network(const GroupChain& network, const DsmSystem& system, const DsmOptions& options) {
  detail::NetworkSearch planner(network, system, options);
  // Both readings of CoreD on reuse edges (NetworkSearch::run_both); weight preloading below ranks
  // layers by each one's plan.
  const std::array<DsmResult, 2> readings = planner.run_both();
  DsmResult best = detail::NetworkSearch::cheaper(readings);
  if (options.tpipe && options.mode == plan::Mode::training) {
    // Each pipe group is pipelined only if that beats its own sequential plan, but the pipelined
    // stages change the edges around the group (sub-tori, relayouts), so the whole plan can still
    // come out slower (GNMT at N_mb 512 without link latency: +0.3 %); keep the faster plan, so
    // adding an option never makes the result worse (docs/model.md, "Search").
    DsmResult piped = best;
    detail::pipeline_timesteps(planner, piped);
    if (piped.iteration_s < best.iteration_s) best = std::move(piped);
  }

  // §III-B weight preloading for inference (sweep_weight_preload), from each reading's ranking.
  if (options.memreuse && options.preload && options.mode == plan::Mode::inference)
    for (const DsmResult& reading : readings)
      detail::sweep_weight_preload(reading, network, system, options, planner.capacity(), best);
  return best;
}

}  // namespace partsim::dsm
