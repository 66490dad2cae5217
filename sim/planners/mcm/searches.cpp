#include "sim/planners/mcm/searches.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "sim/common/error.hpp"
#include "sim/planners/mcm/constraints.hpp"

namespace partsim::mcm {
namespace {

/// Records one sample; returns its latency (infinity when it fails H).
double record(const PlacementProblem& p, const Placement& f, SearchResult& r) {
  const std::optional<AnalyticalCost> cost = record_sample(p, f, memory_violations(p, f).empty(), r);
  return cost ? cost->latency_s : INFINITY;
}

double unit(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

}  // namespace

std::optional<AnalyticalCost> record_sample(const PlacementProblem& p, const Placement& f, bool valid,
                                            SearchResult& r) {
  ++r.samples;
  std::optional<AnalyticalCost> cost;
  if (valid) {
    cost = analytical_cost(p, f);
    if (r.best.empty() || cost->latency_s < r.best_cost.latency_s) {
      r.best = f;
      r.best_cost = *cost;
    }
  } else {
    ++r.invalid_samples;
  }
  r.best_throughput.push_back(r.best.empty() ? 0.0 : r.best_cost.throughput_per_s());
  return cost;
}

void report_samples(const ProgressCallback& progress, const SearchResult& r, int total) {
  if (!progress) return;
  progress({static_cast<std::size_t>(r.samples), static_cast<std::size_t>(total), "samples",
            r.best.empty() ? std::nullopt : std::optional<double>(r.best_cost.latency_s)});
}

namespace {
/// `compute`: each chip up to 1/C of the total compute or until the next node's weights overflow it.
Placement compute_split(const PlacementProblem& p) {
  const double total = std::accumulate(p.nodes.begin(), p.nodes.end(), 0.0,
                                       [](double s, const Node& n) { return s + n.compute_s; });
  const double target = total / p.chips;
  Placement f(p.nodes.size(), 0);
  int chip = 0;
  double compute = 0, weights = 0;
  bool empty = true;
  for (std::size_t v = 0; v < p.nodes.size(); ++v) {
    const Node& n = p.nodes[v];
    const bool full = compute >= target || weights + n.weight_bytes > p.sram_bytes;
    if (!empty && full && chip + 1 < p.chips) {
      ++chip;
      compute = weights = 0;
    }
    f[v] = chip;
    compute += n.compute_s;
    weights += n.weight_bytes;
    empty = false;
  }
  return f;
}

/// `memory`: each chip takes the next node while its peak memory (weights + live tensors, the
/// scheduler of H) still fits its SRAM, the nodes not yet placed counted on the next chip.
Placement memory_split(const PlacementProblem& p) {
  // f holds the placed nodes and, after them, the tail on the next chip: one vector for every trial.
  Placement f(p.nodes.size(), std::min(1, p.chips - 1));
  int chip = 0;
  std::size_t first = 0;  // first node of the current chip
  for (std::size_t v = 0; v < f.size(); ++v) {
    f[v] = chip;
    if (v > first && chip + 1 < p.chips &&
        chip_memory(p, f)[static_cast<std::size_t>(chip)].peak_bytes() > p.sram_bytes) {
      ++chip;
      first = v;
      std::fill(f.begin() + static_cast<std::ptrdiff_t>(v) + 1, f.end(), std::min(chip + 1, p.chips - 1));
      f[v] = chip;
    }
  }
  return f;
}
}  // namespace

const char* to_string(GreedySplit split) { return split == GreedySplit::memory ? "memory" : "compute"; }

GreedySplit parse_greedy_split(const std::string& name) {
  if (name == "compute") return GreedySplit::compute;
  if (name == "memory") return GreedySplit::memory;
  throw InputError("greedy split '" + name + "': allowed are compute, memory");
}

Placement greedy_split(const PlacementProblem& p, GreedySplit split) {
  return split == GreedySplit::memory ? memory_split(p) : compute_split(p);
}

SearchResult greedy_search(const PlacementProblem& p, const SearchOptions& o) {
  SearchResult r;
  const Placement split = greedy_split(p, o.split);
  if (is_valid(p, split)) {
    record(p, split, r);
    return r;
  }
  PlacementSolver solver(p, o.solver);
  std::mt19937_64 rng(o.seed);
  std::vector<int> order(static_cast<std::size_t>(p.size()));
  std::iota(order.begin(), order.end(), 0);  // topological: keep the split's early nodes first
  for (int k = 0; k < o.repairs && r.best.empty(); ++k) record(p, solve_fix(solver, order, split, rng), r);
  return r;
}

SearchResult random_search(const PlacementProblem& p, const SearchOptions& o) {
  SearchResult r;
  PlacementSolver solver(p, o.solver);
  std::mt19937_64 rng(o.seed);
  for (int k = 0; k < o.samples; ++k) {
    record(p, solve_sample(solver, random_order(p.size(), rng), {}, rng), r);
    report_samples(o.progress, r, o.samples);
  }
  return r;
}

SearchResult annealing_search(const PlacementProblem& p, const SearchOptions& o) {
  SearchResult r;
  PlacementSolver solver(p, o.solver);
  std::mt19937_64 rng(o.seed);
  const auto N = static_cast<std::size_t>(p.size());
  const auto C = static_cast<std::size_t>(p.chips);
  Distribution current(N, std::vector<double>(C, 1.0 / static_cast<double>(C)));
  double current_latency = record(p, solve_sample(solver, random_order(p.size(), rng), current, rng), r);
  report_samples(o.progress, r, o.samples);
  double first_valid = std::isfinite(current_latency) ? current_latency : 0.0;
  double temperature = o.t0;
  for (int k = 1; k < o.samples; ++k) {
    Distribution next = current;
    for (std::size_t v = 0; v < N; ++v) {
      if (unit(rng) >= o.move_fraction) continue;
      double sum = 0;
      for (double& w : next[v]) sum += (w = std::pow(unit(rng), o.sharpness));
      for (double& w : next[v]) w = sum > 0 ? w / sum : 1.0 / static_cast<double>(C);
    }
    const double latency = record(p, solve_sample(solver, random_order(p.size(), rng), next, rng), r);
    report_samples(o.progress, r, o.samples);
    if (first_valid == 0 && std::isfinite(latency)) first_valid = latency;
    bool accept = latency < current_latency;
    if (!accept && std::isfinite(latency) && first_valid > 0 && temperature > 0)
      accept = unit(rng) < std::exp(-(latency - current_latency) / (temperature * first_valid));
    if (accept) {
      current = std::move(next);
      current_latency = latency;
    }
    temperature *= o.cooling;
  }
  return r;
}

}  // namespace partsim::mcm
