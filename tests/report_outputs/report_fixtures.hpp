#pragma once
// Fixtures of the report-output tests: two small platforms, hand-made Evaluations, link lookups.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "sim/plan/plan.hpp"
#include "sim/program/evaluation.hpp"
#include "sim/program/program.hpp"
#include "sim/report/link_usage.hpp"
#include "tests/support/platform_yaml.hpp"
#include "topology/topology_graph.hpp"

namespace partsim::test::report_outputs {

using plan::Pass;
using program::Endpoint;
using program::Evaluation;
using program::Program;

// A unidirectional ring of 4 roofline devices, 10 GB/s and 1 us per link: d0 -> d1 -> d2 -> d3 -> d0.
inline const char* const kRing4 = R"(
system:
  name: ring4
  device_types:
    acc: {kind: roofline, peak: 1TFLOP/s, memory: 1GB, memory_bandwidth: 100GB/s}
  devices:
    - {type: acc, count: 4}
  torus:
    dims: [4]
    bandwidth: [10GB/s]
    latency: [1us]
    bidirectional: false
)";

// Two template chips of 2 cores on a unidirectional ring, for core granularity (memory and on-chip links).
inline const char* const kChips2 = R"(
system:
  name: chips2
  device_types:
    chip:
      kind: template
      pe: {simd_lanes: 1}
      pe_array: {rows: 2, cols: 2}
      core: {scratchpad: 1MiB, scratchpad_bandwidth: 100GB/s, frequency: 1GHz}
      chip: {cores: 2, interconnect: ring, core_to_core_bandwidth: 100GB/s, on_chip_latency: 10ns,
             memory: 1GiB, memory_bandwidth: 100GB/s, memory_efficiency: 1, memory_latency: 100ns}
  devices:
    - {type: chip, count: 2}
  torus:
    dims: [2]
    bandwidth: [10GB/s]
    latency: [1us]
    bidirectional: false
)";

inline topology::SystemSpec spec_of(const char* yaml) { return platform_from_yaml(yaml, {}, "test.yaml"); }

inline Endpoint dev(int d) { return {d, -1, false}; }

inline int link_id(const topology::TopologyGraph& g, const std::string& name) {
  for (int l = 0; l < g.link_count(); ++l)
    if (g.link(l).name == name) return l;
  ADD_FAILURE() << "no link " << name;
  return -1;
}

inline const report::LinkUsage* usage_of(const std::vector<report::LinkUsage>& u, const std::string& name) {
  for (const auto& l : u)
    if (l.link == name) return &l;
  return nullptr;
}

// Evaluation from (start, finish) in milliseconds, one per task.
inline Evaluation timed(const std::vector<std::pair<double, double>>& ms) {
  Evaluation e;
  for (const auto& [s, f] : ms) {
    e.tasks.push_back({s * 1e-3, f * 1e-3});
    e.makespan_s = std::max(e.makespan_s, f * 1e-3);
  }
  return e;
}

}  // namespace partsim::test::report_outputs
