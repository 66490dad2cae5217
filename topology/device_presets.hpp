#pragma once
// Built-in device types that a platform file names with `preset: <name>` (and may then override
// field by field). Each preset says in its description where its numbers come from.
//
// Contract: names are unique; find_device_preset() returns nullptr for an unknown name, and
// device_preset_names() lists every valid name (for "unknown preset" messages and --list).

#include <string>
#include <vector>

#include "topology/system_spec.hpp"

namespace partsim::topology {

/// All built-in presets, in a fixed order. DeviceType::name is the preset's name.
const std::vector<DeviceType>& device_presets();

/// The preset called `name`, or nullptr.
const DeviceType* find_device_preset(const std::string& name);

/// "dsm_chip_8pf, edge_tpu_chiplet, ..." (comma-separated, in registry order).
std::string device_preset_names();

}  // namespace partsim::topology
