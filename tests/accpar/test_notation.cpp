// AccPar's notation view (sim/planners/accpar/notation.hpp, seed 000 §3.1, §4.3) on layers counted
// by hand, and the view's JSON block (integers stay integers, A(.) sizes are numbers with a fraction).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/planners/accpar/notation.hpp"
#include "workloads/net_builder.hpp"

using partsim::workloads::Graph;
using partsim::workloads::NetBuilder;

// A 3x3 convolution 32 -> 64 channels, stride 1, padding 1 on 56x56, batch B = 2, no bias:
// F_l = (B, D_i, [56*56]) = 2*32*3136 = 200,704 elements; F_{l+1} = 2*64*3136 = 401,408;
// W_l = (D_i, [3*3], D_o) = 32*9*64 = 18,432 (§4.3).
TEST(AccParNotation, ConvFoldsTheKernelAndFeatureMaps) {
  NetBuilder b("t", "");
  b.conv("conv", b.input("x", {32, 56, 56}), 64, 3, 1, 1, /*bias=*/false);
  const Graph g = b.build(2);
  const partsim::accpar::LayerNotation n = partsim::accpar::notation_of(g.layer("conv"));
  EXPECT_EQ(n.B, 2);
  EXPECT_EQ(n.D_i, 32);
  EXPECT_EQ(n.D_o, 64);
  EXPECT_EQ(n.kernel_2d, 9);
  EXPECT_EQ(n.feature_in_2d, 3136);
  EXPECT_EQ(n.feature_out_2d, 3136);
  EXPECT_DOUBLE_EQ(n.A_F_in, 200'704.0);
  EXPECT_DOUBLE_EQ(n.A_F_out, 401'408.0);
  EXPECT_DOUBLE_EQ(n.A_W, 18'432.0);
}

// FC 4096 -> 1000 with bias at B = 8: A(W) counts the 4,096,000 weights, not the 1000 biases.
// LSTM 1024 inputs, hidden 512, bidirectional: each timestep's product is (D_i = 1024 + 512) x
// (D_o = 4*512*2 = 4096), feature maps of one position; A(W) = 1536 * 4096 = 6,291,456.
TEST(AccParNotation, FcWeightsWithoutBiasAndLstmInputPlusHidden) {
  NetBuilder b("t", "");
  b.fc("fc", b.input("v", {4096}), 1000);
  b.lstm("lstm", b.input("seq", {1024, 16}), 512, /*bidirectional=*/true);
  const Graph g = b.build(8);
  const partsim::accpar::LayerNotation fc = partsim::accpar::notation_of(g.layer("fc"));
  EXPECT_EQ(fc.D_i, 4096);
  EXPECT_EQ(fc.D_o, 1000);
  EXPECT_EQ(fc.kernel_2d, 1);
  EXPECT_EQ(fc.feature_in_2d, 1);
  EXPECT_DOUBLE_EQ(fc.A_W, 4'096'000.0);
  const partsim::accpar::LayerNotation lstm = partsim::accpar::notation_of(g.layer("lstm"));
  EXPECT_EQ(lstm.B, 8);
  EXPECT_EQ(lstm.D_i, 1536);
  EXPECT_EQ(lstm.D_o, 4096);
  EXPECT_EQ(lstm.feature_in_2d, 1);
  EXPECT_EQ(lstm.feature_out_2d, 1);
  EXPECT_DOUBLE_EQ(lstm.A_W, 6'291'456.0);
}

TEST(AccParNotation, ViewWritesThePaperSymbolsWithTheirJsonTypes) {
  NetBuilder b("t", "");
  b.conv("conv", b.input("x", {32, 56, 56}), 64, 3, 1, 1, /*bias=*/false);
  const Graph g = b.build(2);
  const partsim::workloads::NotationView view = partsim::accpar::notation_view();
  EXPECT_EQ(view.name, "accpar");
  const nlohmann::json j = view.describe(g.layer("conv"));
  EXPECT_EQ(j.size(), 9u);
  EXPECT_EQ(j["D_i"], 32);
  EXPECT_TRUE(j["B"].is_number_integer());
  EXPECT_TRUE(j["kernel_2d"].is_number_integer());
  EXPECT_TRUE(j["A_W"].is_number_float());
  EXPECT_DOUBLE_EQ(j["A_F_out"].get<double>(), 401'408.0);
}
