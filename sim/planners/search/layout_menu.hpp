#pragma once
// What the `search` strategy may give one layer (issue 44): the union of what the planner families
// can express, as shardings (sim/plan/sharding.hpp) the shared lowering replays.
//
// A Layout is a sharding pattern independent of any layer: a device subset and splits. The menu is
//   - 1-D splits of every device over one loop dimension: batch (every family's data parallelism,
//     AccPar Type-I), out_channels (AccPar Type-III, Megatron's column-parallel), in_channels
//     (AccPar Type-II, Megatron's row-parallel), height and width (DeePa's h and w, DSM's spatial
//     tiles; height is also the sequence axis);
//   - 2-D splits a x b = n (a, b > 1): batch x out_channels and batch x in_channels (Megatron's DP x TP,
//     AccPar's hierarchy), batch x height (DeePa's n x h);
//   - device subsets: a contiguous block of n / 2^k devices (k = 1..3) with batch or out_channels
//     over it (pipeline stages of MARS's accelerator sets, DeePa's device subsets, mcm placements);
//   - and, per layer, every seed plan's own sharding of that layer (AccPar's ratios, DeePa's
//     configurations, MARS's sets as their planners chose them): Menu::seeded.
// Which kinds are allowed follows the `families` option (registration.cpp): accpar: batch, channels
// and 2-D; deepa: batch, out_channels, spatial, batch x height and subsets; dsm: spatial;
// mars and mcm: subsets; megatron: batch, channels, 2-D and subsets.
//
// Contract: pure. realize() gives the layer's sharding for a layout, or nothing where the layout does
// not fit the layer (a dimension with fewer indices than parts: a split would leave a box empty).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/plan/sharding.hpp"
#include "workloads/layer.hpp"

namespace partsim::search {

enum class LayoutKind { one_dim, two_dim, subset };

struct Layout {
  LayoutKind kind = LayoutKind::one_dim;
  std::vector<int> devices;                                 // in order
  std::vector<std::pair<plan::ShardDim, int>> degrees;      // outermost first; product = devices.size()
  std::string name() const;                                 // e.g. "batch8", "batch2xout4", "dev[0,4)batch4"
};

struct MenuKinds {
  bool batch = true;
  bool channels = true;  // out_channels and in_channels
  bool spatial = true;   // height and width
  bool two_dim = true;
  bool subsets = true;
};

/// Every layout of `device_count` devices the kinds allow, in a fixed order.
std::vector<Layout> layouts(int device_count, const MenuKinds& kinds);

/// The layer's sharding for `layout` at minibatch `batch`, or nothing where a split dimension has
/// fewer indices than its parts, or where a channel split meets a layer with one channel axis on
/// in_channels (the same axis as out_channels: only out_channels is offered there).
std::optional<plan::Sharding> realize(const Layout& layout, const workloads::Layer& layer, std::int64_t batch);

}  // namespace partsim::search
