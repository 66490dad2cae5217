#include "sim/planners/mars/layer_strategy.hpp"

#include <algorithm>
#include <numeric>

namespace partsim::mars {

std::vector<LayerStrategy> all_strategies(int devices) {
  std::vector<LayerStrategy> out;
  if (devices <= 1) return {LayerStrategy{}};
  std::vector<std::vector<std::pair<plan::ShardDim, int>>> es;
  for (auto d : kStrategyDims) es.push_back({{d, devices}});
  for (std::size_t i = 0; i < kStrategyDims.size(); ++i)
    for (std::size_t j = 0; j < kStrategyDims.size(); ++j)
      for (int a = 2; a * 2 <= devices; ++a)
        if (i != j && devices % a == 0 && devices / a >= 2 && (i < j || a != devices / a))
          es.push_back({{kStrategyDims[i], a}, {kStrategyDims[j], devices / a}});
  for (const auto& e : es) {
    out.push_back({e, std::nullopt});
    for (auto d : kStrategyDims)
      if (std::none_of(e.begin(), e.end(), [d](const auto& p) { return p.first == d; })) out.push_back({e, d});
  }
  return out;
}

plan::Sharding to_sharding(const LayerStrategy& s, const std::vector<int>& devices) {
  plan::Sharding sh;
  sh.devices = devices;
  for (const auto& [dim, parts] : s.es) sh.splits.push_back({dim, parts, {}, {}});
  sh.shared = s.ss;
  return sh;
}

LayerStrategy decode(const StrategyGenes& g, int devices) {
  LayerStrategy s;
  if (devices <= 1) return s;
  std::array<std::size_t, 4> order{0, 1, 2, 3};
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return g.es[a] > g.es[b]; });
  // Two ES dimensions: the most even factorisation a x b of the set, the larger on the first.
  int a = 1;
  for (int f = 2; f * f <= devices; ++f)
    if (devices % f == 0) a = f;
  if (g.two_es >= 0.5 && a >= 2)
    s.es = {{kStrategyDims[order[0]], devices / a}, {kStrategyDims[order[1]], a}};
  else
    s.es = {{kStrategyDims[order[0]], devices}};
  if (g.use_ss >= 0.5) {
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < 4; ++i) {
      const bool in_es = std::any_of(s.es.begin(), s.es.end(), [&](const auto& p) { return p.first == kStrategyDims[i]; });
      if (!in_es && (!best || g.ss[i] > g.ss[*best])) best = i;
    }
    if (best) s.ss = kStrategyDims[*best];
  }
  return s;
}

std::optional<StrategyGenes> encode(const LayerStrategy& s, int devices) {
  StrategyGenes g;
  auto index = [](plan::ShardDim d) {
    return static_cast<std::size_t>(std::find(kStrategyDims.begin(), kStrategyDims.end(), d) - kStrategyDims.begin());
  };
  for (std::size_t i = 0; i < s.es.size() && i < 2; ++i) {
    const std::size_t k = index(s.es[i].first);
    if (k >= kStrategyDims.size()) return std::nullopt;
    g.es[k] = 1.0 - 0.1 * static_cast<double>(i);
  }
  g.two_es = s.es.size() == 2 ? 1.0 : 0.0;
  if (s.ss) {
    const std::size_t k = index(*s.ss);
    if (k >= kStrategyDims.size()) return std::nullopt;
    g.ss[k] = 1.0;
    g.use_ss = 1.0;
  }
  if (!(decode(g, devices) == s)) return std::nullopt;
  return g;
}

std::string dim_label(plan::ShardDim d) {
  switch (d) {
    case plan::ShardDim::out_channels: return "C_out";
    case plan::ShardDim::in_channels: return "C_in";
    case plan::ShardDim::height:
    case plan::ShardDim::sequence: return "H";
    case plan::ShardDim::width: return "W";
    case plan::ShardDim::batch: return "B";
  }
  return "?";
}

std::string to_string(const LayerStrategy& s) {
  std::string out = "ES = {";
  for (std::size_t i = 0; i < s.es.size(); ++i)
    out += (i ? ", " : "") + dim_label(s.es[i].first) + (s.es[i].second > 0 ? "/" + std::to_string(s.es[i].second) : "");
  out += "}, SS = ";
  out += s.ss ? "{" + dim_label(*s.ss) + "}" : "{}";
  return out;
}

}  // namespace partsim::mars
