#include "tests/support/platform_yaml.hpp"

#include "sim/common/yaml_reader.hpp"
#include "topology/system_parser.hpp"

namespace partsim::test {

topology::SystemSpec platform_from_yaml(const std::string& text, const std::vector<std::string>& overrides,
                                        const std::string& file_name) {
  return topology::parse_system(yaml::load_string(text, file_name, overrides));
}

topology::SystemSpec unidirectional_ring(int devices) {
  const std::string n = std::to_string(devices);
  return platform_from_yaml("system:\n  name: ring" + n +
                            "\n  device_types:\n"
                            "    acc: {kind: roofline, peak: 1TFLOP/s, memory: 1GB, memory_bandwidth: 100GB/s}\n"
                            "  devices:\n    - {type: acc, count: " + n + "}\n"
                            "  torus:\n    dims: [" + n + "]\n    bandwidth: [10GB/s]\n    latency: [1us]\n"
                            "    bidirectional: false\n");
}

}  // namespace partsim::test
