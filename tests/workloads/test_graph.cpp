// The DAG: topological order, shape inference through ResNet shortcuts and Inception concats, and
// the errors for mismatched shapes, unknown inputs and cycles.
#include <gtest/gtest.h>

#include "workloads/graph_dag.hpp"
#include "workloads/net_builder.hpp"
#include "workloads/zoo.hpp"

using namespace partsim::workloads;

namespace {

void expect_topological(const Graph& g) {
  for (std::size_t i = 0; i < g.size(); ++i)
    for (std::size_t p : g.predecessors(i)) EXPECT_LT(p, i) << g.layer(i).name;
  EXPECT_EQ(boost::num_vertices(g.dag()), g.size());
}

std::string error_of(const NetBuilder& b) {
  try {
    b.build(1);
  } catch (const LayerError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST(GraphShapes, ResNet50Shortcuts) {
  const Graph g = build_zoo("resnet50", 1);
  expect_topological(g);
  // Stage 1, block 0: 1x1 projection shortcut from 64 to 256 channels at 56x56.
  EXPECT_EQ(g.layer("pool1").output_shape, (Shape{64, 56, 56}));
  EXPECT_EQ(g.layer("layer1_0_down").output_shape, (Shape{256, 56, 56}));
  const Layer& add = g.layer("layer1_0_add");
  ASSERT_EQ(add.input_shapes.size(), 2u);
  EXPECT_EQ(add.input_shapes[0], (Shape{256, 56, 56}));
  EXPECT_EQ(add.input_shapes[1], (Shape{256, 56, 56}));
  // Block 1 has an identity shortcut: the add reads the previous block's output directly.
  EXPECT_FALSE(g.index_of("layer1_1_down").has_value());
  EXPECT_EQ(g.layer("layer1_1_add").inputs[1], "layer1_0_relu");
  // Strided stages halve the map: 28, 14, 7; channels 512, 1024, 2048.
  EXPECT_EQ(g.layer("layer2_0_add").output_shape, (Shape{512, 28, 28}));
  EXPECT_EQ(g.layer("layer3_5_add").output_shape, (Shape{1024, 14, 14}));
  EXPECT_EQ(g.layer("layer4_2_add").output_shape, (Shape{2048, 7, 7}));
  EXPECT_EQ(g.layer("fc").input_shapes[0], (Shape{2048, 1, 1}));
  // The shortcut producer has two consumers (the block's first conv and the add).
  const std::size_t pool1 = *g.index_of("pool1");
  EXPECT_EQ(g.successors(pool1).size(), 2u);
}

TEST(GraphShapes, ResNet18IdentityShortcut) {
  const Graph g = build_zoo("resnet18", 1);
  const Layer& add = g.layer("layer1_0_add");
  EXPECT_EQ(add.inputs[1], "pool1");
  EXPECT_EQ(add.input_shapes[1], (Shape{64, 56, 56}));
  EXPECT_EQ(g.layer("layer2_0_down").output_shape, (Shape{128, 28, 28}));
}

TEST(GraphShapes, InceptionV3Concats) {
  const Graph g = build_zoo("inception_v3", 1);
  expect_topological(g);
  EXPECT_EQ(g.layer("pool2").output_shape, (Shape{192, 35, 35}));
  // InceptionA: 64 + 64 + 96 + pool_features (32, then 64).
  EXPECT_EQ(g.layer("mixed5b_concat").output_shape, (Shape{256, 35, 35}));
  EXPECT_EQ(g.layer("mixed5b_concat").inputs.size(), 4u);
  EXPECT_EQ(g.layer("mixed5c_concat").output_shape, (Shape{288, 35, 35}));
  // InceptionB: 384 + 96 + 288 at 17x17.
  EXPECT_EQ(g.layer("mixed6a_concat").output_shape, (Shape{768, 17, 17}));
  EXPECT_EQ(g.layer("mixed6e_concat").output_shape, (Shape{768, 17, 17}));
  // The 1x7 / 7x1 factorised convs keep 17x17.
  EXPECT_EQ(g.layer("mixed6b_7x7_2").output_shape, (Shape{128, 17, 17}));
  // InceptionD: 320 + 192 + 768 at 8x8; InceptionE: 320 + 768 + 768 + 192.
  EXPECT_EQ(g.layer("mixed7a_concat").output_shape, (Shape{1280, 8, 8}));
  EXPECT_EQ(g.layer("mixed7b_3x3_concat").output_shape, (Shape{768, 8, 8}));
  EXPECT_EQ(g.layer("mixed7c_concat").output_shape, (Shape{2048, 8, 8}));
}

TEST(GraphShapes, GnmtAndBert) {
  const Graph gnmt = build_zoo("gnmt", 1);
  expect_topological(gnmt);
  EXPECT_EQ(gnmt.layer("enc_lstm1").output_shape, (Shape{2048, 128, 1}));  // bidirectional
  EXPECT_EQ(gnmt.layer("enc_lstm1").q.timesteps, 128);
  EXPECT_EQ(gnmt.layer("dec_lstm2").input_shapes[0], (Shape{2048, 128, 1}));  // output + context
  int lstms = 0;
  for (const Layer& l : gnmt.layers()) lstms += l.kind == LayerKind::lstm;
  EXPECT_EQ(lstms, 16);
  const Graph bert = build_zoo("bert_large", 1);
  EXPECT_EQ(bert.layer("layer24_ffn_norm").output_shape, (Shape{1024, 128, 1}));
  EXPECT_EQ(bert.layer("layer1_ffn1").output_shape, (Shape{4096, 128, 1}));
}

TEST(GraphErrors, ChannelMismatchNamesLayerAndShapes) {
  NetBuilder b("t", "");
  LayerSpec conv;
  conv.name = "conv2";
  conv.kind = LayerKind::conv;
  conv.inputs = {b.conv("conv1", b.input("x", {3, 28, 28}), 16, 3)};
  conv.attr.in_channels = 64;
  conv.attr.out_channels = 8;
  conv.attr.kernel_h = conv.attr.kernel_w = 3;
  b.add_layer(conv);
  EXPECT_EQ(error_of(b), "layer 'conv2': conv: expects 64 input channels but input 'conv1' is 16x26x26");
}

TEST(GraphErrors, ConcatAndAddMismatch) {
  NetBuilder b("t", "");
  std::string x = b.input("x", {8, 32, 32});
  std::string a = b.conv("a", x, 8, 3, 1, 1);
  std::string c = b.conv("c", x, 8, 3, 2, 1);
  b.concat("cat", {a, c});
  EXPECT_EQ(error_of(b),
            "layer 'cat': concat: inputs must agree in height and width but input 'a' is 8x32x32 and input 'c' is "
            "8x16x16");
  NetBuilder b2("t", "");
  std::string y = b2.input("x", {8, 32, 32});
  b2.add("sum", {b2.conv("a", y, 16, 1), y});
  EXPECT_EQ(error_of(b2), "layer 'sum': add: inputs must have equal shapes but input 'a' is 16x32x32 and input 'x' is 8x32x32");
}

TEST(GraphErrors, DanglingInputAndCycle) {
  NetBuilder b("t", "");
  b.activation("relu", "nowhere");
  EXPECT_EQ(error_of(b), "layer 'relu': input 'nowhere' is not a layer of this workload");

  NetBuilder c("t", "");
  c.input("x", {4});
  c.add("sum", {"x", "fc"});
  c.fc("fc", "sum", 4);
  const std::string message = error_of(c);
  EXPECT_TRUE(message == "layer 'sum': is on a cycle of inputs (a workload must be acyclic)" ||
              message == "layer 'fc': is on a cycle of inputs (a workload must be acyclic)")
      << message;

  NetBuilder d("t", "");
  d.input("x", {4});
  EXPECT_THROW(d.input("x", {4}), LayerError);  // duplicate name
}

TEST(Graph, WrittenOutOfOrderIsSorted) {
  NetBuilder b("t", "");
  b.fc("fc2", "fc1", 3);
  b.fc("fc1", "x", 5);
  b.input("x", {7});
  const Graph g = b.build(1);
  EXPECT_EQ(g.layer(0).name, "x");
  EXPECT_EQ(g.layer(1).name, "fc1");
  EXPECT_EQ(g.layer(2).name, "fc2");
  EXPECT_EQ(g.layer("fc2").q.params, 5 * 3 + 3);
  expect_topological(g);
}

TEST(Graph, WithBatchScalesWorkNotParams) {
  const Graph g1 = build_zoo("lenet", 1);
  const Graph g8 = g1.with_batch(8);
  EXPECT_EQ(g8.batch(), 8);
  EXPECT_EQ(g8.totals().params, g1.totals().params);
  EXPECT_DOUBLE_EQ(g8.totals().macs.fwd, 8 * g1.totals().macs.fwd);
  EXPECT_THROW(g1.with_batch(0), partsim::InputError);
  EXPECT_THROW(g1.layer("nope"), partsim::UnknownNameError);
}
