// FLOP, MAC and parameter counts of single layers, computed by hand from the papers' equations.
#include <gtest/gtest.h>

#include "workloads/net_builder.hpp"

using namespace partsim::workloads;

namespace {

const Layer& only(const Graph& g, const std::string& name) { return g.layer(name); }

}  // namespace

// A 3x3 convolution 32 -> 64 channels, stride 1, padding 1 on 56x56, batch B = 2, no bias.
// AccPar seed 000 Table 6 with §4.3: each FLOP entry is (output elements) * (2P - 1) where
// P = (channel of the product) * (2-D kernel or feature map size).
//   A(F_{l+1}) = B*D_o*56*56 = 2*64*3136 = 401,408; P_fwd = D_i*3*3 = 288
//   FWD = 401,408 * (2*288 - 1) = 401,408 * 575 = 230,809,600
//   A(E_l) = B*D_i*56*56 = 2*32*3136 = 200,704; P_bwd = D_o*3*3 = 576
//   BWD = 200,704 * (2*576 - 1) = 200,704 * 1151 = 231,010,304
//   A(W) = D_i*D_o*3*3 = 18,432; P_upd = B * (2-D output feature map) = 2*3136 = 6272
//   UPD = 18,432 * (2*6272 - 1) = 18,432 * 12,543 = 231,192,576
//   MACs (every pass) = 401,408 * 288 = 115,605,504
TEST(LayerFlops, ConvMatchesAccParTable6) {
  NetBuilder b("t", "");
  b.conv("conv", b.input("x", {32, 56, 56}), 64, 3, 1, 1, /*bias=*/false);
  const Graph g = b.build(2);
  const LayerQuantities& q = only(g, "conv").q;
  EXPECT_DOUBLE_EQ(q.primary_flops.fwd, 230'809'600.0);
  EXPECT_DOUBLE_EQ(q.primary_flops.bwd, 231'010'304.0);
  EXPECT_DOUBLE_EQ(q.primary_flops.upd, 231'192'576.0);
  EXPECT_DOUBLE_EQ(q.macs.fwd, 115'605'504.0);
  EXPECT_DOUBLE_EQ(q.macs.bwd, 115'605'504.0);
  EXPECT_DOUBLE_EQ(q.macs.upd, 115'605'504.0);
  EXPECT_DOUBLE_EQ(q.aux_flops.total(), 0.0);  // no bias
  EXPECT_EQ(q.params, 18'432);
  EXPECT_TRUE(q.primary);
  // The layer as a product (AccPar's B, D_i, D_o, kernel_2d, feature_*_2d; tests/accpar and
  // tests/dsm check the papers' views): input B*D_i*56*56 = 2*32*3136 = 200,704 elements.
  EXPECT_EQ(q.batch, 2);
  EXPECT_EQ(q.in_features, 32);
  EXPECT_EQ(q.out_features, 64);
  EXPECT_EQ(q.kernel_positions, 9);
  EXPECT_EQ(q.in_positions, 3136);
  EXPECT_EQ(q.out_positions, 3136);
  EXPECT_EQ(q.stride, 1);
  EXPECT_EQ(q.timesteps, 1);
  EXPECT_DOUBLE_EQ(q.input_elements, 200'704.0);
  EXPECT_DOUBLE_EQ(q.output_elements, 401'408.0);
  EXPECT_DOUBLE_EQ(q.weights_without_bias, 18'432.0);
  // Bytes at fp16: output 401,408 elements * 2 B.
  EXPECT_DOUBLE_EQ(tensor_bytes(q.output_elements, 2), 802'816.0);
}

// FC 4096 -> 1000 with bias, batch B = 8 (seed 000 Table 6, §3.1 shapes):
//   FWD = (B*D_o) * (2*D_i - 1) = 8,000 * 8,191 = 65,528,000
//   BWD = (B*D_i) * (2*D_o - 1) = 32,768 * 1,999 = 65,503,232
//   UPD = (D_i*D_o) * (2*B - 1) = 4,096,000 * 15 = 61,440,000
// Bias (auxiliary, seed 003): FWD adds B*D_o = 8,000; its gradient sums B*D_o = 8,000.
// Params = 4096*1000 + 1000 = 4,097,000.
TEST(LayerFlops, FcMatchesAccParTable6) {
  NetBuilder b("t", "");
  b.fc("fc", b.input("x", {4096}), 1000);
  const Graph g = b.build(8);
  const LayerQuantities& q = only(g, "fc").q;
  EXPECT_DOUBLE_EQ(q.primary_flops.fwd, 65'528'000.0);
  EXPECT_DOUBLE_EQ(q.primary_flops.bwd, 65'503'232.0);
  EXPECT_DOUBLE_EQ(q.primary_flops.upd, 61'440'000.0);
  EXPECT_DOUBLE_EQ(q.aux_flops.fwd, 8'000.0);
  EXPECT_DOUBLE_EQ(q.aux_flops.upd, 8'000.0);
  EXPECT_DOUBLE_EQ(q.flops().fwd, 65'536'000.0);
  EXPECT_EQ(q.params, 4'097'000);
  EXPECT_EQ(q.in_features, 4096);
  EXPECT_EQ(q.out_features, 1000);
  EXPECT_EQ(q.in_positions, 1);
  EXPECT_EQ(q.kernel_positions, 1);
  EXPECT_DOUBLE_EQ(q.weights_without_bias, 4'096'000.0);  // params less the 1000 biases
}

// A strided conv: stride 2 halves the output; MACs = out elements * P.
// 3 -> 8 channels, 3x3, stride 2, pad 1, on 32x32, B = 1: output 8x16x16 = 2048 elements,
// P = 3*9 = 27, MACs = 55,296; FWD = 2048 * 53 = 108,544. Stride 2.
TEST(LayerFlops, StridedConv) {
  NetBuilder b("t", "");
  b.conv("conv", b.input("x", {3, 32, 32}), 8, 3, 2, 1, false);
  const Graph g = b.build(1);
  const Layer& l = g.layer("conv");
  EXPECT_EQ(l.output_shape, (Shape{8, 16, 16}));
  EXPECT_DOUBLE_EQ(l.q.macs.fwd, 55'296.0);
  EXPECT_DOUBLE_EQ(l.q.primary_flops.fwd, 108'544.0);
  EXPECT_EQ(l.q.stride, 2);
  EXPECT_EQ(l.q.in_positions, 1024);  // the INPUT's 32x32 positions
  EXPECT_EQ(l.q.out_positions, 256);  // the output's 16x16
}

// LSTM, 1024 inputs, hidden 1024, 128 timesteps, B = 4 (seed 003 §II-A: N_in + N_out inputs):
// gate product per step (B, 1024+1024) x (2048, 4*1024):
//   MACs = B*T*4H*(D+H) = 4*128*4096*2048 = 4,294,967,296
//   params = 4H*(D+H) + 4H = 4096*2048 + 4096 = 8,392,704
TEST(LayerFlops, LstmCountsInputPlusHidden) {
  NetBuilder b("t", "");
  b.lstm("lstm", b.input("x", {1024, 128}), 1024);
  const Graph g = b.build(4);
  const LayerQuantities& q = g.layer("lstm").q;
  EXPECT_DOUBLE_EQ(q.macs.fwd, 4'294'967'296.0);
  EXPECT_EQ(q.params, 8'392'704);
  EXPECT_EQ(q.in_features, 2048);  // input + hidden
  EXPECT_EQ(q.out_features, 4096);  // 4 gates * hidden
  EXPECT_EQ(q.timesteps, 128);
  EXPECT_EQ(q.in_positions, 1);
  EXPECT_EQ(q.out_positions, 1);
  // UPD: A(W) * (2*B*T - 1) = 8,388,608 * 1023 (Table 6 with the B*T rows of all timesteps).
  EXPECT_DOUBLE_EQ(q.primary_flops.upd, 8'388'608.0 * 1023.0);
  // Bidirectional doubles weights and output width.
  NetBuilder b2("t", "");
  b2.lstm("lstm", b2.input("x", {1024, 128}), 1024, true);
  const Graph g2 = b2.build(4);
  EXPECT_EQ(g2.layer("lstm").output_shape, (Shape{2048, 128, 1}));
  EXPECT_EQ(g2.layer("lstm").q.params, 2 * 8'392'704);
}

// Self-attention, width 1024, 16 heads, 128 tokens, B = 1:
// Q, K, V, O projections 4*S*E^2 = 4*128*1,048,576 = 536,870,912 MACs; scores Q K^T and context
// P V: 2*S*S*E = 2*128*128*1024 = 33,554,432 MACs; total 570,425,344. Params 4E^2 + 4E.
TEST(LayerFlops, AttentionMacs) {
  NetBuilder b("t", "");
  b.attention("attn", {b.input("x", {1024, 128})}, 16);
  const Graph g = b.build(1);
  const LayerQuantities& q = g.layer("attn").q;
  EXPECT_DOUBLE_EQ(q.macs.fwd, 570'425'344.0);
  EXPECT_EQ(q.params, 4 * 1024 * 1024 + 4 * 1024);
  EXPECT_DOUBLE_EQ(q.macs.upd, 536'870'912.0);  // only the projections have weights
}

// Embedding: a gather, no MACs; params vocab*dim.
// Grouped-query attention without biases, E = 64, 8 heads, 2 kv heads (E_kv = 16), S = 10, B = 1:
//   params W_Q, W_O 64*64 each + W_K, W_V 64*16 each = 8192 + 2048 = 10,240 (no biases)
//   MACs fwd: Q and O projections 2 * 10*64*64 = 81,920; K and V 2 * 10*64*16 = 20,480;
//   scores 8 heads * 10*10 * 8 = 6,400; context 10*10*64 = 6,400  ->  115,200
//   aux fwd: no bias adds, 4 ops per score: 4 * 800 = 3,200.
TEST(LayerFlops, GroupedQueryAttentionWithoutBias) {
  NetBuilder b("t", "");
  b.attention("attn", {b.input("x", {64, 10, 1})}, 8, /*kv_heads=*/2, /*bias=*/false);
  const Graph g = b.build(1);
  const LayerQuantities& q = only(g, "attn").q;
  EXPECT_EQ(q.params, 10'240);
  EXPECT_DOUBLE_EQ(q.macs.fwd, 115'200.0);
  EXPECT_DOUBLE_EQ(q.aux_flops.fwd, 3'200.0);
  EXPECT_DOUBLE_EQ(q.aux_flops.upd, 0.0);
}

// RMSNorm over 32 features at 5 positions, B = 2: 32 gains; Y = 320 elements, 4 ops each forward,
// 6 backward, 2 for the gain gradient. A gating product of two 32x5 tensors: 1 multiply per
// element forward, 2 (one per input gradient) backward.
TEST(LayerFlops, RmsNormAndGatingProduct) {
  NetBuilder b("t", "");
  const std::string x = b.input("x", {32, 5, 1});
  b.multiply("gated", {b.rms_norm("norm", x), x});
  const Graph g = b.build(2);
  EXPECT_EQ(g.layer("norm").q.params, 32);
  EXPECT_DOUBLE_EQ(g.layer("norm").q.aux_flops.fwd, 1'280.0);
  EXPECT_DOUBLE_EQ(g.layer("norm").q.aux_flops.bwd, 1'920.0);
  EXPECT_DOUBLE_EQ(g.layer("norm").q.aux_flops.upd, 640.0);
  EXPECT_EQ(g.layer("gated").q.params, 0);
  EXPECT_DOUBLE_EQ(g.layer("gated").q.aux_flops.fwd, 320.0);
  EXPECT_DOUBLE_EQ(g.layer("gated").q.aux_flops.bwd, 640.0);
}

TEST(LayerFlops, EmbeddingIsAuxiliary) {
  NetBuilder b("t", "");
  b.embedding("emb", b.input("tok", {1, 16}), 1000, 64);
  const Graph g = b.build(2);
  const LayerQuantities& q = g.layer("emb").q;
  EXPECT_EQ(q.params, 64'000);
  EXPECT_FALSE(q.primary);
  EXPECT_DOUBLE_EQ(q.macs.total(), 0.0);
  EXPECT_DOUBLE_EQ(q.aux_flops.upd, 2.0 * 16 * 64);  // one add per output-gradient element
  EXPECT_EQ(g.layer("emb").output_shape, (Shape{64, 16, 1}));
}

TEST(LayerShapes, PoolAndFlatten) {
  NetBuilder b("t", "");
  std::string x = b.pool("pool", b.input("x", {64, 112, 112}), PoolOp::max, 3, 2, 1);
  b.flatten("flat", b.global_pool("gap", x, PoolOp::avg));
  const Graph g = b.build(1);
  EXPECT_EQ(g.layer("pool").output_shape, (Shape{64, 56, 56}));  // floor((112+2-3)/2)+1 = 56
  EXPECT_EQ(g.layer("gap").output_shape, (Shape{64, 1, 1}));
  EXPECT_EQ(g.layer("flat").output_shape, (Shape{64, 1, 1}));
  EXPECT_EQ(g.layer("pool").q.kernel_positions, 9);
  EXPECT_EQ(g.layer("pool").q.stride, 2);
  EXPECT_EQ(g.layer("gap").q.kernel_positions, 56 * 56);  // a global pool's window: the whole map
}

// q, k and v cut out of one fused 3E projection: each slice keeps E channels at every position, no
// work and no parameters; a slice along the positions keeps one (a sequence's first token).
TEST(LayerShapes, SliceCutsOneAxisWithoutWork) {
  NetBuilder b("t", "");
  const std::string qkv = b.fc("qkv", b.input("x", {128, 16, 1}), 384);
  b.slice("k", qkv, ShapeAxis::channels, 128, 256);
  b.slice("first", qkv, ShapeAxis::height, 0, 1);
  const Graph g = b.build(2);
  EXPECT_EQ(g.layer("k").output_shape, (Shape{128, 16, 1}));
  EXPECT_EQ(g.layer("first").output_shape, (Shape{384, 1, 1}));
  EXPECT_EQ(g.layer("k").q.params, 0);
  EXPECT_DOUBLE_EQ(g.layer("k").q.macs.total() + g.layer("k").q.aux_flops.total(), 0.0);
  EXPECT_DOUBLE_EQ(g.layer("k").q.output_elements, 2.0 * 128 * 16);
}
