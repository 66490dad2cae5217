// Direct reduce-scatter / all-gather (ASTRA-sim's "direct"): one step per phase in which every member
// sends every other member its share, S / p; all-reduce is the two phases. Best on a switch, where
// the p - 1 messages of a member share only its own port: a + (p-1) S / (p B) per phase.

#include "sim/collectives/algorithms/algorithms.hpp"

namespace partsim::collectives::algorithms {
namespace {

int direct_phase(Schedule& s, const std::vector<int>& members, double bytes, int step) {
  const auto p = static_cast<double>(members.size());
  for (int a : members)
    for (int b : members)
      if (a != b) s.add(a, b, bytes / p, step);
  return members.size() > 1 ? 1 : 0;
}

Schedule direct_schedule(const BuildInput& in) {
  Schedule s;
  int step = 0;
  if (in.collective != "all_gather") step += direct_phase(s, in.who.devices, in.bytes, step);
  if (in.collective != "reduce_scatter") direct_phase(s, in.who.devices, in.bytes, step);
  return s;
}

double direct_formula(const std::string& collective, double bytes, const Fabric& f) {
  if (f.p < 2) return 0;
  const double phase = f.link.alpha + (f.p - 1) * bytes / (f.p * f.link.bandwidth);
  return collective == "all_reduce" ? 2 * phase : phase;
}

}  // namespace

Algorithm direct() {
  return {"direct",
          reducing_collectives(),
          "every member sends each other member its S/p at once: one step per phase",
          "reduce_scatter, all_gather: a + (p-1) S/(pB); all_reduce: twice that",
          direct_schedule, direct_formula, nullptr, false};
}

}  // namespace partsim::collectives::algorithms
