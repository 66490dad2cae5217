#pragma once
// Shape arithmetic evaluated before the import: the small integer tensors exporters compute from
// shapes (PyTorch's nn.MultiheadAttention slices q, k and v out of one projection with ends
// computed as Shape -> Gather -> Add -> Div -> Mul) become Constant nodes, so that ONNX shape
// inference, whose data propagation in libonnx 1.12 stops at Div, Range and Where, can infer
// the shapes of the data tensors they index.
//
// Contract: fold_shape_arithmetic() replaces a node by a Constant node of the same output when
// every input it reads is a known integer value (an initializer, a Constant, or folded before)
// or, for Shape and Size, a tensor of known shape; it returns the values it knows, by tensor name.
// It evaluates only integer tensors of at most kMaxFoldedElements elements and the operators
// listed in onnx_constants.cpp; anything else is left as it is. Run shape inference, fold, and
// repeat while something was folded (a fold may reveal a shape that allows the next).

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace partsim::workloads::onnx_import {

/// An integer tensor's value: its dimensions and its elements in row-major order.
struct IntTensor {
  std::vector<std::int64_t> dims;
  std::vector<std::int64_t> data;
};

using KnownValues = std::unordered_map<std::string, IntTensor>;

/// Larger integer tensors are data (token ids, index tables), not shape arithmetic.
inline constexpr std::int64_t kMaxFoldedElements = 4096;

/// The integer value of a TensorProto (INT64, INT32 or BOOL; nothing for other types or more than
/// kMaxFoldedElements elements).
bool read_int_tensor(const onnx::TensorProto& t, IntTensor& value);

/// Folds the shape arithmetic of `graph` whose inputs are known (see the file comment); `shapes`
/// gives the inferred dimensions of tensors whose shape is fully known. Adds what it learns to
/// `known` and returns how many nodes it replaced.
int fold_shape_arithmetic(onnx::GraphProto& graph,
                          const std::unordered_map<std::string, std::vector<std::int64_t>>& shapes, KnownValues& known);

}  // namespace partsim::workloads::onnx_import
