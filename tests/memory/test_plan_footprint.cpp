// A plan's per-device footprint (sim/memory/footprint.hpp) on a two-layer MLP, for data and tensor
// parallelism, against bytes summed by hand from the shardings (docs/model.md "Memory footprint").
//
// MLP: x (1024 features) -> fc1 (1024 -> 4096, no bias) -> relu -> fc2 (4096 -> 1024, no bias),
// batch 64, on 4 bf16 devices (2 B per element), training with mixed-precision Adam and fp32 main
// gradients (2 + 4 + 12 B per parameter). fc1 and fc2 have 4,194,304 parameters each.

#include <gtest/gtest.h>

#include "sim/memory/footprint.hpp"
#include "sim/plan/sharding.hpp"
#include "tests/lowering_sharding/two_fc.hpp"
#include "workloads/net_builder.hpp"

using namespace partsim;
using plan::ShardDim;

namespace {

workloads::Graph mlp() {
  workloads::NetBuilder b("mlp", "");
  const std::string x = b.input("x", {1024, 1, 1});
  const std::string h = b.fc("fc1", x, 4096, false);
  const std::string a = b.activation("relu", h);
  b.fc("fc2", a, 1024, false);
  return b.build(64);
}

plan::MemorySettings megatron_adam() { return plan::MemorySettings{plan::Optimizer::adam, plan::TrainingPrecision::mixed, true}; }

}  // namespace

// Data parallelism over 4: every device holds both weight matrices whole (8,388,608 parameters) and
// a quarter of the batch (16 samples) of every output: x 16 x 1024, fc1 and relu 16 x 4096, fc2
// 16 x 1024 = 163,840 elements = 327,680 B kept. Working: relu's BWD, dY 65,536 + dX 65,536
// elements = 262,144 B.
TEST(PlanFootprint, TwoLayerMlpDataParallel) {
  const auto spec = fixtures::star(4);
  const auto g = mlp();
  const plan::Sharding dp = plan::mesh_sharding({}, {{ShardDim::batch, 4}});
  const plan::Plan p = fixtures::plan_of(g, {dp, dp, dp, dp}, plan::Mode::training);
  const plan::MemoryUse m = memory::plan_memory(p, spec, g, megatron_adam());
  EXPECT_EQ(m.weights_bytes, 16777216.0);     // 8,388,608 x 2
  EXPECT_EQ(m.gradients_bytes, 33554432.0);   // x 4
  EXPECT_EQ(m.optimizer_bytes, 100663296.0);  // x 12
  EXPECT_EQ(m.activations_bytes, 327680.0);
  EXPECT_EQ(m.working_bytes, 262144.0);
  EXPECT_EQ(m.per_device_bytes, 16777216.0 + 33554432.0 + 100663296.0 + 327680.0 + 262144.0);
  EXPECT_EQ(m.capacity_bytes, 17179869184.0);  // 16 GiB
  EXPECT_EQ(m.device, "d0");
  EXPECT_TRUE(m.devices.empty());  // every device holds the same
  ASSERT_TRUE(m.settings.has_value());
  EXPECT_TRUE(m.fits());

  const auto rows = memory::layer_memory(p, spec, g, megatron_adam(), 2);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[1].layer, "fc1");
  EXPECT_EQ(rows[1].weights_bytes, 8388608.0);      // 4,194,304 x 2
  EXPECT_EQ(rows[1].activations_bytes, 131072.0);   // 16 x 4096 x 2
  EXPECT_EQ(rows[0].activations_bytes, 32768.0);    // x: 16 x 1024 x 2
}

// Tensor parallelism (Megatron's column- then row-parallel pair) with the input split by batch:
// fc1 splits out_channels 4 (1024 x 1024 weights, output 64 x 1024), relu its channels (64 x 1024),
// fc2 in_channels 4 (1024 x 1024 weights, a partial sum of the whole output, 64 x 1024).
// Parameters 2,097,152: weights 4,194,304 B, gradients 8,388,608 B, optimizer 25,165,824 B.
// Kept: x 16 x 1024 + 3 x 65,536 = 212,992 elements = 425,984 B. Working: fc1 reads the whole
// batch's x (65,536, gathered from the other devices) and writes 65,536: 131,072 elements = 262,144 B.
TEST(PlanFootprint, TwoLayerMlpTensorParallel) {
  const auto spec = fixtures::star(4);
  const auto g = mlp();
  const plan::Plan p = fixtures::plan_of(g,
                               {plan::mesh_sharding({}, {{ShardDim::batch, 4}}),
                                plan::mesh_sharding({}, {{ShardDim::out_channels, 4}}),
                                plan::mesh_sharding({}, {{ShardDim::out_channels, 4}}),
                                plan::mesh_sharding({}, {{ShardDim::in_channels, 4}})},
                               plan::Mode::training);
  const plan::MemoryUse m = memory::plan_memory(p, spec, g, megatron_adam());
  EXPECT_EQ(m.weights_bytes, 4194304.0);
  EXPECT_EQ(m.gradients_bytes, 8388608.0);
  EXPECT_EQ(m.optimizer_bytes, 25165824.0);
  EXPECT_EQ(m.activations_bytes, 425984.0);
  EXPECT_EQ(m.working_bytes, 262144.0);
  EXPECT_TRUE(m.devices.empty());
}

// Inference, data parallel: weights only (8,388,608 x 2 B); the largest live output is fc1's or
// relu's 16 x 4096 x 2 = 131,072 B, and the largest input a layer reads the same size.
TEST(PlanFootprint, TwoLayerMlpInference) {
  const auto spec = fixtures::star(4);
  const auto g = mlp();
  const plan::Sharding dp = plan::mesh_sharding({}, {{ShardDim::batch, 4}});
  const plan::MemoryUse m =
      memory::plan_memory(fixtures::plan_of(g, {dp, dp, dp, dp}, plan::Mode::inference), spec, g, megatron_adam());
  EXPECT_EQ(m.weights_bytes, 16777216.0);
  EXPECT_EQ(m.gradients_bytes, 0.0);
  EXPECT_EQ(m.optimizer_bytes, 0.0);
  EXPECT_EQ(m.activations_bytes, 131072.0);
  EXPECT_EQ(m.working_bytes, 131072.0);
}

// Uneven data parallelism on devices 0 and 1 (48 and 16 samples), devices 2 and 3 idle: the devices
// differ, so every one is listed and the fullest (d0) heads the summary. d0 keeps 48/16 = 3 times
// the single-device DP activations of a 16-sample quarter: 3 x 327,680 = 983,040 B.
TEST(PlanFootprint, DevicesThatDifferAreListedAndTheFullestLeads) {
  const auto spec = fixtures::star(4);
  const auto g = mlp();
  plan::Sharding uneven;
  uneven.devices = {0, 1};
  uneven.splits = {{ShardDim::batch, 2, {0.75, 0.25}, {}}};
  const plan::MemoryUse m =
      memory::plan_memory(fixtures::plan_of(g, {uneven, uneven, uneven, uneven}, plan::Mode::training), spec, g, megatron_adam());
  ASSERT_EQ(m.devices.size(), 4u);
  EXPECT_EQ(m.device, "d0");
  EXPECT_EQ(m.activations_bytes, 983040.0);
  EXPECT_EQ(m.devices[1].activations_bytes, 327680.0);
  EXPECT_EQ(m.devices[3].per_device_bytes, 0.0);
}
