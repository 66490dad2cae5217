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

/// `devices` roofline devices (1 TFLOP/s) on a unidirectional ring, 10 GB/s and 1 us per link:
/// d0 -> d1 -> ... -> d0. Times worked out by hand in a test come out round.
inline topology::SystemSpec unidirectional_ring(int devices) {
  const std::string n = std::to_string(devices);
  return platform_from_yaml("system:\n  name: ring" + n +
                            "\n  device_types:\n"
                            "    acc: {kind: roofline, peak: 1TFLOP/s, memory: 1GB, memory_bandwidth: 100GB/s}\n"
                            "  devices:\n    - {type: acc, count: " + n + "}\n"
                            "  torus:\n    dims: [" + n + "]\n    bandwidth: [10GB/s]\n    latency: [1us]\n"
                            "    bidirectional: false\n");
}

}  // namespace partsim::test
