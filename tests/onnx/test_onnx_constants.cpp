// The shape arithmetic folder (workloads/onnx/onnx_constants.hpp) on the node chain PyTorch writes
// for nn.MultiheadAttention's q, k, v cut: ends = (E + 2) / 3 * k from Shape(x)[-1].
#include <gtest/gtest.h>

#include "workloads/onnx/onnx_constants.hpp"

namespace partsim::workloads::onnx_import {
namespace {

void add_node(onnx::GraphProto& g, const std::string& op, std::vector<std::string> inputs, const std::string& output) {
  onnx::NodeProto& n = *g.add_node();
  n.set_op_type(op);
  n.set_name(output);
  for (const std::string& in : inputs) n.add_input(in);
  n.add_output(output);
}

void add_constant(onnx::GraphProto& g, const std::string& output, std::vector<std::int64_t> values) {
  onnx::NodeProto& n = *g.add_node();
  n.set_op_type("Constant");
  n.add_output(output);
  onnx::AttributeProto& a = *n.add_attribute();
  a.set_name("value");
  a.set_type(onnx::AttributeProto_AttributeType_TENSOR);
  a.mutable_t()->set_data_type(onnx::TensorProto_DataType_INT64);
  a.mutable_t()->add_dims(static_cast<std::int64_t>(values.size()));  // 1-D, as PyTorch writes them
  for (std::int64_t v : values) a.mutable_t()->add_int64_data(v);
}

TEST(OnnxShapeArithmetic, FoldsTheEndsOfMultiheadAttentionsSlices) {
  onnx::GraphProto g;
  add_node(g, "Shape", {"x"}, "shape");
  add_constant(g, "last", {-1});
  add_node(g, "Gather", {"shape", "last"}, "width");  // [384]
  add_constant(g, "two", {2});
  add_node(g, "Add", {"width", "two"}, "plus");  // [386]
  add_constant(g, "three", {3});
  add_node(g, "Div", {"plus", "three"}, "third");  // [128]: integer division truncates
  add_constant(g, "one", {1});
  add_node(g, "Mul", {"third", "one"}, "end_q");  // [128]
  add_constant(g, "twice", {2});
  add_node(g, "Mul", {"third", "twice"}, "end_k");  // [256]
  add_node(g, "Unsqueeze", {"third", "zero"}, "unsqueezed");  // axes input unknown: not folded
  add_node(g, "Slice", {"x", "end_q", "end_k", "last"}, "k");  // float data: never folded
  const std::unordered_map<std::string, std::vector<std::int64_t>> shapes = {{"x", {64, 1, 384}}};
  KnownValues known;
  EXPECT_EQ(fold_shape_arithmetic(g, shapes, known), 6);  // Shape, Gather, Add, Div and both Muls
  EXPECT_EQ(known.at("width").data, (std::vector<std::int64_t>{384}));
  EXPECT_EQ(known.at("plus").data, (std::vector<std::int64_t>{386}));
  EXPECT_EQ(known.at("end_q").data, (std::vector<std::int64_t>{128}));
  EXPECT_EQ(known.at("end_k").data, (std::vector<std::int64_t>{256}));
  EXPECT_EQ(known.at("end_k").dims, (std::vector<std::int64_t>{1}));
  EXPECT_EQ(known.count("unsqueezed"), 0u);
  EXPECT_EQ(known.count("k"), 0u);
  // The folded nodes are Constants now, holding the values (what shape inference reads next round).
  for (const auto& n : g.node()) {
    if (n.output(0) != "end_k") continue;
    EXPECT_EQ(n.op_type(), "Constant");
    EXPECT_EQ(n.input_size(), 0);
    IntTensor value;
    ASSERT_TRUE(read_int_tensor(n.attribute(0).t(), value));
    EXPECT_EQ(value.data, (std::vector<std::int64_t>{256}));
  }
  // A second pass has nothing left to fold.
  EXPECT_EQ(fold_shape_arithmetic(g, shapes, known), 0);
}

TEST(OnnxShapeArithmetic, ShapeWithBoundsRangeAndConcat) {
  onnx::GraphProto g;
  add_node(g, "Shape", {"x"}, "tail");
  g.mutable_node(0)->add_attribute()->set_name("start");
  g.mutable_node(0)->mutable_attribute(0)->set_type(onnx::AttributeProto_AttributeType_INT);
  g.mutable_node(0)->mutable_attribute(0)->set_i(-2);  // opset 15: the last two dimensions
  add_constant(g, "start", {1});
  add_constant(g, "limit", {10});
  add_constant(g, "step", {4});
  add_node(g, "Range", {"start", "limit", "step"}, "range");  // 1, 5, 9
  add_node(g, "Concat", {"tail", "range"}, "joined");
  g.mutable_node(g.node_size() - 1)->add_attribute()->set_name("axis");
  KnownValues known;
  EXPECT_EQ(fold_shape_arithmetic(g, {{"x", {2, 3, 5}}}, known), 3);
  EXPECT_EQ(known.at("tail").data, (std::vector<std::int64_t>{3, 5}));
  EXPECT_EQ(known.at("range").data, (std::vector<std::int64_t>{1, 5, 9}));
  EXPECT_EQ(known.at("joined").data, (std::vector<std::int64_t>{3, 5, 1, 5, 9}));
}

}  // namespace
}  // namespace partsim::workloads::onnx_import
