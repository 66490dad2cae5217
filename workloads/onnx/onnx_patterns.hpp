#pragma once
// Groups of ONNX nodes that exporters write for one operation of the layer vocabulary, found so
// that the importer can make them one node: GELU (PyTorch's erf form at opsets <= 19:
// x * 0.5 * (1 + erf(x / sqrt 2))), layer normalisation before opset 17 (ReduceMean, Sub, Pow,
// ReduceMean, Add eps, Sqrt, Div, Mul gamma, Add beta) and a MatMul by a weight followed by its
// bias Add (PyTorch's nn.Linear on tensors of rank > 2).
//
// Contract: a group is returned only when its inner tensors are read by nobody outside it, so
// making it one node loses no edge; groups do not overlap.

#include <string>
#include <vector>

#include "workloads/onnx/onnx_model.hpp"

namespace partsim::workloads::onnx_import {

enum class GroupKind { gelu, layer_norm, linear_bias };

struct NodeGroup {
  GroupKind kind = GroupKind::gelu;
  std::vector<int> nodes;  // every node of the group, ascending
  int first = 0;           // the node that reads `input` (names the layer)
  int last = 0;            // the node that writes `output`
  std::string input;       // the data input
  std::string output;
};

std::vector<NodeGroup> find_node_groups(const OnnxModel& model);

}  // namespace partsim::workloads::onnx_import
