// Per-pass search of seed 003 §II-E: factorisations of the cores and arrays, and the best
// CoreD x ArrayD of one pass (pass_search.hpp).

#include "sim/planners/dsm/pass_search.hpp"

#include "sim/planners/dsm/pass_geometry.hpp"

#include <algorithm>

namespace partsim::dsm {

std::vector<Split5> factorizations(int n) {
  std::vector<Split5> out;
  std::vector<long long> divisors;
  for (long long d = 1; d <= n; ++d)
    if (n % d == 0) divisors.push_back(d);
  // Order: in, out, ij, kij, mb (Split5 field order), each ascending.
  for (long long a : divisors)
    for (long long b : divisors) {
      if ((n / a) % b != 0 || a * b > n) continue;
      for (long long c : divisors) {
        if (a * b * c > n || n % (a * b * c) != 0) continue;
        for (long long d : divisors) {
          if (a * b * c * d > n || n % (a * b * c * d) != 0) continue;
          out.push_back(Split5{a, b, c, d, n / (a * b * c * d)});
        }
      }
    }
  return out;
}

namespace detail {

const std::vector<Split5>& FactorizationCache::of(int n) {
  auto it = by_n_.find(n);
  if (it != by_n_.end()) return it->second;
  return by_n_.emplace(n, factorizations(n)).first->second;
}

std::vector<Pass> passes_of(const DsmLayer& L, const DsmOptions& o) {
  if (o.mode == plan::Mode::inference) return {Pass::fwd};
  if (L.first) return {Pass::fwd, Pass::upd};  // nothing needs the error of a graph input
  if (o.memreuse) return {Pass::fwd, Pass::upd, Pass::bwd};
  return {Pass::fwd, Pass::bwd, Pass::upd};
}

namespace {

/// Whether ArrayD `f` splits the reduction of `pass` over the arrays (excluded with several arrays).
bool splits_reduction(const Split5& f, Pass pass) {
  switch (pass) {
    case Pass::fwd: return f.in > 1 || f.kij > 1;
    case Pass::bwd: return f.out > 1 || f.kij > 1;
    case Pass::upd: return f.mb > 1 || f.ij > 1;
  }
  return false;
}

}  // namespace

PassChoice choice_of(Pass pass, const PassEval& ev, long long iterations) {
  PassChoice pc;
  pc.pass = pass;
  pc.config = ev.config;
  pc.first = ev.first;
  pc.rest = ev.rest;
  pc.iterations = iterations;
  pc.fresh_iterations = ev.fresh_iterations;
  pc.weight_reuse = ev.weight_reuse;
  pc.weights_held = ev.weight_reuse;
  return pc;
}

PassEval best_pass(const DsmLayer& L, Pass pass, ChipSplit split, long long iterations, const PassFlags& base,
                   bool allow_weight_reuse, double weight_budget, const DsmSystem& s,
                   FactorizationCache& factorizations, const Split5* producer_layout, bool in_place) {
  PassEval best;
  const auto& core_f = factorizations.of(s.cores());
  const auto& array_f = factorizations.of(std::max(1, s.chip.core.arrays));
  const Split5 chipd = chip_work(L, split, s.M, s.N);
  const double kernel_chip = fprod({chipd.in, chipd.out, chipd.kij});
  const double e = s.bytes_per_element;
  // §II-E: balanced configurations first (no dimension split finer than its work); if none
  // exists, all of them (the least imbalance wins on cost).
  for (int round = 0; round < 2; ++round) {
    for (const Split5& c : core_f) {
      bool fits = true;
      for (Dim d : kDims) fits = fits && get(c, d) <= get(chipd, d);
      if (round == 0 && !fits) continue;
      if (!L.primary && !(c.in == 1 && c.out == 1 && c.kij == 1 && c.ij == 1)) continue;
      if (producer_layout && !reuse_layouts_match(pass, *producer_layout, c)) continue;
      if (in_place && (c.in != 1 || c.out != 1 || c.kij != 1)) continue;
      for (const Split5& a : array_f) {
        if (s.chip.core.arrays > 1 && splits_reduction(a, pass)) continue;
        const CoreConfig config{c, a};
        PassEval ev;
        ev.config = config;
        ev.first = evaluate_pass(L, pass, split, config, base, s);
        ev.rest = ev.first;
        if (iterations > 1 && L.primary) {
          const double tile = kernel_chip / static_cast<double>(c.out * c.in * c.kij) * e;
          ev.weight_reuse = allow_weight_reuse && tile <= weight_budget;
          const PassFlags rf = later_iteration_flags(base, pass, ev.weight_reuse, kernel_chip * e);
          ev.rest = evaluate_pass(L, pass, split, config, rf, s);
        }
        ev.fresh_iterations = std::min<long long>(iterations, L.directions);
        ev.total = static_cast<double>(ev.fresh_iterations) * ev.first.total +
                   static_cast<double>(iterations - ev.fresh_iterations) * ev.rest.total;
        if (ev.total < best.total) best = ev;
      }
    }
    if (best.total < kInf) break;
  }
  return best;
}

double gradient_time(const DsmLayer& L, ChipSplit split, const DsmSystem& s) {
  if (!L.primary) return 0;
  const ChipFactors cf = chip_factors(split, s.M, s.N);
  const double grad = fprod({L.in, ceil_div(L.out, cf.out), L.kij}) * s.bytes_per_element * L.directions;
  return group_time(gradient_reduction(grad, split, s).loads, s);
}

}  // namespace detail
}  // namespace partsim::dsm
