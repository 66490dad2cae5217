#pragma once
// Efficiency tables of calibrated devices: YAML files (configs/devices/*.yaml; schema in
// configs/README.md, "Efficiency tables") with the achieved fraction of a peak per operator class,
// precision, pass and kernel size, each row with its source. Read into CalibratedDevice::efficiency.
//
// Contract: a table is found by a reference, as a device type's `efficiency_table` writes it: a
// built-in table's name (no '/', not ending in ".yaml"), or the path of a file, relative paths
// resolved against a base directory (the platform file's; "" = the current directory). Built-in
// tables are every configs/devices/*.yaml, compiled into the library at build time (CMake embeds
// the files; topology/embed_efficiency_tables.cmake), so a preset works wherever the binary runs.
// Every problem is one ParseError at the table's line ("configs/devices/x.yaml:12:5: rows[3].op:
// must be one of gemm, conv, ... (got gem)"), or at the `efficiency_table` key for a file that cannot
// be read or a name that is not built in (listing the built-in names).

#include <string>
#include <string_view>
#include <vector>

#include "topology/system_spec.hpp"

namespace partsim::yaml {
class ConfigNode;  // sim/common/yaml_reader.hpp
}  // namespace partsim::yaml

namespace partsim::topology {

/// One table compiled into the library.
struct BuiltinEfficiencyTable {
  std::string_view name;  // the file's stem: what `efficiency_table:` writes
  std::string_view file;  // its path in the source tree, e.g. "configs/devices/h100_sxm5_80gb.yaml"
  std::string_view text;  // the file's bytes
};

/// Every built-in table, sorted by name (generated source, see topology/CMakeLists.txt).
const std::vector<BuiltinEfficiencyTable>& builtin_efficiency_tables();

/// The built-in table called `name`, or nullptr.
const BuiltinEfficiencyTable* find_builtin_efficiency_table(std::string_view name);

/// "a100_sxm4_80gb, h100_sxm5_80gb" ("none" when no table is built in).
std::string builtin_efficiency_table_names();

/// True when `reference` names a file (contains '/' or ends in ".yaml"), false for a built-in name.
bool is_efficiency_table_path(std::string_view reference);

/// Reads a table document (its root map holds `table`, `device`, `rows`, ...). `expected_name`, when
/// not empty, is what `table:` must say (a built-in table's stem).
std::vector<EfficiencyPoint> parse_efficiency_table(const yaml::ConfigNode& root, std::string_view expected_name = {});

/// Finds and reads the table `reference` (a built-in name or a path, resolved against
/// `base_directory`); problems finding it are reported at `at` (the `efficiency_table` key).
std::vector<EfficiencyPoint> load_efficiency_table(const std::string& reference, const std::string& base_directory,
                                                   const yaml::ConfigNode& at);

}  // namespace partsim::topology
