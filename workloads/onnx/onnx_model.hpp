#pragma once
// An ONNX model read with libonnx, its graph inputs fixed to batch 1 and the named dynamic
// dimensions given, every tensor's shape inferred (onnx::shape_inference::InferShapes), and the
// lookups the importer needs (producer and consumers of a tensor, which tensors are constants).
// Internal to workloads/onnx: the only header that exposes libonnx types.
//
// Contract: load_onnx_model() either returns a model in which every node's output that carries
// data has a known shape, or throws an InputError "FILE: ..." naming the node or input at fault.

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "workloads/onnx/onnx_constants.hpp"
#include "workloads/onnx/onnx_workload.hpp"

namespace partsim::workloads::onnx_import {

/// What the importer knows about one tensor after shape inference (shapes at batch 1).
struct TensorInfo {
  std::vector<std::int64_t> dims;
  bool has_shape = false;
  std::int32_t elem_type = 0;  // onnx::TensorProto_DataType
  bool constant = false;       // an initializer, a weight input, or computed from constants and shapes only
};

struct OnnxModel {
  std::string file;  // the path, for messages
  onnx::ModelProto proto;
  std::unordered_map<std::string, TensorInfo> tensors;
  std::unordered_map<std::string, int> producer;                // tensor -> index of the node writing it
  std::unordered_map<std::string, std::vector<int>> consumers;  // tensor -> nodes reading it, ascending
  std::vector<std::string> activation_inputs;                   // graph inputs that carry data, in order
  /// Values of the small integer constants (Slice starts, Split sizes, Gather indices): initializers,
  /// Constant nodes and folded shape arithmetic (onnx_constants.hpp).
  std::unordered_map<std::string, IntTensor> values;

  const onnx::GraphProto& graph() const { return proto.graph(); }
  const onnx::NodeProto& node(int index) const { return proto.graph().node(index); }
  int node_count() const { return proto.graph().node_size(); }
  /// The node's name, or "<op type>_<index>" when it has none.
  std::string node_name(int index) const;
  /// "FILE: node 'NAME' (OP)", the start of every message about a node.
  std::string where(int index) const;
  const TensorInfo& tensor(const std::string& name) const;
  bool is_constant(const std::string& name) const;
  /// Elements of a tensor with a known shape.
  std::int64_t elements(const std::string& name) const;
  /// The value of a small integer constant, or nullptr when it is not known.
  const IntTensor* value(const std::string& name) const;
};

/// Reads, checks and shape-infers the model of `spec`.
OnnxModel load_onnx_model(const OnnxWorkloadSpec& spec);

/// Integer attribute `name` of a node, or `fallback` when it is absent.
std::int64_t int_attribute(const onnx::NodeProto& node, const std::string& name, std::int64_t fallback);
/// Integer-list attribute, or `fallback` when it is absent.
std::vector<std::int64_t> ints_attribute(const onnx::NodeProto& node, const std::string& name,
                                         std::vector<std::int64_t> fallback);
/// String attribute, or `fallback`.
std::string string_attribute(const onnx::NodeProto& node, const std::string& name, const std::string& fallback);

}  // namespace partsim::workloads::onnx_import
