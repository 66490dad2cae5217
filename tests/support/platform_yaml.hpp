#pragma once
// Platforms written inline in a test: YAML text -> validated SystemSpec, with no temporary file.
// Compiled once in the test support library (platform_yaml.cpp), so that a test writing a platform
// inline does not compile yaml-cpp's headers itself.

#include <string>
#include <vector>

#include "topology/system_spec.hpp"

namespace partsim::test {

/// Parses `text` (a platform document, schema in configs/README.md) as load_system() reads a file,
/// "--set" `overrides` first, and validates it. `file_name` stands for the file in error messages
/// ("platform.yaml:3:5: system.torus.dims: ..."); nothing is written to disk.
topology::SystemSpec platform_from_yaml(const std::string& text, const std::vector<std::string>& overrides = {},
                                        const std::string& file_name = "platform.yaml");

/// `devices` roofline devices (1 TFLOP/s) on a unidirectional ring, 10 GB/s and 1 us per link:
/// d0 -> d1 -> ... -> d0. Times worked out by hand in a test come out round.
topology::SystemSpec unidirectional_ring(int devices);

}  // namespace partsim::test
