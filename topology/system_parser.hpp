#pragma once
// Platform files: YAML -> validated SystemSpec. The way back (--dump-config) is system_writer.hpp;
// the keys both use are declared once, in spec_fields.hpp.
//
// Contract: load_system/parse_system either return a complete, validated spec (units resolved to SI,
// every device typed and named, groups resolved to device indices, the topology consistent with the
// device count and connected) or throw a ParseError "file:line:col: key.path: message" (or
// "--set assignment: key.path: message" for a value written by an override). The schema is
// documented key by key in configs/README.md, whose key tables are generated from spec_fields.hpp.

#include <string>
#include <vector>

#include "sim/common/yaml_reader.hpp"
#include "topology/system_spec.hpp"

namespace partsim::topology {

/// Reads a platform file, applying "--set key.path=value" overrides first.
SystemSpec load_system(const std::string& file, const std::vector<std::string>& overrides = {});

/// Reads a platform document (its root map holds `system:`).
SystemSpec parse_system(const yaml::ConfigNode& root);

/// Reads one device type (a value of `system.device_types`, schema in configs/README.md) called
/// `name`. Used for the files' device types and for the built-in presets (device_presets.cpp).
DeviceType parse_device_type(const std::string& name, const yaml::ConfigNode& node);

}  // namespace partsim::topology
