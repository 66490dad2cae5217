// Activation memory (sim/planners/megatron/activation_memory.hpp) against Korthikanti et al. 2022 (K22)
// Table 2, Eq. 5-6 and §4.3, worked by hand. Bytes; GiB = 2^30 B. The 22B figures (59.25 GiB
// without recomputation or sequence parallelism, 9.56 GiB with both) are these formulas' values: K22
// prints no such number (its Fig. 1 and 7 are bars), so they are checked as hand arithmetic, and K22
// §6.1's prose ratios as the published statement.

#include <gtest/gtest.h>

#include "sim/common/error.hpp"
#include "sim/planners/megatron/activation_memory.hpp"
#include "tests/megatron/paper_models.hpp"

using namespace partsim;
using megatron::LayerParallelism;
using megatron::PipelineShape;
using megatron::Recompute;
using megatron::Schedule;
using megatron::TransformerShape;
using test::gpt3;
using test::k22_22b;
using test::tp;

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
// K22 Table 3's 22B (t = 8, p = 1, micro-batch 4) and GPT-3 175B (t = 8, p = 8, micro-batch 1) are
// in tests/megatron/paper_models.hpp.

}  // namespace

// 22B, b = 4, t = 8: sbh = 2048 x 4 x 6144 = 50,331,648; 5as/(ht) = 5 x 64 x 2048/(6144 x 8) = 40/3.
//   none, TP        (10 + 3 + 40/3) = 79/3  x sbh = 1,325,400,064 B; x 48 = 63,619,203,072 = 59.25 GiB
//   none, TP + SP   (4.25 + 40/3) = 211/12 x sbh =   884,998,144 B; x 48 = 42,479,910,912 = 39.5625 GiB
//   selective, TP   13 x sbh                      =   654,311,424 B; x 48 = 31,406,948,352 = 29.25 GiB
//   selective, SP   4.25 x sbh                    =   213,909,504 B; x 48 = 10,267,656,192 = 9.5625 GiB
//   full, TP        2 x sbh                       =   100,663,296 B; x 48 =  4,831,838,208 = 4.5 GiB
//   full, SP        2/8 x sbh                     =    12,582,912 B; x 48 =    603,979,776 = 0.5625 GiB
TEST(MegatronActivations, PerLayerTable2For22B) {
  EXPECT_DOUBLE_EQ(megatron::layer_activation_bytes(k22_22b, 4, tp(8, false, Recompute::none)), 1325400064.0);
  EXPECT_DOUBLE_EQ(megatron::layer_activation_bytes(k22_22b, 4, tp(8, true, Recompute::none)), 884998144.0);
  EXPECT_DOUBLE_EQ(megatron::layer_activation_bytes(k22_22b, 4, tp(8, false, Recompute::selective)), 654311424.0);
  EXPECT_DOUBLE_EQ(megatron::layer_activation_bytes(k22_22b, 4, tp(8, true, Recompute::selective)), 213909504.0);
  EXPECT_DOUBLE_EQ(megatron::layer_activation_bytes(k22_22b, 4, tp(8, false, Recompute::full)), 100663296.0);
  EXPECT_DOUBLE_EQ(megatron::layer_activation_bytes(k22_22b, 4, tp(8, true, Recompute::full)), 12582912.0);
  // Eq. 1 (no parallelism): (34 + 5as/h) sbh = (34 + 320/3) sbh = 422/3 x 50,331,648 = 7,079,985,152.
  EXPECT_DOUBLE_EQ(megatron::layer_activation_bytes(k22_22b, 4, tp(1, false, Recompute::none)), 7079985152.0);
  EXPECT_DOUBLE_EQ(megatron::layer_activation_bytes(k22_22b, 4, tp(1, true, Recompute::none)), 7079985152.0);
}

// GPT-3 175B per layer, b = 1, t = 8 (sbh = 25,165,824; 5as/(ht) = 10): TP 23 sbh = 578,813,952;
// TP + SP 14.25 sbh = 358,612,992; selective 13 sbh = 327,155,712; SP + selective 4.25 sbh =
// 106,954,752; full 2 sbh = 50,331,648.
TEST(MegatronActivations, PerLayerTable2ForGpt3) {
  EXPECT_DOUBLE_EQ(megatron::layer_activation_bytes(gpt3, 1, tp(8, false, Recompute::none)), 578813952.0);
  EXPECT_DOUBLE_EQ(megatron::layer_activation_bytes(gpt3, 1, tp(8, true, Recompute::none)), 358612992.0);
  EXPECT_DOUBLE_EQ(megatron::layer_activation_bytes(gpt3, 1, tp(8, false, Recompute::selective)), 327155712.0);
  EXPECT_DOUBLE_EQ(megatron::layer_activation_bytes(gpt3, 1, tp(8, true, Recompute::selective)), 106954752.0);
  EXPECT_DOUBLE_EQ(megatron::layer_activation_bytes(gpt3, 1, tp(8, false, Recompute::full)), 50331648.0);
}

// K22 §6.1 (Fig. 7's prose), as a percentage of the TP baseline: "individually, both techniques cut
// the memory requirement nearly in half", "combined ... under 20%", full recomputation "at 10%".
// 22B: SP 211/12 / (79/3) = 66.8 %, selective 13/(79/3) = 49.4 %, both 4.25/(79/3) = 16.1 %,
// full 2/(79/3) = 7.6 %. (SP alone is "nearly half" only for the larger models: 175B 62 %.)
TEST(MegatronActivations, RatiosToTheTensorParallelBaselineAsK22Section61States) {
  const double base = megatron::layer_activation_bytes(k22_22b, 4, tp(8, false, Recompute::none));
  auto share = [&](bool sp, Recompute r) { return megatron::layer_activation_bytes(k22_22b, 4, tp(8, sp, r)) / base; };
  EXPECT_NEAR(share(true, Recompute::none), 0.668, 0.001);
  EXPECT_NEAR(share(false, Recompute::selective), 0.494, 0.001);
  EXPECT_NEAR(share(true, Recompute::selective), 0.161, 0.001);
  EXPECT_LT(share(true, Recompute::selective), 0.20);
  EXPECT_NEAR(share(false, Recompute::full), 0.076, 0.001);
}

// The 22B run of K22 (p = 1, so 1F1B holds one micro-batch of all 48 layers: Eq. 5 = 48 layers),
// with §4.3's extras for p = 1. With SP + selective:
//   layers 48 x 213,909,504                                  = 10,267,656,192
//   embedding dropout mask sbh/t = 50,331,648/8              =      6,291,456
//   final LayerNorm + projection inputs 4sbh/t               =     25,165,824
//   fp32 logits 4sbV/t = 4 x 2048 x 4 x 51,200/8             =    209,715,200
//   total                                                    = 10,508,828,672 (9.787 GiB)
// K22 §4.3 calls the extras "less than 0.01%" for 22B; by its own formula they are
// 241,172,480 / 10,267,656,192 = 2.35 % (docs/model.md).
// Without SP or recomputation: 63,619,203,072 + sbh 50,331,648 + 4sbh 201,326,592 + 209,715,200
// = 64,080,576,512.
TEST(MegatronActivations, FirstStageOf22BWithKorthikantiExtras) {
  const PipelineShape single{Schedule::one_f_one_b, 1, 1, 1};
  const double sp_selective = megatron::stage_activation_bytes(k22_22b, 4, tp(8, true, Recompute::selective), single, 0);
  EXPECT_DOUBLE_EQ(sp_selective, 10508828672.0);
  EXPECT_DOUBLE_EQ(megatron::embedding_activation_bytes(k22_22b, 4, tp(8, true, Recompute::selective)), 6291456.0);
  EXPECT_DOUBLE_EQ(megatron::output_layer_activation_bytes(k22_22b, 4, tp(8, true, Recompute::selective)),
                   234881024.0);
  EXPECT_DOUBLE_EQ(sp_selective - 10267656192.0, 241172480.0);
  EXPECT_NEAR(10267656192.0 / kGiB, 9.5625, 1e-12);  // the "9.56 GiB" is Eq. 6 alone

  const double baseline = megatron::stage_activation_bytes(k22_22b, 4, tp(8, false, Recompute::none), single, 0);
  EXPECT_DOUBLE_EQ(baseline, 64080576512.0);
  EXPECT_NEAR(63619203072.0 / kGiB, 59.25, 1e-12);  // the "59.25 GiB" is Eq. 5 alone (TP baseline)
}

// 1F1B, p = 4, m = 8, GPT-3 (24 layers a stage), SP + selective (106,954,752 B a layer): stage 1
// holds min(4 - 1, 8) = 3 micro-batches: 72 layers = 7,700,742,144 B; stage 0 holds 4 x 24 = 96
// layers (K22 Eq. 5: L layers) = 10,267,656,192 + 4 embedding masks of sbh/t = 3,145,728:
// 10,280,239,104. Stage 3 holds 1 micro-batch: 24 layers = 2,566,914,048 + output 1 x (4sbh/t
// 12,582,912 + 4sbV/t 52,428,800) = 2,631,925,760.
TEST(MegatronActivations, OneFOneBStagesHoldTheirInFlightMicroBatches) {
  const PipelineShape pipe{Schedule::one_f_one_b, 4, 8, 1};
  const LayerParallelism par = tp(8, true, Recompute::selective);
  EXPECT_DOUBLE_EQ(megatron::stage_activation_bytes(gpt3, 1, par, pipe, 1), 7700742144.0);
  EXPECT_DOUBLE_EQ(megatron::stage_activation_bytes(gpt3, 1, par, pipe, 0), 10280239104.0);
  EXPECT_DOUBLE_EQ(megatron::stage_activation_bytes(gpt3, 1, par, pipe, 3), 2631925760.0);
}

// K22's 175B run: p = 8, interleaved with v = 3, m = 64, SP + selective. Stage 0: 31 chunk forwards
// x 4 layers = 124 layers = 96 (1 + 7/24) (K22 §4.2.3): 124 x 106,954,752 = 13,262,389,248, plus
// 31/3 embedding masks of 3,145,728 = 32,505,856: 13,294,895,104. Stage 7: 2 x 0 + 2 x 8 + 1 = 17
// chunk forwards = 68 layers = 7,272,923,136, plus one output layer 65,011,712: 7,337,934,848.
TEST(MegatronActivations, InterleavedStagesOf175B) {
  const PipelineShape pipe{Schedule::interleaved, 8, 64, 3};
  const LayerParallelism par = tp(8, true, Recompute::selective);
  EXPECT_DOUBLE_EQ(megatron::stage_activation_bytes(gpt3, 1, par, pipe, 0), 13294895104.0);
  EXPECT_DOUBLE_EQ(megatron::stage_activation_bytes(gpt3, 1, par, pipe, 7), 7337934848.0);
}

// GPipe keeps all m micro-batches: p = 2, m = 4, GPT-3, full recomputation without SP (2 sbh =
// 50,331,648 a layer): stage 1 holds 4 x 48 layers = 9,663,676,416 + 4 output layers of 4sbh
// 100,663,296 + 4sbV/t 52,428,800 = 4 x 153,092,096: 10,276,044,800.
TEST(MegatronActivations, GPipeHoldsEveryMicroBatch) {
  const PipelineShape pipe{Schedule::gpipe, 2, 4, 1};
  EXPECT_DOUBLE_EQ(megatron::stage_activation_bytes(gpt3, 1, tp(8, false, Recompute::full), pipe, 1), 10276044800.0);
}

TEST(MegatronActivations, RefusesNonUniformStagesAndBadInputs) {
  const LayerParallelism par = tp(8, true, Recompute::selective);
  // 96 layers over p v = 5 x 1 is not uniform; nor over 8 x 5 = 40 chunks.
  EXPECT_THROW(megatron::stage_activation_bytes(gpt3, 1, par, {Schedule::one_f_one_b, 5, 10, 1}, 0), InputError);
  EXPECT_THROW(megatron::stage_activation_bytes(gpt3, 1, par, {Schedule::interleaved, 8, 64, 5}, 0), InputError);
  EXPECT_THROW(megatron::stage_activation_bytes(gpt3, 1, par, {Schedule::one_f_one_b, 4, 8, 1}, 4), InputError);
  EXPECT_THROW(megatron::layer_activation_bytes(gpt3, 0, par), InputError);
  TransformerShape bad = gpt3;
  bad.heads = 100;  // 12288 % 100 != 0
  EXPECT_THROW(megatron::layer_activation_bytes(bad, 1, tp(1, false, Recompute::none)), InputError);
}

// One chunk for one micro-batch (chunk_activation_bytes), what the megatron lowering holds per
// (chunk, micro-batch):
//   22B, b = 4, t = 8, full recomputation, p = v = 1 (one chunk, every layer): 48 x 2sbh =
//   4,831,838,208 + the embedding mask sbh 50,331,648 + the output layer 4sbh 201,326,592 +
//   4sbV/t = 4 x 2048 x 4 x 51,200 / 8 = 209,715,200: 5,293,211,648 B.
//   A tiny GPT (L = 4, h = 64, a = 2, s = 16, V = 128), b = 1, t = 1, no recomputation, p = v = 2:
//   a layer sbh (34 + 5as/h) = 1,024 x 36.5 = 37,376 B, one per chunk; chunk 0 adds the mask
//   sbh = 1,024 (38,400), chunk 3 the output layer 4sbh + 4sbV = 4,096 + 8,192 (49,664).
TEST(MegatronActivations, OneChunkForOneMicroBatch) {
  EXPECT_DOUBLE_EQ(megatron::chunk_activation_bytes(k22_22b, 4, tp(8, false, Recompute::full), {Schedule::one_f_one_b, 1, 1, 1}, 0),
                   5293211648.0);
  constexpr TransformerShape tiny{.layers = 4, .hidden = 64, .heads = 2, .sequence = 16, .vocabulary = 128};
  const PipelineShape pipe{Schedule::interleaved, 2, 4, 2};
  const LayerParallelism par = tp(1, false, Recompute::none);
  EXPECT_DOUBLE_EQ(megatron::chunk_activation_bytes(tiny, 1, par, pipe, 0), 38400.0);
  EXPECT_DOUBLE_EQ(megatron::chunk_activation_bytes(tiny, 1, par, pipe, 1), 37376.0);
  EXPECT_DOUBLE_EQ(megatron::chunk_activation_bytes(tiny, 1, par, pipe, 2), 37376.0);
  EXPECT_DOUBLE_EQ(megatron::chunk_activation_bytes(tiny, 1, par, pipe, 3), 49664.0);
  EXPECT_THROW(megatron::chunk_activation_bytes(tiny, 1, par, pipe, 4), InputError);
  EXPECT_THROW(megatron::chunk_activation_bytes(tiny, 1, par, {Schedule::one_f_one_b, 3, 4, 1}, 0), InputError);
}
