#pragma once
// Platforms written inline in a test: YAML text -> validated SystemSpec, with no temporary file.

#include <string>
#include <vector>

#include "sim/common/yaml_reader.hpp"
#include "topology/system_parser.hpp"
#include "topology/system_spec.hpp"

namespace partsim::test {

/// Parses `text` (a platform document, schema in configs/README.md) as load_system() reads a file,
/// "--set" `overrides` first, and validates it. `file_name` stands for the file in error messages
/// ("platform.yaml:3:5: system.torus.dims: ..."); nothing is written to disk.
inline topology::SystemSpec platform_from_yaml(const std::string& text, const std::vector<std::string>& overrides = {},
                                               const std::string& file_name = "platform.yaml") {
  return topology::parse_system(yaml::load_string(text, file_name, overrides));
}

}  // namespace partsim::test
