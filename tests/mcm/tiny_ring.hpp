#pragma once
// A small uni-directional ring and a five-node graph whose costs are easy to compute by hand.

#include <string>

#include "tests/support/platform_yaml.hpp"
#include "workloads/net_builder.hpp"

namespace partsim::test {

/// `chips` chiplets of 1 TFLOP/s, `sram` (2 MiB) of SRAM, 1e15 B/s SRAM bandwidth (so the roofline
/// is the FLOP term), int8; ring links of 1 GB/s and 100 ns.
inline topology::SystemSpec tiny_ring(int chips = 4, const std::string& sram = "2MiB") {
  return platform_from_yaml(R"(
system:
  name: tiny_ring
  precision: int8
  device_types:
    chiplet: {kind: roofline, peak: 1TFLOP/s, memory: )" + sram + R"(, memory_bandwidth: 1000TB/s, network_bandwidth: 1GB/s}
  devices:
    - {type: chiplet, count: )" + std::to_string(chips) + R"(}
  torus: {dims: [)" + std::to_string(chips) + R"(], bandwidth: [1GB/s], latency: [100ns], bidirectional: false}
)");
}

/// x (input, 1000 features) -> a -> b -> c (fc 1000 -> 1000 with bias) -> d = add(c, a).
/// Each fc: 1000*1000 MACs, FLOP = 2*1e6 - 1000 (Table 6) + 1000 bias = 2e6; 1,001,000 params = bytes.
inline workloads::Graph diamond() {
  workloads::NetBuilder b("diamond", "");
  const std::string x = b.input("x", {1000, 1, 1});
  const std::string a = b.fc("a", x, 1000);
  const std::string c = b.fc("c", b.fc("b", a, 1000), 1000);
  b.add("d", {c, a});
  return b.build(1);
}

}  // namespace partsim::test
