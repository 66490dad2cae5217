#pragma once
// User workload files (YAML, format in workloads/README.md) and the one lookup the programs use.
//
// Contract: every mistake in a file is a ParseError "file:line:col: key.path: message"; shape
// problems found while finalizing the graph are reported at the layer that has them
// ("file:line:col: layers[3]: layer 'conv2': conv: expects 64 input channels but ...").

#include <cstdint>
#include <string>
#include <vector>

#include "workloads/graph.hpp"
#include "workloads/transformer_presets.hpp"

namespace partsim::yaml {
class ConfigNode;  // sim/common/yaml_reader.hpp
}  // namespace partsim::yaml

namespace partsim::workloads {

/// Reads a workload file and finalizes it at `batch`. `overrides` are --set assignments.
Graph load_workload_file(const std::string& path, std::int64_t batch, const std::vector<std::string>& overrides = {});
/// How large a workload file may make its graph: repeat blocks may build up to `max_layers` layers in
/// all, presets up to `max_preset_blocks` blocks (docs/robustness.md "File size: the memory bound").
/// The fuzz harness passes smaller ones: a 60,000-layer workload parsed in 0.6 s here takes 45 s under
/// ASan and coverage, which libFuzzer reports as a hang.
struct WorkloadLimits {
  std::int64_t max_layers = 100'000;
  std::int64_t max_preset_blocks = kMaxPresetBlocks;
};
/// The same from an already loaded document; `default_name` names a file without a `name` key.
Graph parse_workload(const yaml::ConfigNode& root, std::int64_t batch, const std::string& default_name,
                     const WorkloadLimits& limits = {});
/// A zoo name, an ONNX model (path ending in .onnx, options after #: workloads/onnx/onnx_workload.hpp)
/// or a path to a workload file (anything with a '/' or ending in .yaml/.yml, or an
/// existing file). Neither: UnknownNameError listing the zoo.
Graph load_workload(const std::string& name_or_file, std::int64_t batch);

}  // namespace partsim::workloads
