#include "sim/planners/mars/search.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <random>

#include "sim/geometry/layer_geometry.hpp"

namespace partsim::mars {
namespace {

/// A uniform draw in [0, 1) from 53 bits (the same on every standard library).
double uniform(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }
std::size_t pick(std::mt19937_64& rng, std::size_t n) { return static_cast<std::size_t>(uniform(rng) * static_cast<double>(n)); }

LayerStrategy without_ss(LayerStrategy s) {
  s.ss.reset();
  return s;
}

std::size_t primaries_in(const LatencyModel& m, std::size_t first, std::size_t last) {
  std::size_t n = 0;
  for (std::size_t v = first; v <= last; ++v) n += m.is_primary(v) ? 1 : 0;
  return n;
}

StrategyGenes random_genes(std::mt19937_64& rng) {
  StrategyGenes g;
  for (auto& x : g.es) x = uniform(rng);
  for (auto& x : g.ss) x = uniform(rng);
  g.two_es = uniform(rng);
  g.use_ss = uniform(rng);
  return g;
}

void mutate(StrategyGenes& g, double rate, std::mt19937_64& rng) {
  for (auto& x : g.es)
    if (uniform(rng) < rate) x = uniform(rng);
  for (auto& x : g.ss)
    if (uniform(rng) < rate) x = uniform(rng);
  if (uniform(rng) < rate) g.two_es = uniform(rng);
  if (uniform(rng) < rate) g.use_ss = uniform(rng);
}

/// Binary tournament: the fitter of two random members.
template <class Individual>
const Individual& tournament(const std::vector<Individual>& pop, std::mt19937_64& rng) {
  const Individual& a = pop[pick(rng, pop.size())];
  const Individual& b = pop[pick(rng, pop.size())];
  return b.fitness < a.fitness ? b : a;
}

// ---- second level --------------------------------------------------------------------------------

struct Inner {
  std::vector<StrategyGenes> genes;  // per convolution/FC layer of the run
  double fitness = kInfinity;
};

class SecondLevel {
 public:
  SecondLevel(const LatencyModel& m, const SearchOptions& o) : m_(m), o_(o) {}

  const SetMapping& best(int set, int design, std::size_t first, std::size_t last) {
    const auto key = std::make_tuple(set, design, first, last);
    if (auto it = cache_.find(key); it != cache_.end()) return it->second;
    return cache_.emplace(key, run(set, design, first, last)).first->second;
  }

 private:
  SetMapping decode(const Inner& ind, int set, int design, std::size_t first, std::size_t last) const {
    const int devices = static_cast<int>(m_.sets().at(static_cast<std::size_t>(set)).size());
    std::vector<LayerStrategy> primary;
    for (const auto& g : ind.genes) primary.push_back(mars::decode(g, devices));
    SetMapping s{set, design, first, last, expand_strategies(m_, first, last, primary), 0};
    set_latency(m_, s);
    return s;
  }

  SetMapping run(int set, int design, std::size_t first, std::size_t last) const {
    // Each run has its own generator, seeded from the search's seed and its key, so a result does not
    // depend on the order the first level asks for runs.
    std::seed_seq seq{static_cast<std::uint64_t>(o_.seed), static_cast<std::uint64_t>(set),
                      static_cast<std::uint64_t>(design), static_cast<std::uint64_t>(first),
                      static_cast<std::uint64_t>(last)};
    std::mt19937_64 rng(seq);
    const std::size_t p = primaries_in(m_, first, last);
    std::vector<Inner> pop(static_cast<std::size_t>(std::max(2, o_.inner_population)));
    SetMapping best_set;
    best_set.latency_s = kInfinity;
    auto evaluate = [&](Inner& ind) {
      SetMapping s = decode(ind, set, design, first, last);
      ind.fitness = s.latency_s;
      if (s.latency_s < best_set.latency_s || best_set.strategies.empty()) best_set = std::move(s);
    };
    for (auto& ind : pop) {
      ind.genes.resize(p);
      for (auto& g : ind.genes) g = random_genes(rng);
    }
    // Heuristic seed (our choice): the first individual gives every layer the strategy that is
    // fastest for it alone (its redistribution and the set's memory ignored).
    const int devices = static_cast<int>(m_.sets().at(static_cast<std::size_t>(set)).size());
    const auto candidates = all_strategies(devices);
    std::size_t k = 0;
    for (std::size_t v = first; v <= last; ++v) {
      if (!m_.is_primary(v)) continue;
      double best_s = kInfinity;
      for (const auto& s : candidates) {
        const auto genes = encode(s, devices);
        const double t = genes ? m_.layer_cost(v, set, design, s).total_s() : kInfinity;
        if (t < best_s) {
          best_s = t;
          pop.front().genes[k] = *genes;
        }
      }
      ++k;
    }
    // And the second (when there is one) a forward greedy that also charges each layer's
    // redistribution from the strategies already chosen for its producers.
    if (pop.size() > 1) {
      std::vector<LayerStrategy> chosen(last - first + 1);
      std::optional<LayerStrategy> current;
      std::size_t j = 0;
      for (std::size_t v = first; v <= last; ++v) {
        if (!m_.is_primary(v)) {
          chosen[v - first] = current ? *current : LayerStrategy{};
          continue;
        }
        double best_s = kInfinity;
        for (const auto& s : candidates) {
          const auto genes = encode(s, devices);
          if (!genes) continue;
          double t = m_.layer_cost(v, set, design, s).total_s();
          for (std::size_t u : m_.graph().predecessors(v))
            if (u >= first && u < v) t += m_.redistribution_s(u, chosen[u - first], v, s, set);
          if (t < best_s) {
            best_s = t;
            chosen[v - first] = s;
            pop[1].genes[j] = *genes;
          }
        }
        current = chosen[v - first];
        current->ss.reset();
        ++j;
      }
    }
    for (auto& ind : pop) evaluate(ind);
    if (m_.sets().at(static_cast<std::size_t>(set)).size() <= 1) return best_set;  // one strategy only
    for (int gen = 0; gen < o_.inner_generations; ++gen) {
      const auto elite = *std::min_element(pop.begin(), pop.end(), [](const Inner& a, const Inner& b) { return a.fitness < b.fitness; });
      std::vector<Inner> next{elite};
      while (next.size() < pop.size()) {
        const Inner& a = tournament(pop, rng);
        const Inner& b = tournament(pop, rng);
        Inner child = a;
        for (std::size_t i = 0; i < p; ++i)
          if (uniform(rng) < 0.5) child.genes[i] = b.genes[i];
        for (auto& g : child.genes) mutate(g, o_.inner_mutation, rng);
        evaluate(child);
        next.push_back(std::move(child));
      }
      pop = std::move(next);
    }
    return best_set;
  }

  const LatencyModel& m_;
  const SearchOptions& o_;
  std::map<std::tuple<int, int, std::size_t, std::size_t>, SetMapping> cache_;
};

// ---- first level ---------------------------------------------------------------------------------

struct Outer {
  std::vector<double> set_genes;     // per AccSet candidate
  double count = 0;                  // how many sets
  std::vector<double> design_genes;  // max_sets x designs
  std::vector<double> cuts;          // max_sets - 1
  double fitness = kInfinity;
};

struct Decoded {
  std::vector<std::tuple<int, int, std::size_t, std::size_t>> sets;  // set, design, first, last
};

Decoded decode(const LatencyModel& m, const SearchOptions& o, const Outer& ind) {
  const std::size_t designs = m.designs().size();
  const int wanted = std::clamp(1 + static_cast<int>(ind.count * o.max_sets), 1, o.max_sets);
  std::vector<std::size_t> order(m.sets().size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return ind.set_genes[a] > ind.set_genes[b]; });
  std::vector<int> chosen;
  std::vector<char> used(static_cast<std::size_t>(m.spec().device_count()), 0);
  for (std::size_t c : order) {
    if (static_cast<int>(chosen.size()) >= wanted) break;
    const auto& devices = m.sets()[c];
    if (std::any_of(devices.begin(), devices.end(), [&](int d) { return used[static_cast<std::size_t>(d)] != 0; })) continue;
    for (int d : devices) used[static_cast<std::size_t>(d)] = 1;
    chosen.push_back(static_cast<int>(c));
  }
  const std::size_t primaries = m.primary_layers().size();
  const std::size_t s = std::min(chosen.size(), primaries);
  std::vector<double> cut_genes(ind.cuts.begin(), ind.cuts.begin() + static_cast<std::ptrdiff_t>(s - 1));
  std::sort(cut_genes.begin(), cut_genes.end());
  std::vector<std::size_t> cuts;  // first convolution/FC layer (by primary index) of sets 1..s-1
  for (std::size_t i = 0; i < cut_genes.size(); ++i) {
    const std::size_t lo = cuts.empty() ? 1 : cuts.back() + 1;
    const std::size_t hi = primaries - (s - 1 - i);
    cuts.push_back(std::clamp(static_cast<std::size_t>(std::lround(cut_genes[i] * static_cast<double>(primaries))), lo, hi));
  }
  Decoded out;
  for (std::size_t k = 0; k < s; ++k) {
    const std::size_t first = k == 0 ? 0 : m.primary_layers()[cuts[k - 1]];
    const std::size_t last = k + 1 == s ? m.graph().size() - 1 : m.primary_layers()[cuts[k]] - 1;
    std::size_t design = 0;
    for (std::size_t d = 1; d < designs; ++d)
      if (ind.design_genes[k * designs + d] > ind.design_genes[k * designs + design]) design = d;
    out.sets.emplace_back(chosen[k], static_cast<int>(design), first, last);
  }
  return out;
}

}  // namespace

std::vector<LayerStrategy> expand_strategies(const LatencyModel& m, std::size_t first, std::size_t last,
                                             const std::vector<LayerStrategy>& primary) {
  std::vector<LayerStrategy> out(last - first + 1);
  const LayerStrategy lead = primary.empty() ? LayerStrategy{} : without_ss(primary.front());
  std::size_t k = 0;
  std::optional<LayerStrategy> current;
  for (std::size_t v = first; v <= last; ++v) {
    if (m.is_primary(v) && k < primary.size()) {
      out[v - first] = primary[k++];
      current = without_ss(out[v - first]);
    } else {
      out[v - first] = current ? *current : lead;
    }
  }
  return out;
}

double set_latency(const LatencyModel& m, SetMapping& s) {
  double t = 0, weights = 0, activations = 0;
  for (std::size_t v = s.first; v <= s.last; ++v) {
    const LayerStrategy& sv = s.strategies[v - s.first];
    const LayerCost& c = m.layer_cost(v, s.set, s.design, sv);
    t += c.total_s();
    weights += c.weights_bytes;
    activations = std::max(activations, c.activation_bytes);
    for (std::size_t u : m.graph().predecessors(v))
      if (u >= s.first && u < v) t += m.redistribution_s(u, s.strategies[u - s.first], v, sv, s.set);
  }
  s.latency_s = weights + activations > m.memory_bytes(s.design) ? kInfinity : t;
  return s.latency_s;
}

double mapping_latency(const LatencyModel& m, Mapping& mapping) {
  std::vector<int> set_of(m.graph().size(), -1);
  double total = 0;
  for (auto& s : mapping.sets) {
    total += set_latency(m, s);
    for (std::size_t v = s.first; v <= s.last; ++v) set_of[v] = s.set;
  }
  mapping.transfers_s = 0;
  for (std::size_t v = 0; v < m.graph().size(); ++v)
    for (std::size_t u : m.graph().predecessors(v))
      if (set_of[u] != set_of[v]) mapping.transfers_s += m.inter_set_s(u, set_of[u], set_of[v]);
  mapping.latency_s = total + mapping.transfers_s;
  return mapping.latency_s;
}

Mapping search(const LatencyModel& m, const SearchOptions& o, SearchTrace* trace) {
  std::mt19937_64 rng(o.seed);
  SecondLevel second(m, o);
  const std::size_t designs = m.designs().size();
  const std::size_t slots = static_cast<std::size_t>(std::max(1, o.max_sets));
  // Profiled performance of each design on the whole workload, normalised to the fastest (§V).
  std::vector<double> performance(designs);
  double fastest = 0;
  for (std::size_t d = 0; d < designs; ++d) {
    performance[d] = 1.0 / std::max(1e-30, m.profile_s(static_cast<int>(d)));
    fastest = std::max(fastest, performance[d]);
  }
  std::map<std::vector<std::tuple<int, int, std::size_t, std::size_t>>, double> seen;
  Mapping best;
  best.latency_s = kInfinity;
  long long evaluations = 0;
  auto evaluate = [&](Outer& ind) {
    const Decoded d = decode(m, o, ind);
    if (auto it = seen.find(d.sets); it != seen.end()) {
      ind.fitness = it->second;
      return;
    }
    Mapping mapping;
    for (const auto& [set, design, first, last] : d.sets) mapping.sets.push_back(second.best(set, design, first, last));
    ind.fitness = mapping_latency(m, mapping);
    ++evaluations;
    seen.emplace(d.sets, ind.fitness);
    if (ind.fitness < best.latency_s || best.sets.empty()) best = std::move(mapping);
  };
  auto random_gene = [&] { return uniform(rng); };
  std::vector<Outer> pop(static_cast<std::size_t>(std::max(2, o.population)));
  for (auto& ind : pop) {
    ind.set_genes.resize(m.sets().size());
    for (auto& g : ind.set_genes) g = random_gene();
    ind.count = random_gene();
    ind.design_genes.resize(slots * designs);
    for (std::size_t k = 0; k < slots; ++k)
      for (std::size_t d = 0; d < designs; ++d)
        ind.design_genes[k * designs + d] = 0.5 * performance[d] / fastest + 0.5 * random_gene();
    ind.cuts.resize(slots - 1);
    for (auto& g : ind.cuts) g = random_gene();
    evaluate(ind);
  }
  auto fittest = [](const std::vector<Outer>& p) {
    return *std::min_element(p.begin(), p.end(), [](const Outer& a, const Outer& b) { return a.fitness < b.fitness; });
  };
  if (trace) {
    trace->initial_best_s = fittest(pop).fitness;
    trace->best_per_generation.push_back(trace->initial_best_s);
  }
  for (int gen = 0; gen < o.generations; ++gen) {
    std::vector<Outer> next{fittest(pop)};
    while (next.size() < pop.size()) {
      const Outer& a = tournament(pop, rng);
      const Outer& b = tournament(pop, rng);
      Outer child = a;
      auto cross = [&](std::vector<double>& mine, const std::vector<double>& theirs) {
        for (std::size_t i = 0; i < mine.size(); ++i)
          if (uniform(rng) < 0.5) mine[i] = theirs[i];
      };
      cross(child.set_genes, b.set_genes);
      cross(child.design_genes, b.design_genes);
      cross(child.cuts, b.cuts);
      if (uniform(rng) < 0.5) child.count = b.count;
      auto mutate_all = [&](std::vector<double>& genes) {
        for (auto& g : genes)
          if (uniform(rng) < o.mutation) g = uniform(rng);
      };
      mutate_all(child.set_genes);
      mutate_all(child.design_genes);
      mutate_all(child.cuts);
      if (uniform(rng) < o.mutation) child.count = uniform(rng);
      evaluate(child);
      next.push_back(std::move(child));
    }
    pop = std::move(next);
    if (trace) trace->best_per_generation.push_back(fittest(pop).fitness);
  }
  if (trace) trace->evaluations = evaluations;
  return best;
}

Mapping baseline(const LatencyModel& m) {
  // The two groups: the first two disjoint candidates after the whole system.
  std::vector<int> sets;
  std::vector<char> used(static_cast<std::size_t>(m.spec().device_count()), 0);
  for (std::size_t c = m.sets().size() > 1 ? 1 : 0; c < m.sets().size() && sets.size() < 2; ++c) {
    const auto& devices = m.sets()[c];
    if (std::any_of(devices.begin(), devices.end(), [&](int d) { return used[static_cast<std::size_t>(d)] != 0; })) continue;
    for (int d : devices) used[static_cast<std::size_t>(d)] = 1;
    sets.push_back(static_cast<int>(c));
  }
  const auto& primary = m.primary_layers();
  if (primary.size() < 2) sets.resize(1);
  Mapping mapping;
  for (std::size_t k = 0; k < sets.size(); ++k) {
    const std::size_t half = (primary.size() + 1) / 2;
    const std::size_t first = k == 0 ? 0 : primary[half];
    const std::size_t last = k + 1 == sets.size() ? m.graph().size() - 1 : primary[half] - 1;
    int design = 0;
    for (int d = 1; d < static_cast<int>(m.designs().size()); ++d)
      if (m.profile_s(d, first, last) < m.profile_s(design, first, last)) design = d;
    const int devices = static_cast<int>(m.sets()[static_cast<std::size_t>(sets[k])].size());
    std::vector<LayerStrategy> strategies;
    for (std::size_t v = first; v <= last; ++v) {
      if (!m.is_primary(v)) continue;
      // ES along the two longest of C_out, C_in, H, W.
      const plan::LoopExtent e = geometry::loop_extent(m.graph().layer(v), m.graph().batch());
      StrategyGenes g;
      g.es = {static_cast<double>(e.out_channels), static_cast<double>(e.in_channels), static_cast<double>(e.height),
              static_cast<double>(e.width)};
      g.two_es = 1;
      g.use_ss = 0;
      strategies.push_back(decode(g, devices));
    }
    mapping.sets.push_back({sets[k], design, first, last, expand_strategies(m, first, last, strategies), 0});
  }
  mapping_latency(m, mapping);
  return mapping;
}

}  // namespace partsim::mars
