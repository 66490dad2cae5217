#pragma once
// SystemSpec objects built in code for the topology, collectives and replay tests.

#include <string>
#include <vector>

#include "topology/system_spec.hpp"

namespace partsim::test {

/// A torus of roofline devices (or template chips of `cores` cores when cores > 0).
inline topology::SystemSpec torus_spec(std::vector<int> dims, std::vector<double> bandwidth, std::vector<double> latency,
                                       bool bidirectional, int cores = 0) {
  topology::SystemSpec s;
  s.name = "test_torus";
  topology::DeviceType type;
  type.name = "dev";
  if (cores > 0) {
    topology::TemplateDevice chip;
    chip.cores = cores;
    chip.core_to_core_bandwidth = 256e9;
    chip.on_chip_latency = 10e-9;
    chip.memory_bytes = 8e9;
    chip.memory_bandwidth = 256e9;
    chip.memory_efficiency = 0.8;
    chip.memory_latency = 100e-9;
    chip.core.frequency_hz = 1e9;
    type.model = chip;
  } else {
    topology::RooflineDevice r;
    r.peak_flops = 1e12;
    r.memory_bytes = 1e9;
    r.memory_bandwidth = 1e11;
    r.network_bandwidth = bandwidth.at(0);
    type.model = r;
  }
  s.device_types["dev"] = type;
  int n = 1;
  for (int d : dims) n *= d;
  topology::DeviceGroup all{"all", {}};
  for (int i = 0; i < n; ++i) {
    s.device_type_of.push_back("dev");
    s.device_names.push_back("d" + std::to_string(i));
    all.devices.push_back(i);
  }
  s.groups.push_back(all);
  topology::TorusTopology t;
  t.dims = std::move(dims);
  t.bandwidth = std::move(bandwidth);
  t.latency = std::move(latency);
  t.bidirectional = bidirectional;
  s.topology = t;
  return s;
}

struct LinkSpec {
  std::string a, b;
  double bandwidth;
  double latency;
  bool directed = false;
};

/// A graph of roofline devices `devices` (in order) plus `hosts`, with the given links.
inline topology::SystemSpec graph_spec(const std::vector<std::string>& devices, const std::vector<std::string>& hosts,
                                       const std::vector<LinkSpec>& links) {
  topology::SystemSpec s;
  s.name = "test_graph";
  topology::DeviceType type;
  type.name = "dev";
  type.model = topology::RooflineDevice{1e12, 1e9, 1e11, 1e9};
  s.device_types["dev"] = type;
  topology::GraphTopology g;
  topology::DeviceGroup all{"all", {}};
  for (std::size_t i = 0; i < devices.size(); ++i) {
    g.nodes.push_back({devices[i], topology::NodeKind::device, "dev"});
    s.device_type_of.push_back("dev");
    s.device_names.push_back(devices[i]);
    all.devices.push_back(static_cast<int>(i));
  }
  for (const auto& h : hosts) g.nodes.push_back({h, topology::NodeKind::host, ""});
  for (const auto& l : links) g.links.push_back({l.a, l.b, l.bandwidth, l.latency, l.directed});
  s.groups.push_back(all);
  s.topology = g;
  return s;
}

}  // namespace partsim::test
