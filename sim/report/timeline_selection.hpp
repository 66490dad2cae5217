#pragma once
// Which part of a run the Chrome-trace timeline shows: TimelineOptions' layer, device and link-kind
// filters resolved against the Program and the platform. Internal to timeline.cpp.

#include <array>
#include <string>
#include <vector>

#include "sim/program/program.hpp"
#include "sim/report/timeline.hpp"
#include "topology/topology_graph.hpp"

namespace partsim::report::detail {

/// A device's process name: the platform's device name, else "dev<index>".
std::string device_name(const topology::TopologyGraph& graph, int device);

// TimelineOptions' filters resolved against the Program and the platform.
class Selection {
 public:
  Selection() = default;
  // InputError naming the option and the allowed values for an unknown layer, device or link kind.
  Selection(const TimelineOptions& options, const program::Program& program, const topology::TopologyGraph& graph);

  bool layer(int l) const { return layers_.empty() || (l >= 0 && layers_[static_cast<size_t>(l)]); }
  // A track's process: a device, or "program" (no one device), shown only without a device filter.
  bool device(int pid) const {
    return devices_.empty() || (pid >= 0 && pid < static_cast<int>(devices_.size()) && devices_[static_cast<size_t>(pid)]);
  }
  // Links of a selected kind; with a device filter, those with an end on a selected device.
  bool link(const topology::TopoLink& l, const topology::TopologyGraph& graph) const {
    if (!kinds_[static_cast<size_t>(l.kind)]) return false;
    return devices_.empty() || device(graph.node(l.src).device) || device(graph.node(l.dst).device);
  }

 private:
  std::vector<char> layers_;   // per layer; empty: every layer
  std::vector<char> devices_;  // per device; empty: every device
  std::array<char, 3> kinds_{1, 1, 1};  // per topology::TopoLinkKind
};

}  // namespace partsim::report::detail
