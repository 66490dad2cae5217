#pragma once
// Fixtures of the dsm lowering tests: the tiny platform (tests/dsm/tiny_system.hpp as YAML), a dsm
// plan's passes with their predictions, and a small network that exercises every optimization.

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/planners/dsm/plan_fields.hpp"
#include "sim/plan/json_reader.hpp"
#include "sim/plan/plan.hpp"
#include "workloads/graph.hpp"
#include "workloads/net_builder.hpp"

namespace partsim::test {

/// 2 x 2 torus (x_chips x 2), chips of 2 cores with one 4 x 4 PE array each at 1 GHz; on-chip and
/// chip-to-chip link latencies as given.
inline std::string tiny_yaml(const std::string& c2c_latency = "0ns", const std::string& link_latency = "0ns",
                             int x_chips = 2) {
  return "system:\n"
         "  name: tiny_dsm\n"
         "  precision: fp16\n"
         "  device_types:\n"
         "    chip:\n"
         "      kind: template\n"
         "      pe: {simd_lanes: 1, register_file: 64B}\n"
         "      pe_array: {rows: 4, cols: 4}\n"
         "      core: {pe_arrays: 1, sfus: 1, sfu_lanes: 4, scratchpad: 1KiB, scratchpad_bandwidth: 32GB/s, "
         "frequency: 1GHz}\n"
         "      chip: {cores: 2, interconnect: ring, core_to_core_bandwidth: 8GB/s, on_chip_latency: " +
         c2c_latency +
         ", memory: 1GB, memory_bandwidth: 10GB/s, memory_efficiency: 0.8, memory_latency: 0ns}\n"
         "  devices:\n"
         "    - {type: chip, count: " + std::to_string(2 * x_chips) + "}\n"
         "  torus:\n"
         "    dims: [" + std::to_string(x_chips) + ", 2]\n"
         "    bandwidth: [4GB/s, 1GB/s]\n"
         "    latency: [" + link_latency + ", " + link_latency + "]\n"
         "    bidirectional: false\n";
}

/// A pass of a dsm plan: its family fields and the planner's prediction.
struct PassView : dsm::DsmPassPlan {
  plan::PredictedCost predicted;
};

inline std::vector<PassView> passes_of(const plan::LayerPlan& l) {
  std::vector<PassView> out;
  for (const auto& f : dsm::dsm_fields_from(plan::JsonReader(l.family, "/family", "plan")).passes) {
    PassView v;
    static_cast<dsm::DsmPassPlan&>(v) = f;
    for (const auto& pc : l.passes)
      if (pc.pass == f.pass) v.predicted = pc.cost;
    out.push_back(v);
  }
  return out;
}

inline PassView pass_of(const plan::Plan& p, const std::string& layer, plan::Pass pass) {
  for (const auto& l : p.layers)
    if (l.name == layer)
      for (const auto& pp : passes_of(l))
        if (pp.pass == pass) return pp;
  throw std::runtime_error("no pass " + layer);
}

/// conv -> relu -> conv -> max pool -> flatten -> fc on 2 x 8 x 8 inputs: biases, activation and
/// pooling give AuxComp; with opt=all the planner holds edges on chip, uses DySM and hybrid splits.
inline workloads::Graph three_layers(std::int64_t batch) {
  workloads::NetBuilder b("three_layers", "");
  std::string x = b.input("x", {2, 8, 8});
  x = b.conv("c1", x, 4, 3, 1, 1);
  x = b.activation("r1", x);
  x = b.conv("c2", x, 4, 3, 1, 1);
  x = b.pool("p2", x, workloads::PoolOp::max, 2, 2);
  x = b.flatten("flat", x);
  b.fc("fc", x, 16);
  return b.build(batch);
}

}  // namespace partsim::test
