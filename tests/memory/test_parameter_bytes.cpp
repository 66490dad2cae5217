// Bytes per parameter of the model states and ZeRO's partitioning, against the papers' own
// arithmetic (docs/model.md "Memory footprint"). Bytes; GB = 1e9 B, GiB = 2^30 B.

#include <gtest/gtest.h>

#include "sim/common/error.hpp"
#include "sim/memory/parameter_bytes.hpp"
#include "sim/memory/zero.hpp"
#include "workloads/workload_file.hpp"

using namespace partsim;
using memory::bytes_per_parameter;
using memory::ModelStateBytes;
using memory::zero_partition;
using plan::MemorySettings;
using plan::Mode;
using plan::Optimizer;
using plan::TrainingPrecision;

namespace {

// Llama 7B's parameters: 32 layers x (4 x 4096^2 attention + 3 x 4096 x 11008 MLP + 2 x 4096 norms)
// + 2 x 32000 x 4096 (untied embedding and head) + 4096 (final norm) = 6,738,415,616.
constexpr double kLlama7bParams = 6738415616.0;

MemorySettings mixed_adam(bool fp32_main_gradients) {
  MemorySettings s;
  s.optimizer = Optimizer::adam;
  s.precision = TrainingPrecision::mixed;
  s.fp32_main_gradients = fp32_main_gradients;
  return s;
}

}  // namespace

TEST(ParameterBytes, Llama7bZooHasThePublishedParameterCount) {
  const workloads::Graph g = workloads::load_workload("llama_7b", 1);
  EXPECT_EQ(g.totals().params, 6738415616LL);
}

// ZeRO §3.1: 2Ψ + 2Ψ + KΨ with K = 12 = 16Ψ. Megatron-LM distrib_optimizer.md: bf16 parameters with
// fp32 gradients, 18 = 2 + 4 + 12.
TEST(ParameterBytes, MixedAdamIs16Or18BytesByTheMainGradientSetting) {
  EXPECT_EQ(bytes_per_parameter(mixed_adam(false), Mode::training, 2), (ModelStateBytes{2, 2, 12}));
  EXPECT_EQ(bytes_per_parameter(mixed_adam(true), Mode::training, 2), (ModelStateBytes{2, 4, 12}));
  // Llama 7B: 16 x 6,738,415,616 = 107,814,649,856 B; 18 x = 121,291,481,088 B (112.96 GiB).
  const ModelStateBytes zero = bytes_per_parameter(mixed_adam(false), Mode::training, 2).times(kLlama7bParams);
  EXPECT_EQ(zero.total(), 107814649856.0);
  const ModelStateBytes megatron = bytes_per_parameter(mixed_adam(true), Mode::training, 2).times(kLlama7bParams);
  EXPECT_EQ(megatron.weights_bytes, 13476831232.0);
  EXPECT_EQ(megatron.gradients_bytes, 26953662464.0);
  EXPECT_EQ(megatron.optimizer_bytes, 80860987392.0);
  EXPECT_EQ(megatron.total(), 121291481088.0);
}

// fp32 Adam: 4 + 4 + 8 (distrib_optimizer.md's "fp32 param, fp32 grads" row, 16). The sgd and
// momentum rows are derived (4 B per moment, + 4 B master in mixed precision).
TEST(ParameterBytes, Fp32AndTheDerivedOptimizers) {
  MemorySettings s;
  s.precision = TrainingPrecision::fp32;
  EXPECT_EQ(bytes_per_parameter(s, Mode::training, 2), (ModelStateBytes{4, 4, 8}));
  s.optimizer = Optimizer::momentum;
  EXPECT_EQ(bytes_per_parameter(s, Mode::training, 4).total(), 12);
  s.optimizer = Optimizer::sgd;
  EXPECT_EQ(bytes_per_parameter(s, Mode::training, 4), (ModelStateBytes{4, 4, 0}));
  MemorySettings m = mixed_adam(false);
  m.optimizer = Optimizer::sgd;
  EXPECT_EQ(bytes_per_parameter(m, Mode::training, 2), (ModelStateBytes{2, 2, 4}));  // 8
  m.optimizer = Optimizer::momentum;
  EXPECT_EQ(bytes_per_parameter(m, Mode::training, 2).total(), 12);
  m.fp32_main_gradients = true;
  EXPECT_EQ(bytes_per_parameter(m, Mode::training, 2).total(), 14);
}

TEST(ParameterBytes, InferenceKeepsTheWeightsOnly) {
  EXPECT_EQ(bytes_per_parameter(mixed_adam(true), Mode::inference, 2), (ModelStateBytes{2, 0, 0}));
  EXPECT_EQ(bytes_per_parameter(mixed_adam(true), Mode::inference, 4), (ModelStateBytes{4, 0, 0}));
}

TEST(ParameterBytes, DefaultsFollowThePlatformPrecision) {
  const MemorySettings bf16 = memory::default_memory_settings(topology::Precision::bf16);
  EXPECT_EQ(bf16.optimizer, Optimizer::adam);
  EXPECT_EQ(bf16.precision, TrainingPrecision::mixed);
  EXPECT_TRUE(bf16.fp32_main_gradients);
  EXPECT_EQ(memory::default_memory_settings(topology::Precision::fp32).precision, TrainingPrecision::fp32);
  EXPECT_THROW(bytes_per_parameter(mixed_adam(true), Mode::training, 4), InputError);
}

// ZeRO Fig. 1 / §5.1-5.3: Ψ = 7.5B, N_d = 64, K = 12: 120 GB, 31.4 GB, 16.6 GB, 1.9 GB. Exactly:
// 4Ψ + 12Ψ/64 = 31,406,250,000; 2Ψ + 14Ψ/64 = 16,640,625,000; 16Ψ/64 = 1,875,000,000.
TEST(ZeroPartition, ThePapersOwnExample) {
  const ModelStateBytes whole = bytes_per_parameter(mixed_adam(false), Mode::training, 2).times(7.5e9);
  EXPECT_EQ(zero_partition(whole, 0, 64).total(), 120e9);
  EXPECT_EQ(zero_partition(whole, 1, 64).total(), 31406250000.0);
  EXPECT_EQ(zero_partition(whole, 2, 64).total(), 16640625000.0);
  EXPECT_EQ(zero_partition(whole, 3, 64).total(), 1875000000.0);
}

// Llama 7B at N_d = 64, 16 B: 4Ψ + 12Ψ/64 = 26,953,662,464 + 1,263,452,928 = 28,217,115,392;
// 2Ψ + 14Ψ/64 = 13,476,831,232 + 1,474,028,416 = 14,950,859,648; 16Ψ/64 = 1,684,603,904.
// With 18 B, stage 1 is Megatron's distributed optimizer, 6Ψ + 12Ψ/64 = 41,693,946,624.
TEST(ZeroPartition, Llama7bAt64Replicas) {
  const ModelStateBytes zero = bytes_per_parameter(mixed_adam(false), Mode::training, 2).times(kLlama7bParams);
  EXPECT_EQ(zero_partition(zero, 1, 64).total(), 28217115392.0);
  EXPECT_EQ(zero_partition(zero, 2, 64).total(), 14950859648.0);
  EXPECT_EQ(zero_partition(zero, 3, 64).total(), 1684603904.0);
  const ModelStateBytes megatron = bytes_per_parameter(mixed_adam(true), Mode::training, 2).times(kLlama7bParams);
  EXPECT_EQ(zero_partition(megatron, 1, 64).total(), 41693946624.0);
}

TEST(ZeroPartition, RefusesABadStageOrDegree) {
  EXPECT_THROW(zero_partition({2, 2, 12}, 4, 8), InputError);
  EXPECT_THROW(zero_partition({2, 2, 12}, -1, 8), InputError);
  EXPECT_THROW(zero_partition({2, 2, 12}, 1, 0), InputError);
}
