// DeepSpatialMatrix's notation view (sim/planners/dsm/notation.hpp, seed 003 §II-A) on layers
// counted by hand, and the view's JSON block.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/planners/dsm/notation.hpp"
#include "workloads/net_builder.hpp"

using partsim::workloads::Graph;
using partsim::workloads::NetBuilder;
using partsim::workloads::PoolOp;

// Conv 32 -> 64, 3x3, stride 2, pad 1 on 56x56 at N_mb 2: Input N_in*N_mb*N_ij = 32*2*3136
// (N_ij is the INPUT feature size), Kernel N_out*N_in*N_kij = 64*32*9; not a pool: N_ws 0.
TEST(DsmNotation, ConvInputFeatureSizeKernelAndStride) {
  NetBuilder b("t", "");
  b.conv("conv", b.input("x", {32, 56, 56}), 64, 3, 2, 1, /*bias=*/false);
  const Graph g = b.build(2);
  const partsim::dsm::LayerNotation n = partsim::dsm::notation_of(g.layer("conv"));
  EXPECT_EQ(n.N_in, 32);
  EXPECT_EQ(n.N_out, 64);
  EXPECT_EQ(n.N_ij, 3136);
  EXPECT_EQ(n.N_kij, 9);
  EXPECT_EQ(n.N_mb, 2);
  EXPECT_EQ(n.N_stride, 2);
  EXPECT_EQ(n.N_ts, 1);
  EXPECT_EQ(n.N_ws, 0);
}

// A bidirectional LSTM, 1024 inputs, hidden 512, 16 timesteps, N_mb 4: "effectively N_in + N_out"
// inputs per timestep (1024 + 512), 4 gates * 512 * 2 directions = 4096 outputs, one position.
TEST(DsmNotation, LstmTakesInputPlusHiddenPerTimestep) {
  NetBuilder b("t", "");
  b.lstm("lstm", b.input("seq", {1024, 16}), 512, /*bidirectional=*/true);
  const Graph g = b.build(4);
  const partsim::dsm::LayerNotation n = partsim::dsm::notation_of(g.layer("lstm"));
  EXPECT_EQ(n.N_in, 1536);
  EXPECT_EQ(n.N_out, 4096);
  EXPECT_EQ(n.N_ts, 16);
  EXPECT_EQ(n.N_ij, 1);
  EXPECT_EQ(n.N_kij, 1);
  EXPECT_EQ(n.N_mb, 4);
  EXPECT_EQ(n.N_ws, 0);
}

// Max pool 3x3, stride 2 on 64x112x112: window N_ws = N_kij = 9; a global pool's window is the
// whole 56x56 map it pools, stride 1.
TEST(DsmNotation, PoolWindow) {
  NetBuilder b("t", "");
  const std::string pooled = b.pool("pool", b.input("x", {64, 112, 112}), PoolOp::max, 3, 2, 1);
  b.global_pool("gap", pooled, PoolOp::avg);
  const Graph g = b.build(1);
  const partsim::dsm::LayerNotation pool = partsim::dsm::notation_of(g.layer("pool"));
  EXPECT_EQ(pool.N_ws, 9);
  EXPECT_EQ(pool.N_kij, 9);
  EXPECT_EQ(pool.N_stride, 2);
  EXPECT_EQ(pool.N_ij, 12'544);
  const partsim::dsm::LayerNotation gap = partsim::dsm::notation_of(g.layer("gap"));
  EXPECT_EQ(gap.N_ws, 3136);
  EXPECT_EQ(gap.N_stride, 1);
  const nlohmann::json j = partsim::dsm::notation_view().describe(g.layer("pool"));
  EXPECT_EQ(partsim::dsm::notation_view().name, "dsm");
  EXPECT_EQ(j.size(), 8u);
  EXPECT_EQ(j["N_ws"], 9);
  EXPECT_TRUE(j["N_ws"].is_number_integer());
}
