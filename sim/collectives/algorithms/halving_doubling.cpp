// Recursive halving reduce-scatter and recursive doubling all-gather (Thakur, Rabenseifner & Gropp
// 2005, "Optimization of collective communication operations in MPICH", §4): log2 p steps per phase;
// in reduce-scatter step k member i exchanges S / 2^(k+1) with member i XOR p / 2^(k+1); all-gather
// runs the steps backwards with the sizes growing back. All-reduce is Rabenseifner's: both phases.
// Needs a power-of-two group (the paper's fix-up steps for other sizes are not modelled).

#include <bit>
#include <cmath>

#include "sim/collectives/algorithms/algorithms.hpp"
#include "sim/common/error.hpp"

namespace partsim::collectives::algorithms {
namespace {

std::string halving_doubling_cannot_run(const Participants& who, const topology::TopologyGraph&) {
  const auto p = static_cast<unsigned>(who.devices.size());
  if (p <= 1 || std::has_single_bit(p)) return "";
  return "algorithm 'halving_doubling' needs a power-of-two group, not " + std::to_string(p) +
         " members: use ring, double_binary_tree or hierarchical";
}

Schedule halving_doubling_schedule(const BuildInput& in) {
  const auto& m = in.who.devices;
  const auto p = static_cast<unsigned>(m.size());
  if (auto why = halving_doubling_cannot_run(in.who, in.graph); !why.empty()) throw InputError(why);
  Schedule s;
  const int rounds = p > 1 ? std::countr_zero(p) : 0;
  int step = 0;
  if (in.collective != "all_gather")
    for (int k = 0; k < rounds; ++k, ++step) {
      const unsigned distance = p >> (k + 1);
      for (unsigned i = 0; i < p; ++i) s.add(m[i], m[i ^ distance], in.bytes / static_cast<double>(2u << k), step);
    }
  if (in.collective != "reduce_scatter")
    for (int k = rounds - 1; k >= 0; --k, ++step) {
      const unsigned distance = p >> (k + 1);
      for (unsigned i = 0; i < p; ++i) s.add(m[i], m[i ^ distance], in.bytes / static_cast<double>(2u << k), step);
    }
  return s;
}

double halving_doubling_formula(const std::string& collective, double bytes, const Fabric& f) {
  if (f.p < 2) return 0;
  const double rounds = std::log2(static_cast<double>(f.p));
  const double phase = rounds * f.link.alpha + (f.p - 1) * bytes / (f.p * f.link.bandwidth);
  return collective == "all_reduce" ? 2 * phase : phase;
}

}  // namespace

Algorithm halving_doubling() {
  return {"halving_doubling",
          reducing_collectives(),
          "recursive halving (RS) and doubling (AG), log2 p steps per phase; power-of-two groups",
          "reduce_scatter, all_gather: log2(p) a + (p-1) S/(pB); all_reduce: twice that",
          halving_doubling_schedule, halving_doubling_formula, halving_doubling_cannot_run, false};
}

}  // namespace partsim::collectives::algorithms
