#include "sim/report/timeline_selection.hpp"

#include <algorithm>
#include <charconv>

#include "sim/common/error.hpp"

namespace partsim::report::detail {
namespace {

// The first names of a list, for an error message.
std::string some_names(const std::vector<std::string>& names) {
  constexpr size_t kShown = 8;
  std::string out = names.size() > kShown ? "first of " + std::to_string(names.size()) + ": " : "";
  for (size_t i = 0; i < std::min(kShown, names.size()); ++i) out += (i ? ", " : "") + names[i];
  return out;
}

}  // namespace

std::string device_name(const topology::TopologyGraph& graph, int device) {
  const auto& names = graph.spec().device_names;
  if (device < static_cast<int>(names.size()) && !names[static_cast<size_t>(device)].empty())
    return names[static_cast<size_t>(device)];
  return "dev" + std::to_string(device);
}

Selection::Selection(const TimelineOptions& options, const program::Program& program,
                     const topology::TopologyGraph& graph) {
  const auto& layers = program.layer_names();
  if (!options.layers.empty()) {
    layers_.assign(layers.size(), 0);
    for (const auto& name : options.layers) {
      const auto it = std::find(layers.begin(), layers.end(), name);
      if (it == layers.end())
        throw InputError("--timeline-layers: no layer '" + name + "' in the plan (" + some_names(layers) + ")");
      layers_[static_cast<size_t>(it - layers.begin())] = 1;
    }
  }
  const int device_count = graph.device_count();
  if (!options.devices.empty()) {
    devices_.assign(static_cast<size_t>(device_count), 0);
    std::vector<std::string> names;
    for (int d = 0; d < device_count; ++d) names.push_back(device_name(graph, d));
    for (const auto& name : options.devices) {
      const auto it = std::find(names.begin(), names.end(), name);
      int device = it == names.end() ? -1 : static_cast<int>(it - names.begin());
      int index = -1;
      const auto r = std::from_chars(name.data(), name.data() + name.size(), index);
      if (device < 0 && r.ec == std::errc() && r.ptr == name.data() + name.size() && index >= 0 &&
          index < device_count)
        device = index;
      if (device < 0)
        throw InputError("--timeline-devices: no device '" + name + "' on the platform (a name or an index 0.." +
                         std::to_string(device_count - 1) + "; " + some_names(names) + ")");
      devices_[static_cast<size_t>(device)] = 1;
    }
  }
  kinds_ = {0, 0, 0};
  const bool none = options.link_kinds.size() == 1 && options.link_kinds[0] == "none";
  for (const auto& kind : none ? std::vector<std::string>{} : options.link_kinds) {
    if (kind == "chip_to_chip") kinds_[0] = 1;
    else if (kind == "on_chip") kinds_[1] = 1;
    else if (kind == "memory") kinds_[2] = 1;
    else throw InputError("--timeline-links: unknown link kind '" + kind + "' (allowed: " + kTimelineLinkKinds + ")");
  }
}

}  // namespace partsim::report::detail
