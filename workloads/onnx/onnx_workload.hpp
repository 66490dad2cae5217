#pragma once
// ONNX models as workloads: `simplan --workload model.onnx[#options]` (README "Bring your own model",
// workloads/README.md "ONNX models" for the operator table).
//
// Contract:
// - A workload string naming a file that ends in ".onnx" is an ONNX workload. After an optional
//   '#' come comma-separated options: `ops` or `layers` (the granularity, default layers; also
//   written granularity=ops) and NAME=N, the size of a dynamic (named) dimension of a graph input.
//   The whole string (options included) is what plan.json records, so simrun re-imports the same
//   graph.
// - Dimension 0 of every graph input is the batch: it is set to 1 and the shapes are re-inferred
//   with ONNX shape inference (workloads keep per-sample shapes; the batch is --batch).
// - Every problem (unreadable or truncated file, not a model, an operator without a partsim kind,
//   a missing shape, an unknown option) is an InputError naming the file and, where there is one,
//   the node: one line.

#include <cstdint>
#include <map>
#include <string>

#include "workloads/graph.hpp"

namespace partsim::workloads {

enum class OnnxGranularity {
  layers,  // attention blocks folded into `attention` layers (the planners' layer kinds)
  ops,     // every operator its own node (seed 002's op-level graphs)
};

/// A parsed ONNX workload string: "path#ops,seq=128".
struct OnnxWorkloadSpec {
  std::string path;
  OnnxGranularity granularity = OnnxGranularity::layers;
  std::map<std::string, std::int64_t> dims;  // dynamic dimension name -> size
};

/// True when the part before '#' ends in ".onnx".
bool is_onnx_workload(const std::string& workload);
/// Splits and checks the options; an unknown option or a size that is not a positive integer is an
/// InputError listing the allowed forms.
OnnxWorkloadSpec parse_onnx_workload(const std::string& workload);
/// Imports the model and finalizes the graph at minibatch `batch`.
Graph load_onnx_workload(const std::string& workload, std::int64_t batch);

}  // namespace partsim::workloads
