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

#include "topology/system_spec.hpp"

namespace partsim::yaml {
class ConfigNode;  // sim/common/yaml_reader.hpp
}  // namespace partsim::yaml

namespace partsim::topology {

/// Reads a platform file, applying "--set key.path=value" overrides first.
SystemSpec load_system(const std::string& file, const std::vector<std::string>& overrides = {});

/// Reads a platform document (its root map holds `system:`). Relative paths in it (a calibrated
/// device's efficiency_table) start at `base_directory` ("": the current directory).
SystemSpec parse_system(const yaml::ConfigNode& root, const std::string& base_directory = "");

/// How parse_device_type treats a calibrated device's efficiency table.
struct DeviceTypeContext {
  std::string base_directory;          // where a relative table path starts ("": the current directory)
  bool read_efficiency_table = true;   // false: keep the name, leave the rows empty (the built-in presets,
                                       // whose tables are read where a platform uses them)
};

/// Reads one device type (a value of `system.device_types`, schema in configs/README.md) called
/// `name`. Used for the files' device types and for the built-in presets (device_presets.cpp).
DeviceType parse_device_type(const std::string& name, const yaml::ConfigNode& node,
                             const DeviceTypeContext& context = {});

/// Reads the rows of a calibrated device whose table is named but not read yet (a preset's); nothing
/// for other devices. Errors finding the table are reported at `at`'s efficiency_table key.
void resolve_efficiency_table(DeviceType& type, const yaml::ConfigNode& at, const std::string& base_directory);

}  // namespace partsim::topology
