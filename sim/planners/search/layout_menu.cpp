#include "sim/planners/search/layout_menu.hpp"

#include "sim/geometry/layer_geometry.hpp"

namespace partsim::search {
namespace {

std::int64_t extent_of(const plan::LoopExtent& e, plan::ShardDim dim) {
  switch (dim) {
    case plan::ShardDim::batch: return e.batch;
    case plan::ShardDim::out_channels: return e.out_channels;
    case plan::ShardDim::in_channels: return e.in_channels;
    case plan::ShardDim::height:
    case plan::ShardDim::sequence: return e.height;
    case plan::ShardDim::width: return e.width;
  }
  return 1;
}

std::string short_name(plan::ShardDim dim) {
  switch (dim) {
    case plan::ShardDim::out_channels: return "out";
    case plan::ShardDim::in_channels: return "in";
    default: return plan::to_string(dim);
  }
}

std::vector<int> block(int first, int count) {
  std::vector<int> devices(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) devices[static_cast<std::size_t>(i)] = first + i;
  return devices;
}

}  // namespace

std::string Layout::name() const {
  std::string text;
  if (kind == LayoutKind::subset)
    text = "dev[" + std::to_string(devices.front()) + "," + std::to_string(devices.back() + 1) + ")";
  for (std::size_t i = 0; i < degrees.size(); ++i)
    text += (i > 0 ? "x" : "") + short_name(degrees[i].first) + std::to_string(degrees[i].second);
  return text;
}

std::vector<Layout> layouts(int device_count, const MenuKinds& kinds) {
  using plan::ShardDim;
  std::vector<Layout> out;
  const std::vector<int> all = block(0, device_count);
  std::vector<ShardDim> one;
  if (kinds.batch) one.push_back(ShardDim::batch);
  if (kinds.channels) {
    one.push_back(ShardDim::out_channels);
    one.push_back(ShardDim::in_channels);
  }
  if (kinds.spatial) {
    one.push_back(ShardDim::height);
    one.push_back(ShardDim::width);
  }
  for (ShardDim d : one) out.push_back({LayoutKind::one_dim, all, {{d, device_count}}});
  if (kinds.two_dim)
    for (int a = 2; a < device_count; ++a) {
      if (device_count % a != 0) continue;
      const int b = device_count / a;
      if (b < 2) continue;
      if (kinds.batch && kinds.channels) {
        out.push_back({LayoutKind::two_dim, all, {{ShardDim::batch, a}, {ShardDim::out_channels, b}}});
        out.push_back({LayoutKind::two_dim, all, {{ShardDim::batch, a}, {ShardDim::in_channels, b}}});
      }
      if (kinds.batch && kinds.spatial) out.push_back({LayoutKind::two_dim, all, {{ShardDim::batch, a}, {ShardDim::height, b}}});
    }
  if (kinds.subsets)
    for (int parts = 2; parts <= 8 && device_count % parts == 0 && device_count / parts >= 1; parts *= 2) {
      const int size = device_count / parts;
      for (int first = 0; first < device_count; first += size)
        for (ShardDim d : {ShardDim::batch, ShardDim::out_channels}) {
          if ((d == ShardDim::batch && !kinds.batch) || (d == ShardDim::out_channels && !kinds.channels)) continue;
          if (size == 1 && d != ShardDim::batch) continue;  // one device: a single layout
          out.push_back({LayoutKind::subset, block(first, size), {{d, size}}});
        }
    }
  return out;
}

std::optional<plan::Sharding> realize(const Layout& layout, const workloads::Layer& layer, std::int64_t batch) {
  const plan::LoopExtent extent = geometry::loop_extent(layer, batch);
  for (const auto& [dim, parts] : layout.degrees) {
    if (dim == plan::ShardDim::in_channels && !geometry::has_two_channel_axes(layer) && parts > 1) return std::nullopt;
    if (extent_of(extent, dim) < parts) return std::nullopt;
  }
  std::vector<std::pair<plan::ShardDim, int>> degrees;
  for (const auto& d : layout.degrees)
    if (d.second > 1) degrees.push_back(d);
  return plan::mesh_sharding(layout.devices, degrees);
}

}  // namespace partsim::search
