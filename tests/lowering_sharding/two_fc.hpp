#pragma once
// Fixtures of the sharding-lowering tests: a star of roofline devices and a two-layer workload
// whose every time is easy to compute by hand.

#include <string>
#include <vector>

#include "sim/plan/plan.hpp"
#include "tests/support/platform_yaml.hpp"
#include "workloads/graph.hpp"

namespace partsim::fixtures {

// `n` roofline devices on a star, bf16 (2 bytes per element), no latency (or `latency` per link):
// 1 TFLOP/s, memory 1000 GB/s (or `memory_bandwidth`), 1 GB/s per device link.
inline topology::SystemSpec star(int n, const std::string& memory_bandwidth = "1000GB/s",
                                 const std::string& latency = "0s") {
  return test::platform_from_yaml("system:\n  name: star\n  precision: bf16\n  device_types:\n"
                            "    dev: {kind: roofline, peak: 1TFLOP/s, memory: 16GiB, memory_bandwidth: " +
                            memory_bandwidth + ", "
                            "network_bandwidth: 1GB/s}\n"
                            "  devices:\n    - {type: dev, count: " + std::to_string(n) + "}\n"
                            "  star:\n    latency: " + latency + "\n");
}

// x (1024 features) -> fc1 -> ... -> fcN (1024 -> 1024 each), batch 64, no biases, named `name`.
inline workloads::Graph fc_chain(const std::string& name, int layers) {
  workloads::Graph g(name);
  workloads::LayerSpec x;
  x.name = "x";
  x.kind = workloads::LayerKind::input;
  x.attr.shape = {1024, 1, 1};
  g.add(x);
  for (int i = 1; i <= layers; ++i) {
    workloads::LayerSpec fc;
    fc.name = "fc" + std::to_string(i);
    fc.kind = workloads::LayerKind::fc;
    fc.inputs = {i == 1 ? "x" : "fc" + std::to_string(i - 1)};
    fc.attr.out_channels = 1024;
    fc.attr.bias = false;
    g.add(fc);
  }
  g.finalize(64);
  return g;
}

// x (1024 features) -> fc1 (1024 -> 1024) -> fc2 (1024 -> 1024), batch 64, no biases: no auxiliary
// FLOPs. Per pass (AccPar Table 6, 2P - 1 FLOP per output): FWD 65536 x 2047 = 134,152,192;
// BWD 65536 x 2047; UPD 1048576 x 127 = 133,169,152. Weights 1024 x 1024 x 2 B = 2,097,152 B.
inline workloads::Graph two_fc() { return fc_chain("two_fc", 2); }

/// A plan of the given shardings, one per layer of `g`, in `mode` (the strategy name is only a label).
inline plan::Plan plan_of(const workloads::Graph& g, const std::vector<plan::Sharding>& shardings,
                          plan::Mode mode = plan::Mode::training) {
  plan::Plan p;
  p.strategy = "hand";
  p.workload = {g.name(), g.batch(), mode};
  for (std::size_t i = 0; i < g.size(); ++i) {
    plan::LayerPlan l;
    l.name = g.layer(i).name;
    l.sharding = shardings.at(i);
    p.layers.push_back(l);
  }
  return p;
}

constexpr double kFwdFlops = 65536.0 * 2047;
constexpr double kUpdFlops = 1048576.0 * 127;
constexpr double kWeightBytes = 1048576.0 * 2;

}  // namespace partsim::fixtures
