// The megatron planner (sim/planners/megatron/planner.hpp) on a tiny GPT and a star of roofline devices whose
// links and memory make every communication and memory term computable by hand (docs/model.md "The
// megatron planner").
//
// Workload gpt:layers=2,width=64,heads=2,sequence=16,vocab=128 (P = S = 16, F = 4E = 256):
//   parameters per block 12 E^2 + 13 E = 12 x 4096 + 13 x 64 = 49,152 + 832 = 49,984;
//   head (token + position embeddings) (V + P) E = 144 x 64 = 9,216;
//   tail (final LayerNorm 2E, LM head V E) 128 + 8,192 = 8,320;
//   whole 2 x 49,984 + 9,216 + 8,320 = 117,504.
// Platform: star of n devices, 1 TFLOP/s, 16 GiB, 1 GB/s per device link, no latency, bf16 (2 B).

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "sim/common/error.hpp"
#include "sim/common/progress.hpp"
#include "sim/planners/megatron/planner.hpp"
#include "tests/lowering_sharding/two_fc.hpp"
#include "workloads/workload_file.hpp"

using namespace partsim;
using megatron::Configuration;
using megatron::Schedule;

namespace {

const char* kTiny = "gpt:layers=2,width=64,heads=2,sequence=16,vocab=128";

struct Tiny {
  topology::SystemSpec spec;
  topology::TopologyGraph topology;
  workloads::Graph graph;
  megatron::RecognisedModel model;
  Tiny(int devices, long long batch, const std::string& memory = "16GiB", const std::string& workload = kTiny)
      : spec(test::platform_from_yaml("system:\n  name: star\n  precision: bf16\n  device_types:\n"
                                      "    dev: {kind: roofline, peak: 1TFLOP/s, memory: " + memory +
                                      ", memory_bandwidth: 1000GB/s, network_bandwidth: 1GB/s}\n"
                                      "  devices:\n    - {type: dev, count: " + std::to_string(devices) +
                                      "}\n  star:\n    latency: 0s\n")),
        topology(spec), graph(workloads::load_workload(workload, batch)), model(megatron::recognise(graph)) {}
  megatron::Prediction predict(Configuration c) const {
    c = megatron::complete(c, spec.device_count(), graph.batch(), model.shape);
    return megatron::predict(spec, topology, graph, model, c);
  }
};

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no InputError)";
}

}  // namespace

TEST(MegatronPlanner, RecognisesTheGptPresetsBlocks) {
  const Tiny s(1, 4);
  EXPECT_EQ(s.model.shape.layers, 2);
  EXPECT_EQ(s.model.shape.hidden, 64);
  EXPECT_EQ(s.model.shape.heads, 2);
  EXPECT_EQ(s.model.shape.sequence, 16);
  EXPECT_EQ(s.model.shape.vocabulary, 128);
  ASSERT_EQ(s.model.blocks.size(), 2u);
  EXPECT_EQ(s.model.blocks[0].size(), 8u);  // ln1, attn, attn_res, ln2, mlp_up, mlp_gelu, mlp_down, mlp_res
  EXPECT_EQ(s.graph.layer(s.model.blocks[1][0]).name, "block1.ln1");
  EXPECT_DOUBLE_EQ(s.model.block_parameters, 49984);
  EXPECT_DOUBLE_EQ(s.model.head_parameters, 9216);
  EXPECT_DOUBLE_EQ(s.model.tail_parameters, 8320);
}

TEST(MegatronPlanner, RefusesAGraphWithoutAttention) {
  EXPECT_EQ(message_of([] { megatron::recognise(fixtures::two_fc()); }),
            "megatron: workload 'two_fc' is not a decoder transformer of L identical blocks: it has no attention layer");
}

TEST(MegatronPlanner, RefusesDegreesThatDoNotDivideAndPartMicroBatches) {
  const Tiny s(3, 4);
  EXPECT_EQ(message_of([&] { s.predict({.tp = 2}); }),
            "megatron: tp x pp = 2 x 1 = 2 does not divide the platform's 3 devices (dp = devices / (tp x pp) must be whole)");
  // dp = 3, microbatch 1: 3 does not divide the batch of 4.
  EXPECT_EQ(message_of([&] { s.predict({}); }),
            "megatron: --batch 4 is not a whole number of micro-batches: microbatch x dp = 1 x 3 = 3 must divide it");
}

TEST(MegatronPlanner, TensorParallelAllReducesOnTheTpGroup) {
  // tp = 2, microbatch 4 (m = 1): each all-reduce carries b s h x 2 B = 4 x 16 x 64 x 2 = 8,192 B.
  // A ring of 2 on the star: 2 (p - 1)/p S / B = 8,192 / 1e9 = 8.192 us. Per block 2 forward and 2
  // backward (Shoeybi 2019 §3); 2 blocks: 4 x 8.192 = 32.768 us each way.
  const Tiny s(2, 4);
  const auto p = s.predict({.tp = 2, .microbatch = 4});
  EXPECT_NEAR(p.tp_forward_s, 32.768e-6, 1e-12);
  EXPECT_NEAR(p.tp_backward_s, 32.768e-6, 1e-12);
  EXPECT_NEAR(p.block_tp_s, 2 * 2 * 8.192e-6, 1e-12);
  // Full recomputation repeats the forward's two all-reduces inside the backward: 6 per block.
  const auto full = s.predict({.tp = 2, .microbatch = 4, .recompute = megatron::Recompute::full});
  EXPECT_NEAR(full.tp_backward_s, 2 * 4 * 8.192e-6, 1e-12);
  // Its compute: the backward grows by exactly the recomputed forward of the 2 blocks, which is less
  // than the whole forward (the embeddings and the LM head are not recomputed).
  const auto none = s.predict({.tp = 2, .microbatch = 4});
  EXPECT_NEAR(full.backward_compute_s - none.backward_compute_s, full.recompute_s, 1e-15);
  EXPECT_GT(full.recompute_s, 0);
  EXPECT_LT(full.recompute_s, full.forward_compute_s);
  EXPECT_DOUBLE_EQ(none.recompute_s, 0);
}

TEST(MegatronPlanner, PipelineSendsAndTheOneFOneBBubble) {
  // pp = 2, microbatch 1: m = 4. A send carries b s h x 2 B = 16 x 64 x 2 = 2,048 B over two 1 GB/s
  // star links: 2.048 us. Iteration (m + p - 1)(t_f + t_b) = 5 (t_f + t_b); bubble 1 x (t_f + t_b).
  const Tiny s(2, 4);
  const auto p = s.predict({.pp = 2});
  EXPECT_NEAR(p.send_s, 2.048e-6, 1e-12);
  EXPECT_NEAR(p.pipeline_s, 5 * (p.forward_s + p.backward_s), 1e-12);
  EXPECT_NEAR(p.bubble_s, p.forward_s + p.backward_s, 1e-12);
  EXPECT_NEAR(p.iteration_s, p.pipeline_s, 1e-15);  // dp = 1: nothing to reduce
  // The slowest stage is the last (its LM head: 2 x 64 x 128 MACs per token against the head's
  // embedding lookups); its t_f = compute + send.
  EXPECT_EQ(p.slowest_stage, 1);
  EXPECT_NEAR(p.forward_s, p.forward_compute_s + 2.048e-6, 1e-12);
}

TEST(MegatronPlanner, DataParallelReductionExposedOrHidden) {
  // dp = 2, zero 0: one all-reduce of the 117,504 gradients at 4 B = 470,016 B; a ring of 2:
  // 470,016 / 1e9 = 470.016 us, all exposed.
  const Tiny s(2, 4);
  const auto p = s.predict({});
  EXPECT_NEAR(p.dp_s, 470.016e-6, 1e-12);
  EXPECT_NEAR(p.dp_exposed_s, 470.016e-6, 1e-12);
  EXPECT_NEAR(p.iteration_s, p.pipeline_s + 470.016e-6, 1e-12);
  // zero 1: reduce-scatter of 470,016 B (1/2 x S / B = 235.008 us) + all-gather of the 2-byte
  // parameters, 235,008 B (117.504 us): 352.512 us.
  const auto z1 = s.predict({.zero = 1});
  EXPECT_NEAR(z1.dp_s, 352.512e-6, 1e-12);
  // Overlapped: hidden behind one micro-batch's backward / forward where they are longer.
  const auto hidden = s.predict({.zero = 1, .overlap_grad_reduce = true, .overlap_param_gather = true});
  EXPECT_NEAR(hidden.dp_exposed_s,
              std::max(0.0, 235.008e-6 - hidden.backward_s) + std::max(0.0, 117.504e-6 - hidden.forward_s), 1e-12);
  EXPECT_LT(hidden.iteration_s, z1.iteration_s);
}

TEST(MegatronPlanner, MemoryOfModelStatesAndActivations) {
  // One device, 18 B per parameter (mixed Adam, fp32 main gradients): 117,504 x 18 = 2,115,072 B
  // (weights 2 x 117,504 = 235,008; gradients 4 x = 470,016; optimizer 12 x = 1,410,048).
  // Activations, b = 4, K22 eq. 1 per layer: sbh (34 + 5as/h) = 4,096 x (34 + 5 x 2 x 16/64) =
  // 4,096 x 36.5 = 149,504; 2 layers 299,008; embedding mask sbh = 4,096; output layer 2sbh + 2sbh
  // + 4sbV = 8,192 + 8,192 + 32,768 = 49,152: 352,256 B.
  const Tiny s(1, 4);
  const auto p = s.predict({.microbatch = 4});
  EXPECT_DOUBLE_EQ(p.memory.weights_bytes, 235008);
  EXPECT_DOUBLE_EQ(p.memory.gradients_bytes, 470016);
  EXPECT_DOUBLE_EQ(p.memory.optimizer_bytes, 1410048);
  EXPECT_DOUBLE_EQ(p.memory.activations_bytes, 352256);
  EXPECT_DOUBLE_EQ(p.memory.per_device_bytes, 2115072 + 352256);
  // dp = 2, zero 1: optimizer states over 2 replicas: 2 + 4 + 12/2 = 12 B: 1,410,048 B; b = 2
  // halves the activations: 176,128.
  const Tiny two(2, 4);
  const auto z = two.predict({.microbatch = 2, .zero = 1});
  EXPECT_DOUBLE_EQ(z.memory.weights_bytes + z.memory.gradients_bytes + z.memory.optimizer_bytes, 1410048);
  EXPECT_DOUBLE_EQ(z.memory.activations_bytes, 176128);
}

// Issue 39's acceptance: ZeRO stages 2 and 3 and the recomputation modes through the megatron family.
// dp = 2, micro-batch 2 (s b h = 16 x 2 x 64 = 2,048), t = 1, p = 1 (one micro-batch in flight):
//   model states (ZeRO §5.2-5.3 over 18 B): stage 2: 2 + (4 + 12)/2 = 10 B x 117,504 = 1,175,040 B;
//     stage 3: 18/2 = 9 B x 117,504 = 1,057,536 B.
//   activations (K22 Table 2 per layer, x 2 layers, + the first stage's extras of §4.3: embedding
//     mask sbh = 2,048, and with p = 1 the final LayerNorm 2sbh, the output projection's input
//     2sbh and the fp32 logits 4sbV = 4 x 16 x 2 x 128 = 16,384: 2,048 + 4,096 + 4,096 + 16,384 =
//     26,624):
//     full:      2sbh = 4,096 per layer:             8,192 + 26,624 =  34,816 B;
//     selective: sbh (10 + 24/t) = 2,048 x 34 = 69,632: 139,264 + 26,624 = 165,888 B;
//     none:      sbh (34 + 5as/h) = 2,048 x 36.5 = 74,752: 149,504 + 26,624 = 176,128 B (as above).
TEST(MegatronPlanner, ZeroStagesAndRecomputationInTheMemory) {
  const Tiny two(2, 4);
  const auto model_states = [](const megatron::Prediction& p) {
    return p.memory.weights_bytes + p.memory.gradients_bytes + p.memory.optimizer_bytes;
  };
  EXPECT_DOUBLE_EQ(model_states(two.predict({.microbatch = 2, .zero = 2})), 1175040);
  EXPECT_DOUBLE_EQ(model_states(two.predict({.microbatch = 2, .zero = 3})), 1057536);
  using megatron::Recompute;
  EXPECT_DOUBLE_EQ(two.predict({.microbatch = 2, .recompute = Recompute::full}).memory.activations_bytes, 34816);
  EXPECT_DOUBLE_EQ(two.predict({.microbatch = 2, .recompute = Recompute::selective}).memory.activations_bytes, 165888);
  EXPECT_DOUBLE_EQ(two.predict({.microbatch = 2, .recompute = Recompute::none}).memory.activations_bytes, 176128);
}

TEST(MegatronPlanner, SearchPicksAFittingConfigurationAndNeverAnOverMemoryOne) {
  // 4 devices of 1.5 MiB = 1,572,864 B: dp = 4 without ZeRO needs 2,115,072 B of model states alone,
  // so only sharded configurations fit.
  const Tiny s(4, 8, "1.5MiB");
  const auto r = megatron::search(s.spec, s.topology, s.graph, s.model, {});
  EXPECT_GT(r.candidates, 0);
  EXPECT_GT(r.over_memory, 0);
  EXPECT_TRUE(r.prediction.memory.fits());
  EXPECT_LE(r.prediction.memory.per_device_bytes, 1572864);
  const Tiny tiny(4, 8, "1KiB");
  EXPECT_NE(message_of([&] { megatron::search(tiny.spec, tiny.topology, tiny.graph, tiny.model, {}); })
                .find("megatron: no configuration fits"),
            std::string::npos);
}

TEST(MegatronPlanner, SearchReportsItsProgressOncePerConfiguration) {
  // The progress seam (sim/common/progress.hpp): done counts 1, 2, ... up to total, one call per
  // configuration predicted, total fixed; best_s once a fitting one is seen, never rising after.
  const Tiny s(4, 8, "1.5MiB");
  std::vector<SearchProgress> calls;
  const auto r = megatron::search(s.spec, s.topology, s.graph, s.model, {},
                                  [&](const SearchProgress& p) { calls.push_back(p); });
  ASSERT_EQ(calls.size(), static_cast<std::size_t>(r.candidates));
  for (std::size_t k = 0; k < calls.size(); ++k) {
    EXPECT_EQ(calls[k].done, k + 1);
    EXPECT_EQ(calls[k].total, calls.size());
    EXPECT_EQ(calls[k].unit, "configurations");
    if (k > 0 && calls[k - 1].best_s) {
      ASSERT_TRUE(calls[k].best_s);
      EXPECT_LE(*calls[k].best_s, *calls[k - 1].best_s);
    }
  }
  ASSERT_TRUE(calls.back().best_s);
  EXPECT_DOUBLE_EQ(*calls.back().best_s, r.prediction.iteration_s);
  // Without a callback the search is the same.
  const auto quiet = megatron::search(s.spec, s.topology, s.graph, s.model, {});
  EXPECT_EQ(quiet.candidates, r.candidates);
  EXPECT_DOUBLE_EQ(quiet.prediction.iteration_s, r.prediction.iteration_s);
}

TEST(MegatronPlanner, ComputeOfTheOutputProjectionFromTheDeviceModel) {
  // lm_head (fc 64 -> 128, no bias) for one micro-batch of b = 4 (m = 1), AccPar Table 6's 2P - 1
  // FLOP per output: FWD 4 x 16 x 128 = 8,192 outputs x (2 x 64 - 1) = 1,040,384; BWD 4 x 16 x 64 =
  // 4,096 outputs x (2 x 128 - 1) = 1,044,480; UPD 128 x 64 = 8,192 outputs x (2 x 64 - 1) =
  // 1,040,384; together 3,125,248 FLOP at 1 TFLOP/s = 3.125248 us (compute-bound: the FWD's bytes,
  // (4,096 + 8,192 + 8,192) x 2 B = 40,960 B, take 41 ns at 1000 GB/s).
  const Tiny one(1, 4);
  const auto p = one.predict({.microbatch = 4});
  EXPECT_NEAR(p.tail_layer_compute_s.back(), 3.125248e-6, 1e-15);
  // tp = 2: vocabulary-parallel, each rank half of the layer's work: 1.562624 us.
  const Tiny two(2, 4);
  const auto q = two.predict({.tp = 2, .microbatch = 4});
  EXPECT_NEAR(q.tail_layer_compute_s.back(), 1.562624e-6, 1e-15);
}

TEST(MegatronPlanner, InterleavedSendsEachChunkAndShrinksTheBubble) {
  // gpt with 4 layers, pp = 2, v = 2 (one layer per chunk), microbatch 1: m = 4 (a multiple of p).
  // A micro-batch crosses v = 2 boundaries per device and direction: 2 x 2.048 us = 4.096 us.
  // Iteration (m + (p - 1)/v)(t_f + t_b) = 4.5 (t_f + t_b) (N21 §2.2.2); bubble 0.5 (t_f + t_b).
  const Tiny s(2, 4, "16GiB", "gpt:layers=4,width=64,heads=2,sequence=16,vocab=128");
  const auto p = s.predict({.pp = 2, .schedule = Schedule::interleaved, .virtual_stages = 2});
  EXPECT_NEAR(p.send_s, 4.096e-6, 1e-12);
  EXPECT_NEAR(p.pipeline_s, 4.5 * (p.forward_s + p.backward_s), 1e-12);
  EXPECT_NEAR(p.bubble_s, 0.5 * (p.forward_s + p.backward_s), 1e-12);
  EXPECT_EQ(message_of([&] { s.predict({.pp = 2, .virtual_stages = 2}); }),
            "megatron: option virtual_stages=2 needs schedule=interleaved (got 1f1b)");
  // pp x v = 2 x 4 = 8 does not divide 4 layers.
  EXPECT_EQ(message_of([&] { s.predict({.pp = 2, .schedule = Schedule::interleaved, .virtual_stages = 4}); }),
            "megatron: pp x virtual_stages = 2 x 4 must divide the 4 layers (uniform stages)");
}

// Rank order, fastest axis first (mixed radix): tp = 2, dp = 2, pp = 2 on 8 devices.
//   tp-dp-pp (Megatron-LM's default): device = t + 2 (d + 2 p): (1, 1, 1) -> 1 + 2 x 3 = 7,
//     (0, 1, 0) -> 2, (0, 0, 1) -> 4;
//   tp-pp-dp (--use-tp-pp-dp-mapping): device = t + 2 (p + 2 d): (0, 1, 0) -> 4, (0, 0, 1) -> 2;
//   dp-tp-pp: device = d + 2 (t + 2 p): (1, 0, 0) -> 2, (0, 1, 0) -> 1, (1, 1, 1) -> 1 + 2 x 3 = 7.
TEST(MegatronPlanner, RankOrdersPlaceRanksByMixedRadix) {
  Configuration c;
  c.tp = c.dp = c.pp = 2;
  EXPECT_EQ(megatron::rank_order_name(c.rank_order), "tp-dp-pp");
  EXPECT_EQ(megatron::device_of(c, 1, 1, 1), 7);
  EXPECT_EQ(megatron::device_of(c, 0, 1, 0), 2);
  EXPECT_EQ(megatron::device_of(c, 0, 0, 1), 4);
  c.rank_order = megatron::parse_rank_order("tp-pp-dp");
  EXPECT_EQ(megatron::device_of(c, 0, 1, 0), 4);
  EXPECT_EQ(megatron::device_of(c, 0, 0, 1), 2);
  c.rank_order = megatron::parse_rank_order("dp-tp-pp");
  EXPECT_EQ(megatron::device_of(c, 1, 0, 0), 2);
  EXPECT_EQ(megatron::device_of(c, 0, 1, 0), 1);
  EXPECT_EQ(megatron::device_of(c, 1, 1, 1), 7);
  for (const std::string& name : megatron::rank_order_names())
    EXPECT_EQ(megatron::rank_order_name(megatron::parse_rank_order(name)), name);
  try {
    megatron::parse_rank_order("tp-tp-pp");
    FAIL() << "a repeated axis was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("valid values are: tp-dp-pp, tp-pp-dp"), std::string::npos) << e.what();
  }
}

// The optimizer step (optimizer_step.hpp) on the roofline star (1 TFLOP/s, 1000 GB/s): Adam over
// the 117,504 parameters, 12 FLOP and 28 B each: max(1,410,048 FLOP / 1e12, 3,290,112 B / 1e12 B/s)
// = 3.290112 us, memory-bound, after the reduction. dp = 2 with ZeRO 1: each device updates half,
// 58,752 parameters: 1.645056 us; ZeRO 0 updates them all on every replica.
TEST(MegatronPlanner, OptimizerStepAfterTheReduction) {
  const Tiny one(1, 4);
  const auto without = one.predict({});
  const auto with = one.predict({.optimizer_step = true});
  EXPECT_NEAR(with.optimizer_s, 3.290112e-6, 1e-15);
  EXPECT_NEAR(with.iteration_s - without.iteration_s, 3.290112e-6, 1e-15);
  const Tiny two(2, 4);
  EXPECT_NEAR(two.predict({.zero = 1, .optimizer_step = true}).optimizer_s, 1.645056e-6, 1e-15);
  EXPECT_NEAR(two.predict({.zero = 0, .optimizer_step = true}).optimizer_s, 3.290112e-6, 1e-15);
}
