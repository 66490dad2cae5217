// Memory reuse of seed 003 §III-B (and the per-spatial-minibatch budget of §III-C): the scratchpad
// budget per core, and inference weight preloading (memory_reuse.hpp).

#include "sim/planners/dsm/memory_reuse.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "sim/planners/dsm/chain_dp.hpp"

namespace partsim::dsm {

double scratchpad_reserve(const DsmSystem& s) {
  const auto& c = s.chip.core;
  return 4.0 * c.array.rows * c.array.cols * c.pe.simd_lanes * s.bytes_per_element;
}

double reuse_held_bytes(const DsmLayer& prev, const DsmLayer& cur, double retained_elements, int dysm,
                        const DsmSystem& s) {
  const double steps = static_cast<double>(cur.ts);
  // retained_elements are per timestep of the workload (a bidirectional LSTM's ts counts both directions).
  const double elements = prev.out_elements * static_cast<double>(prev.ts) + cur.out_elements * steps +
                          retained_elements * static_cast<double>(cur.ts / cur.directions);
  return held_tile_elements(elements, dysm, s) * s.bytes_per_element;
}

namespace detail {

void sweep_weight_preload(const DsmResult& ranking, const GroupChain& network, const DsmSystem& system,
                          const DsmOptions& options, double usable, DsmResult& best) {
  struct Candidate {
    std::size_t group;
    double bytes;
    double gain_per_byte;
  };
  std::vector<Candidate> cands;
  for (const auto& lc : ranking.layers) {
    const DsmLayer& L = network.groups[lc.group].layer;
    if (!L.primary || lc.passes.empty()) continue;
    const PassChoice& pc = lc.passes.front();
    const ChipFactors cf = chip_factors(lc.split, system.M, system.N);
    const Split5& f = pc.config.core;
    // Replicated per CoreD: every core holds the kernel part its work needs.
    const double tile = fprod({L.in, ceil_div(L.out, cf.out), L.kij}) / static_cast<double>(f.in * f.out * f.kij) *
                        system.bytes_per_element * L.directions;  // preloading holds every direction
    PassFlags flags;
    flags.fetch_a = !lc.reuse_in;
    PassFlags without = flags;
    without.fetch_b = false;
    const DsmLayer Ls = with_minibatch(L, ceil_div(L.mb, lc.dysm_factor));
    const double gain = evaluate_pass(Ls, Pass::fwd, lc.split, pc.config, flags, system).total -
                        evaluate_pass(Ls, Pass::fwd, lc.split, pc.config, without, system).total;
    if (gain > 0 && tile > 0 && tile <= usable) cands.push_back({lc.group, tile, gain / tile});
  }
  std::stable_sort(cands.begin(), cands.end(),
                   [](const Candidate& a, const Candidate& b) { return a.gain_per_byte > b.gain_per_byte; });
  for (int eighth = 1; eighth <= 8; ++eighth) {
    const double budget = usable * eighth / 8.0;
    std::vector<bool> preload(network.groups.size(), false);
    double used = 0;
    for (const auto& c : cands)
      if (used + c.bytes <= budget) {
        preload[c.group] = true;
        used += c.bytes;
      }
    if (used == 0) continue;
    NetworkSearch trial(network, system, options);
    trial.set_preloaded(preload);
    trial.set_activation_capacity(usable - used);
    DsmResult r = trial.run();
    if (r.iteration_s < best.iteration_s) best = std::move(r);
  }
}

}  // namespace detail
}  // namespace partsim::dsm
