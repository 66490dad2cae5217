#pragma once
// A layer's parallelism strategy on an accelerator set (seed 004 §IV): exclusive shards (ES) along
// one or two loop dimensions, with a degree each whose product is the set's size, and optionally
// shared shards (SS) along one more dimension (plan::Sharding::shared). The dimensions are the
// convolution's output channels, input channels, rows and columns (inference at batch 1: the batch
// loop is not split; the kernel loops are not split, §IV's 6 loops minus these).
//
// The second-level GA's genes for a layer (§V): one priority per dimension for ES and one for SS,
// how many ES dimensions, whether SS is used. Decoding takes the ES dimensions of highest priority
// (two when the gene asks and the set's size factors as a x b, a, b >= 2, the larger degree on the
// dimension of higher priority), then the SS dimension of highest SS priority among the others.
//
// Contract: pure.

#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/plan/sharding.hpp"

namespace partsim::mars {

/// The loop dimensions MARS splits, in gene order.
inline constexpr std::array<plan::ShardDim, 4> kStrategyDims{plan::ShardDim::out_channels, plan::ShardDim::in_channels,
                                                             plan::ShardDim::height, plan::ShardDim::width};

struct LayerStrategy {
  std::vector<std::pair<plan::ShardDim, int>> es;  // dimension, degree; outermost first
  std::optional<plan::ShardDim> ss;
  bool operator==(const LayerStrategy&) const = default;
  auto operator<=>(const LayerStrategy&) const = default;
};

/// Every strategy on a set of `devices` devices (ES degrees multiply to it; SS on another dimension).
std::vector<LayerStrategy> all_strategies(int devices);

/// The strategy's sharding over `devices` (in order).
plan::Sharding to_sharding(const LayerStrategy& s, const std::vector<int>& devices);

/// Genes of one layer: ES priorities, SS priorities, ES count (< 0.5: one dimension), SS use (< 0.5: none).
struct StrategyGenes {
  std::array<double, 4> es{};
  std::array<double, 4> ss{};
  double two_es = 0;
  double use_ss = 0;
};
LayerStrategy decode(const StrategyGenes& genes, int devices);
/// Genes that decode to `s` on `devices` devices, when decode() can express it (two ES dimensions
/// only as its most even factorisation, larger degree first); nullopt otherwise.
std::optional<StrategyGenes> encode(const LayerStrategy& s, int devices);

/// Short names as the paper writes them: "C_out", "C_in", "H", "W".
std::string dim_label(plan::ShardDim d);
/// "ES = {H, W}, SS = {C_out}" (seed 004 Table III's notation).
std::string to_string(const LayerStrategy& s);

}  // namespace partsim::mars
