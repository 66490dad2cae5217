#pragma once
// User workload files (YAML, format in workloads/README.md) and the one lookup the programs use.
//
// Contract: every mistake in a file is a ParseError "file:line:col: key.path: message"; shape
// problems found while finalizing the graph are reported at the layer that has them
// ("file:line:col: layers[3]: layer 'conv2': conv: expects 64 input channels but ...").

#include <cstdint>
#include <string>
#include <vector>

#include "sim/common/yaml_reader.hpp"
#include "workloads/graph.hpp"

namespace partsim::workloads {

/// Reads a workload file and finalizes it at `batch`. `overrides` are --set assignments.
Graph load_workload_file(const std::string& path, std::int64_t batch, const std::vector<std::string>& overrides = {});
/// The same from an already loaded document; `default_name` names a file without a `name` key.
Graph parse_workload(const yaml::ConfigNode& root, std::int64_t batch, const std::string& default_name);
/// A zoo name, an ONNX model (path ending in .onnx, options after #: workloads/onnx/onnx_workload.hpp)
/// or a path to a workload file (anything with a '/' or ending in .yaml/.yml, or an
/// existing file). Neither: UnknownNameError listing the zoo.
Graph load_workload(const std::string& name_or_file, std::int64_t batch);

}  // namespace partsim::workloads
