// A transformer layer's FLOPs and traffic (sim/planners/megatron/transformer_costs.hpp) against numbers worked
// by hand from Korthikanti et al. 2022 (K22) App. A and §4.2, Narayanan et al. 2021 (N21) §3.2, §4.1
// and §5.1, and Rajbhandari et al. 2020 (ZeRO) §7; and against the figures those papers print.

#include <gtest/gtest.h>

#include "sim/common/error.hpp"
#include "sim/planners/megatron/transformer_costs.hpp"
#include "tests/megatron/paper_models.hpp"

using namespace partsim;
using megatron::CollectiveCounts;
using megatron::LayerParallelism;
using megatron::Recompute;
using megatron::TransformerShape;
using test::gpt3;
using test::k22_22b;
using test::tp;

// K22 Table 3's 22B and GPT-3 175B: tests/megatron/paper_models.hpp.

// K22 App. A, 22B with B = 4:
//   24 B s h^2 = 24 x 4 x 2048 x 6144^2 = 196,608 x 37,748,736 = 7,421,703,487,488
//   4 B s^2 h  = 16 x 2048^2 x 6144 = 67,108,864 x 6144     =   412,316,860,416
//   forward                                                  = 7,834,020,347,904
//   logit 2BshV = 2 x 4 x 2048 x 6144 x 51,200               = 5,153,960,755,200
TEST(MegatronFlops, LayerForwardAttentionCoreAndLogitsOf22B) {
  EXPECT_DOUBLE_EQ(megatron::layer_forward_flops(k22_22b, 4), 7834020347904.0);
  EXPECT_DOUBLE_EQ(megatron::attention_core_forward_flops(k22_22b, 4), 412316860416.0);
  EXPECT_DOUBLE_EQ(megatron::logit_forward_flops(k22_22b, 4), 5153960755200.0);
  EXPECT_THROW(megatron::layer_forward_flops(k22_22b, 0), InputError);
}

// Eq. 7 for 22B, B = 4: 72 B L s h^2 (1 + s/6h + V/12hL) = 1,143,560,812,363,776, which is also
// L x 3F + 3 x 2BshV = 48 x 23,502,061,043,712 + 15,461,882,265,600 (K22 App. A: 3x the forward).
// N21 eq. 3 (full recomputation) = 1,519,593,789,063,168 = L x 4F + 3 x 2BshV.
// K22 eq. 8 = 1,202,934,440,263,680 = eq. 7 + 12 B L s^2 h (12 x 4 x 48 x 2048^2 x 6144 =
// 59,373,627,899,904), while App. A's text recomputes 4 B L s^2 h: the work partsim counts is
// eq. 7 + 19,791,209,299,968 = 1,163,352,021,663,744.
TEST(MegatronFlops, PaperEquationsAndTheWorkOfAStepFor22B) {
  const double eq7 = 1143560812363776.0;
  EXPECT_DOUBLE_EQ(megatron::model_flops_per_iteration(k22_22b, 4), eq7);
  EXPECT_DOUBLE_EQ(megatron::paper_hardware_flops_per_iteration(k22_22b, 4, Recompute::none), eq7);
  EXPECT_DOUBLE_EQ(megatron::paper_hardware_flops_per_iteration(k22_22b, 4, Recompute::full), 1519593789063168.0);
  EXPECT_DOUBLE_EQ(megatron::paper_hardware_flops_per_iteration(k22_22b, 4, Recompute::selective),
                   1202934440263680.0);

  const double logits_step = 3.0 * 5153960755200.0;
  EXPECT_DOUBLE_EQ(48.0 * megatron::layer_training_flops(k22_22b, 4, Recompute::none) + logits_step, eq7);
  EXPECT_DOUBLE_EQ(48.0 * megatron::layer_training_flops(k22_22b, 4, Recompute::full) + logits_step,
                   1519593789063168.0);
  EXPECT_DOUBLE_EQ(48.0 * megatron::layer_training_flops(k22_22b, 4, Recompute::selective) + logits_step,
                   1163352021663744.0);
}

// K22 Table 5, 22B (8 A100s at 312 TFLOP/s, N21 §5; present work = SP + selective): 1.10 s,
// MFU 41.5 %, HFU 43.7 %. Eq. 7 / 1.10 s / (8 x 312e12) = 41.65 %; eq. 8 gives 43.81 %.
TEST(MegatronFlops, Eq7AndEq8ReproduceTable5UtilisationsOf22B) {
  const double peak = 8 * 312e12;
  EXPECT_NEAR(megatron::model_flops_per_iteration(k22_22b, 4) / 1.10 / peak, 0.415, 0.002);
  EXPECT_NEAR(megatron::paper_hardware_flops_per_iteration(k22_22b, 4, Recompute::selective) / 1.10 / peak, 0.437,
              0.002);
}

// K22 §5: selective recomputation costs "2.7% and 1.6% FLOPs overhead" for GPT-3 and MT-NLG. That is
// eq. 8 / eq. 7 - 1 = (s/6h)/(1 + s/6h + V/12hL): GPT-3 0.027778/1.031395 = 2.69 %; MT-NLG (L 105,
// h 20480, a 128) 0.016667/1.018651 = 1.64 %. The recomputed attention core alone, 4BLs^2h, is a
// third of that: (s/18h)/(...) = 0.90 % for GPT-3.
TEST(MegatronFlops, SelectiveOverheadAsKorthikantiStatesIt) {
  const TransformerShape mt_nlg{.layers = 105, .hidden = 20480, .heads = 128, .sequence = 2048, .vocabulary = 51200};
  auto overhead = [](const TransformerShape& m) {
    return megatron::paper_hardware_flops_per_iteration(m, 1, Recompute::selective) /
               megatron::model_flops_per_iteration(m, 1) -
           1.0;
  };
  EXPECT_NEAR(overhead(gpt3), 0.027, 0.0005);
  EXPECT_NEAR(overhead(mt_nlg), 0.016, 0.0005);
  const double work = 96.0 * megatron::attention_core_forward_flops(gpt3, 1) / megatron::model_flops_per_iteration(gpt3, 1);
  EXPECT_NEAR(work, 0.00898, 0.00001);
}

// N21 §5.1: GPT-3 on T = 300e9 tokens, B = 1536, n = 1024 A100s at X = 140 TFLOP/s "is 34 days"
// (by eq. 4, 8TP/(nX) = 33.9 days). Eq. 3 exactly: F = 96 x 1536 x 96 x 2048 x 12288^2 x
// (1 + 2048/73728 + 51200/18874368) = 4.51097e18 FLOPs per iteration; 31.466 s per iteration;
// T/(B s) = 95,367.43 iterations; 34.73 days, 2.2 % above the paper's rounded approximation.
TEST(MegatronFlops, Gpt3TrainingTimeOfNarayananSection51) {
  const double flops = megatron::paper_hardware_flops_per_iteration(gpt3, 1536, Recompute::full);
  EXPECT_NEAR(flops / 4.5109707533231063e18, 1.0, 1e-12);
  const double days = flops / (1024 * 140e12) * (300e9 / (1536.0 * 2048.0)) / 86400.0;
  EXPECT_NEAR(days, 34.73, 0.01);
  EXPECT_NEAR(days, 34.0, 0.03 * 34.0);
}

// Shoeybi 2019 §3 / K22 Fig. 4: two all-reduces forward (f-bar), two backward (f), each of b s h =
// 2048 x 4 x 6144 = 50,331,648 elements (100,663,296 B at 2 B). Full recomputation repeats the two
// forward all-reduces inside the backward pass; selective recomputation adds none.
TEST(MegatronTensorParallel, AllReducesWithoutSequenceParallelism) {
  auto none = megatron::tensor_parallel_traffic(k22_22b, 4, tp(8, false, Recompute::none), 2);
  EXPECT_EQ(none.forward, (CollectiveCounts{.all_reduces = 2, .all_gathers = 0, .reduce_scatters = 0}));
  EXPECT_EQ(none.backward, (CollectiveCounts{.all_reduces = 2, .all_gathers = 0, .reduce_scatters = 0}));
  EXPECT_DOUBLE_EQ(none.elements, 50331648.0);
  EXPECT_DOUBLE_EQ(none.bytes, 100663296.0);
  auto full = megatron::tensor_parallel_traffic(k22_22b, 4, tp(8, false, Recompute::full), 2);
  EXPECT_EQ(full.backward, (CollectiveCounts{.all_reduces = 4, .all_gathers = 0, .reduce_scatters = 0}));
  auto selective = megatron::tensor_parallel_traffic(k22_22b, 4, tp(8, false, Recompute::selective), 2);
  EXPECT_EQ(selective.backward, none.backward);
  // N21 §3.2: 8bsh(t - 1)/t per layer and device = 4 ring all-reduces of 2(t - 1)/t bsh each.
  EXPECT_EQ(none.forward.all_reduces + none.backward.all_reduces, 4);
}

// K22 §4.2.2, Fig. 5: forward 2 all-gathers (g) + 2 reduce-scatters (g-bar); backward their conjugates
// (2 reduce-scatters + 2 all-gathers) + 2 all-gathers of the stored sequence shards Y_i^s. The f/g
// collectives move what the all-reduces do (a ring all-reduce is a reduce-scatter + an all-gather):
// 2 x 2 all-reduces = 2 + 2 per pass. Full recomputation adds the forward's 2 + 2 to the backward.
TEST(MegatronTensorParallel, GathersAndScattersWithSequenceParallelism) {
  auto none = megatron::tensor_parallel_traffic(k22_22b, 4, tp(8, true, Recompute::none), 2);
  EXPECT_EQ(none.forward, (CollectiveCounts{.all_reduces = 0, .all_gathers = 2, .reduce_scatters = 2}));
  EXPECT_EQ(none.backward, (CollectiveCounts{.all_reduces = 0, .all_gathers = 4, .reduce_scatters = 2}));
  EXPECT_DOUBLE_EQ(none.bytes, 100663296.0);
  EXPECT_EQ(none.forward.all_gathers + none.forward.reduce_scatters, 2 * 2);
  EXPECT_EQ(none.backward.all_gathers - 2 + none.backward.reduce_scatters, 2 * 2);
  auto full = megatron::tensor_parallel_traffic(k22_22b, 4, tp(8, true, Recompute::full), 2);
  EXPECT_EQ(full.backward, (CollectiveCounts{.all_reduces = 0, .all_gathers = 6, .reduce_scatters = 4}));
}

TEST(MegatronTensorParallel, NoCollectivesWithoutATensorParallelGroupAndInvalidInputsRefused) {
  auto single = megatron::tensor_parallel_traffic(k22_22b, 4, tp(1, true, Recompute::full), 2);
  EXPECT_EQ(single.forward, CollectiveCounts{});
  EXPECT_EQ(single.backward, CollectiveCounts{});
  EXPECT_THROW(megatron::tensor_parallel_traffic(k22_22b, 4, tp(3, false, Recompute::none), 2), InputError);  // 64 % 3
  TransformerShape odd_sequence = k22_22b;
  odd_sequence.sequence = 2050;  // 2050 % 8 = 2
  EXPECT_THROW(megatron::tensor_parallel_traffic(odd_sequence, 4, tp(8, true, Recompute::none), 2), InputError);
  EXPECT_NO_THROW(megatron::tensor_parallel_traffic(odd_sequence, 4, tp(8, false, Recompute::none), 2));
  EXPECT_THROW(megatron::tensor_parallel_traffic(k22_22b, 0, tp(8, false, Recompute::none), 2), InputError);
  EXPECT_THROW(megatron::tensor_parallel_traffic(k22_22b, 4, tp(8, false, Recompute::none), 0), InputError);
  EXPECT_THROW(megatron::tensor_parallel_traffic(k22_22b, 4, tp(0, false, Recompute::none), 2), InputError);
}

// N21 §3.2: b s h per stage boundary (50,331,648 elements for 22B at b = 4); §4.1's scatter/gather:
// b s h / t = 6,291,456 per rank (12,582,912 B) and an all-gather on arrival; with sequence
// parallelism the output is already split along s: 6,291,456 per rank, nothing to gather.
TEST(MegatronPipelineTransfer, WholeSlicedOrSequenceSplit) {
  auto plain = megatron::pipeline_transfer(k22_22b, 4, tp(8, false, Recompute::none), false, 2);
  EXPECT_DOUBLE_EQ(plain.elements_per_rank, 50331648.0);
  EXPECT_DOUBLE_EQ(plain.bytes_per_rank, 100663296.0);
  EXPECT_FALSE(plain.all_gather_after);
  auto sliced = megatron::pipeline_transfer(k22_22b, 4, tp(8, false, Recompute::none), true, 2);
  EXPECT_DOUBLE_EQ(sliced.elements_per_rank, 6291456.0);
  EXPECT_DOUBLE_EQ(sliced.bytes_per_rank, 12582912.0);
  EXPECT_TRUE(sliced.all_gather_after);
  auto split = megatron::pipeline_transfer(k22_22b, 4, tp(8, true, Recompute::none), false, 2);
  EXPECT_DOUBLE_EQ(split.elements_per_rank, 6291456.0);
  EXPECT_FALSE(split.all_gather_after);
  auto single = megatron::pipeline_transfer(k22_22b, 4, tp(1, false, Recompute::none), true, 2);
  EXPECT_DOUBLE_EQ(single.elements_per_rank, 50331648.0);
  EXPECT_FALSE(single.all_gather_after);
}

// ZeRO §7 with its own Ψ = 7.5e9 over N_d = 64: plain DP all-reduces, 2Ψ = 15e9 elements; P_os and
// P_os+g reduce-scatter the gradients and all-gather the parameters, 2Ψ; P_os+g+p gathers the
// parameters twice, 3Ψ = 22.5e9 elements, 1.5x (§7.2.2).
TEST(MegatronDataParallel, ZeroTrafficIs2PsiThen3Psi) {
  const double psi = 7.5e9;
  auto dp = megatron::data_parallel_traffic(psi, 0, 64);
  EXPECT_EQ(dp.gradient_all_reduces, 1);
  EXPECT_EQ(dp.gradient_reduce_scatters + dp.parameter_all_gathers, 0);
  EXPECT_DOUBLE_EQ(dp.volume_elements(), 15e9);
  for (int stage : {1, 2}) {
    auto z = megatron::data_parallel_traffic(psi, stage, 64);
    EXPECT_EQ(z.gradient_all_reduces, 0);
    EXPECT_EQ(z.gradient_reduce_scatters, 1);
    EXPECT_EQ(z.parameter_all_gathers, 1);
    EXPECT_DOUBLE_EQ(z.volume_elements(), 15e9);
  }
  auto z3 = megatron::data_parallel_traffic(psi, 3, 64);
  EXPECT_EQ(z3.gradient_reduce_scatters, 1);
  EXPECT_EQ(z3.parameter_all_gathers, 2);
  EXPECT_DOUBLE_EQ(z3.volume_elements(), 22.5e9);
  EXPECT_DOUBLE_EQ(z3.volume_elements() / dp.volume_elements(), 1.5);
  // One replica: nothing crosses.
  EXPECT_DOUBLE_EQ(megatron::data_parallel_traffic(psi, 3, 1).volume_elements(), 0.0);
  EXPECT_THROW(megatron::data_parallel_traffic(psi, 4, 64), InputError);
  EXPECT_THROW(megatron::data_parallel_traffic(psi, -1, 64), InputError);
  EXPECT_THROW(megatron::data_parallel_traffic(psi, 1, 0), InputError);
  EXPECT_THROW(megatron::data_parallel_traffic(-1.0, 1, 8), InputError);
}
