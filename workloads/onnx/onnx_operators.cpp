#include "workloads/onnx/onnx_operators.hpp"

#include <vector>

#include "sim/common/text.hpp"

namespace partsim::workloads::onnx_import {

bool is_spatial(const std::string& op) {
  static const std::set<std::string> ops = {"Conv", "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool",
                                            "BatchNormalization"};
  return ops.count(op) > 0;
}

const std::set<std::string>& unary_ops() {
  static const std::set<std::string> ops = {
      "Relu", "Sigmoid", "Tanh", "Gelu", "Abs", "Neg", "Exp", "Log", "Sqrt", "Reciprocal", "Erf", "Floor", "Ceil",
      "Round", "Sign", "Cast", "Clip", "LeakyRelu", "Elu", "Selu", "Celu", "HardSigmoid", "HardSwish", "Softplus",
      "Softsign", "ThresholdedRelu", "Mish", "Sin", "Cos", "Not"};
  return ops;
}

const std::set<std::string>& binary_ops() {
  static const std::set<std::string> ops = {"Add", "Sum", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Mean"};
  return ops;
}

std::string supported_ops() {
  std::set<std::string> all = {"Conv", "Gemm", "MatMul", "MaxPool", "AveragePool", "GlobalAveragePool",
                               "GlobalMaxPool", "BatchNormalization", "LayerNormalization", "Softmax",
                               "LogSoftmax", "Concat", "Flatten", "Reshape", "Transpose", "Squeeze", "Unsqueeze",
                               "Gather", "Identity", "Dropout", "Constant", "Shape", "Size", "Slice", "Split",
                               "Where", "Expand"};
  all.insert(unary_ops().begin(), unary_ops().end());
  all.insert(binary_ops().begin(), binary_ops().end());
  return join(std::vector<std::string>(all.begin(), all.end()));
}

}  // namespace partsim::workloads::onnx_import
