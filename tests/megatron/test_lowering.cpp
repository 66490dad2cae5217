// The lowering of megatron plans (sim/planners/megatron/lowering.hpp) on a tiny GPT and a star of roofline
// devices with zero latency and links so fast (1 PB/s) that a pipeline send of b s h x 2 B = 2,048 B
// takes 2 ps: the closed form of the lowered Program is then the schedule's compute alone, which
// is worked out by hand from the stages' compute times (within 1e-10 s for the sends).
//
// Workload gpt:layers=4,width=64,heads=2,sequence=16,vocab=128 (block: ln1, attn, attn_res, ln2,
// mlp_up, mlp_gelu, mlp_down, mlp_res; head: the input, tok_embed, pos_embed, embed; tail: ln_f,
// lm_head). Devices: 1 TFLOP/s, 1000 GB/s memory, bf16.
#include <nlohmann/json.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "sim/devices/shard_compute.hpp"
#include "sim/geometry/layer_geometry.hpp"
#include "sim/planners/megatron/lowering.hpp"
#include "sim/planners/megatron/tp_sharding.hpp"
#include "sim/planners/megatron/transformer_costs.hpp"
#include "sim/memory/memory_timeline.hpp"
#include "sim/program/closed_form.hpp"
#include "sim/program/platform_binding.hpp"
#include "tests/lowering_sharding/two_fc.hpp"
#include "workloads/workload_file.hpp"

using namespace partsim;
using megatron::Configuration;
using megatron::Schedule;

namespace {

const char* kTinyGpt = "gpt:layers=4,width=64,heads=2,sequence=16,vocab=128";

struct Fixture {
  topology::SystemSpec spec;
  topology::TopologyGraph topology;
  workloads::Graph graph;
  megatron::RecognisedModel model;
  Fixture(int devices, long long batch, const std::string& network = "1000000GB/s")
      : spec(test::platform_from_yaml("system:\n  name: star\n  precision: bf16\n  device_types:\n"
                                      "    dev: {kind: roofline, peak: 1TFLOP/s, memory: 16GiB, memory_bandwidth: 1000GB/s,"
                                      " network_bandwidth: " + network + "}\n"
                                      "  devices:\n    - {type: dev, count: " + std::to_string(devices) +
                                      "}\n  star:\n    latency: 0s\n")),
        topology(spec), graph(workloads::load_workload(kTinyGpt, batch)), model(megatron::recognise(graph)) {}

  /// A megatron plan of `c` as registration.cpp writes its family fields (what the lowering reads).
  plan::Plan plan_of(Configuration c) const {
    c = megatron::complete(c, spec.device_count(), graph.batch(), model.shape);
    plan::Plan p;
    for (std::size_t i = 0; i < graph.size(); ++i) {
      plan::LayerPlan lp;
      lp.name = graph.layer(i).name;
      p.layers.push_back(std::move(lp));
    }
    *p.family = {{"tp", c.tp}, {"pp", c.pp}, {"dp", c.dp}, {"microbatch", c.microbatch}, {"micro_batches", c.micro_batches},
                {"schedule", megatron::schedule_name(c.schedule)}, {"virtual_stages", c.virtual_stages},
                {"sequence_parallel", c.sequence_parallel}, {"recompute", megatron::recompute_name(c.recompute)},
                {"zero", c.zero}, {"overlap_grad_reduce", c.overlap_grad_reduce},
                {"overlap_param_gather", c.overlap_param_gather},
                {"rank_order", megatron::rank_order_name(c.rank_order)},
                {"fold_replicas", c.fold_replicas}, {"optimizer", c.optimizer_step ? "adam" : "none"}};
    return p;
  }
  program::Program lower(const Configuration& c) const {
    const plan::Plan p = plan_of(c);
    return megatron::lower_megatron({p, spec, graph, topology});
  }
  double closed_form(const program::Program& program) const {
    return program::ClosedFormEvaluator(program::uncontended_transfer_time(topology)).evaluate(program).makespan_s;
  }
  /// The device model's time of layer i for `samples` samples (tp = 1: the whole layer), per pass.
  double time(std::size_t i, plan::Pass pass, int samples = 1) const {
    const workloads::Layer& l = graph.layer(i);
    if (l.kind == workloads::LayerKind::input) return 0;
    const plan::LoopExtent e = geometry::loop_extent(l, graph.batch());
    const plan::LoopBox box{{0, samples}, {0, e.out_channels}, {0, e.in_channels}, {0, e.height}, {0, e.width}};
    return devices::shard_time(spec.device_type(0), geometry::shard_work(l, box, e, graph.batch(), pass, 2), pass).compute_s;
  }
  /// Forward and backward (bwd + upd) of a list of layers for `samples` samples.
  std::pair<double, double> times(const std::vector<std::size_t>& layers, int samples = 1) const {
    double f = 0, b = 0;
    for (std::size_t i : layers) {
      f += time(i, plan::Pass::fwd, samples);
      b += time(i, plan::Pass::bwd, samples) + time(i, plan::Pass::upd, samples);
    }
    return {f, b};
  }
  std::vector<std::size_t> blocks(int from, int to) const {
    std::vector<std::size_t> v;
    for (int b = from; b < to; ++b) v.insert(v.end(), model.blocks[b].begin(), model.blocks[b].end());
    return v;
  }
};

// Collectives named `label` in the Program (pass `pass`): transfers of their first step, divided by
// the senders in that step (every rank sends once in step 1 of a ring of `ranks`).
int collective_count(const program::Program& p, const std::string& label, plan::Pass pass, int ranks) {
  int n = 0;
  for (const program::Task& t : p.tasks())
    if (t.kind == program::TaskKind::transfer && t.pass == pass && t.label == label + " step 1") ++n;
  return n / ranks;
}

}  // namespace

TEST(MegatronLowering, AnchorsTheDeviceModelOnTheOutputProjectionByHand) {
  // lm_head (fc 64 -> 128, no bias) for the batch of 4, AccPar Table 6's 2P - 1 FLOP per output
  // (tests/megatron/test_planner.cpp): FWD 4 x 16 x 128 = 8,192 outputs x 127 = 1,040,384; BWD
  // 4,096 outputs x 255 = 1,044,480; UPD 8,192 weights x (2 x 64 - 1) = 1,040,384. A micro-batch of
  // one sample is a quarter of the batch's box (layer_geometry.hpp work_fraction), so at 1 TFLOP/s:
  // FWD 260,096 FLOP = 0.260096 us, BWD 261,120 = 0.261120 us, UPD 260,096 = 0.260096 us (all
  // compute-bound: the FWD's bytes, (1,024 + 8,192 + 2,048) x 2 B = 22,528 B, take 22.5 ns).
  const Fixture s(2, 4);
  const std::size_t head = s.model.tail.back();
  EXPECT_NEAR(s.time(head, plan::Pass::fwd), 0.260096e-6, 1e-15);
  EXPECT_NEAR(s.time(head, plan::Pass::bwd), 0.261120e-6, 1e-15);
  EXPECT_NEAR(s.time(head, plan::Pass::upd), 0.260096e-6, 1e-15);
}

// Stage times for one sample (microbatch 1), from the device model (the lm_head anchor above is
// the same model): a block F = 1.677824 us forward, B = 3.34592 us backward (bwd + upd); the head
// (embeddings) h_f = 0.028736 us, h_b = 0.057472 us; the tail (ln_f, lm_head) t_f = 0.265216 us,
// t_b = 0.53376 us.
//
// pp = 2, m = 4 (batch 4, microbatch 1), two blocks per stage: stage 0 f0 = 2F + h_f, b0 = 2B + h_b;
// stage 1 f1 = 2F + t_f, b1 = 2B + t_b; f1 >= f0, b1 >= b0. Then, for 1F1B and for GPipe alike, stage 1
// is never starved after its first forward arrives (stage 0 feeds it faster than it works) and
// stage 0's last backward follows stage 1's: makespan = f0 + m (f1 + b1) + b0. With equal stages
// (f0 = f1 = t_f, b0 = b1 = t_b) that is (m + 1)(t_f + t_b) = (m + p - 1)(t_f + t_b), N21 §2.2.1.
//   f0 = 3.355648 + 0.028736 = 3.384384 us, b0 = 6.69184 + 0.057472 = 6.749312 us,
//   f1 = 3.355648 + 0.265216 = 3.620864 us, b1 = 6.69184 + 0.53376 = 7.2256 us,
//   3.384384 + 4 (3.620864 + 7.2256) + 6.749312 = 3.384384 + 43.385856 + 6.749312 = 53.519552 us.
// The Program adds two pipeline sends of 2,048 B at 1 PB/s (2.048 ps each) on the critical path.
TEST(MegatronLowering, OneFOneBAndGpipeBubbleComesFromTheDependencies) {
  const Fixture s(2, 4);
  const auto [F, B] = s.times(s.model.blocks[0]);
  const auto [hf, hb] = s.times(s.model.head);
  const auto [tf, tb] = s.times(s.model.tail);
  EXPECT_NEAR(F, 1.677824e-6, 1e-15);
  EXPECT_NEAR(B, 3.34592e-6, 1e-15);
  EXPECT_NEAR(hf, 0.028736e-6, 1e-15);
  EXPECT_NEAR(hb, 0.057472e-6, 1e-15);
  EXPECT_NEAR(tf, 0.265216e-6, 1e-15);
  EXPECT_NEAR(tb, 0.53376e-6, 1e-15);
  for (Schedule sc : {Schedule::gpipe, Schedule::one_f_one_b}) {
    const program::Program p = s.lower({.pp = 2, .microbatch = 1, .schedule = sc});
    EXPECT_NEAR(s.closed_form(p), 53.519552e-6 + 2 * 2.048e-12, 1e-15) << megatron::schedule_name(sc);
  }
  // One stage for comparison: no bubble, m (t_f + t_b) of the whole model = 4 (f0 + f1 + b0 + b1)
  // = 4 x 21.0 (3.384384 + 3.620864 + 6.749312 + 7.2256 = 20.98016) = 83.92064 us on one device.
  const Fixture one(1, 4);
  EXPECT_NEAR(one.closed_form(one.lower({.microbatch = 1})), 83.92064e-6, 1e-15);
}

// Interleaved, p = 2, v = 2, m = 4: one block per chunk; global chunks 0 (stage 0: head + block 0),
// 1 (stage 1: block 1), 2 (stage 0: block 2), 3 (stage 1: block 3 + tail). Following the two stages'
// orders (pipeline_order.hpp, tests above) the critical path is stage 0's F0.0 F1.0 F0.1, then stage
// 1's F0.1 B0.1 F1.1 B1.1 (chunk 3 of micro-batches 0, 1), F2.0 B0.0 F3.0 B1.0 (chunk 1), F2.1 B2.1
// F3.1 B3.1 (chunk 3), B2.0 (chunk 1), then stage 0's B2.0 B3.0 (chunk 0):
//   2 (F + h_f) + F + 4 (F + t_f) + 4 (B + t_b) + 2 F + 3 B + 2 (B + h_b)
//   = 9 F + 9 B + 2 (h_f + h_b) + 4 (t_f + t_b)
//   = 9 x 5.023744 + 2 x 0.086208 + 4 x 0.798976 = 45.213696 + 0.172416 + 3.195904 = 48.582016 us.
// With equal chunks (no head or tail) it is 9 (F + B) = 4.5 (t_f + t_b) for the stage's t_f = 2F,
// t_b = 2B: (m + (p - 1)/v)(t_f + t_b), N21 §2.2.2. Plus two 2.048 ps sends.
TEST(MegatronLowering, InterleavedBubbleComesFromTheDependencies) {
  const Fixture s(2, 4);
  const program::Program p = s.lower({.pp = 2, .microbatch = 1, .schedule = Schedule::interleaved, .virtual_stages = 2});
  EXPECT_NEAR(s.closed_form(p), 48.582016e-6 + 2 * 2.048e-12, 1e-15);
}

// tp = 2, microbatch 4 (m = 1), 4 blocks: every TP collective carries b s h x 2 B = 4 x 16 x 64 x 2 =
// 8,192 B; a ring of 2 sends half of it in its first step (4,096 B from each rank).
//   without SP: forward 2 all-reduces per block = 8, backward 2 = 8 (Shoeybi 2019 §3);
//   with SP: forward 2 all-gathers + 2 reduce-scatters per block = 8 + 8, backward 4 all-gathers +
//   2 reduce-scatters = 16 + 8 (K22 §4.2.2);
//   full recomputation: the backward pass also runs the forward's 2 all-reduces again: 16.
TEST(MegatronLowering, TensorParallelCollectivesPerBlock) {
  const Fixture s(2, 4);
  const program::Program plain = s.lower({.tp = 2, .microbatch = 4});
  EXPECT_EQ(collective_count(plain, "tp all_reduce", plan::Pass::fwd, 2), 8);
  EXPECT_EQ(collective_count(plain, "tp all_reduce", plan::Pass::bwd, 2), 8);
  EXPECT_EQ(collective_count(plain, "tp all_gather", plan::Pass::fwd, 2), 0);
  for (const program::Task& t : plain.tasks())
    if (t.kind == program::TaskKind::transfer && t.label == "tp all_reduce step 1") {
      EXPECT_DOUBLE_EQ(t.bytes, 4096);
    }
  const program::Program sp = s.lower({.tp = 2, .microbatch = 4, .sequence_parallel = true});
  EXPECT_EQ(collective_count(sp, "tp all_reduce", plan::Pass::fwd, 2) + collective_count(sp, "tp all_reduce", plan::Pass::bwd, 2), 0);
  EXPECT_EQ(collective_count(sp, "tp all_gather", plan::Pass::fwd, 2), 8);
  EXPECT_EQ(collective_count(sp, "tp reduce_scatter", plan::Pass::fwd, 2), 8);
  EXPECT_EQ(collective_count(sp, "tp all_gather", plan::Pass::bwd, 2), 16);
  EXPECT_EQ(collective_count(sp, "tp reduce_scatter", plan::Pass::bwd, 2), 8);
  const program::Program full = s.lower({.tp = 2, .microbatch = 4, .recompute = megatron::Recompute::full});
  EXPECT_EQ(collective_count(full, "tp all_reduce", plan::Pass::bwd, 2), 16);
}

TEST(MegatronLowering, BlockCollectivesMatchTheCountsOfTransformerCosts) {
  using K = workloads::LayerKind;
  const std::vector<K> block{K::layer_norm, K::attention, K::add, K::layer_norm, K::fc, K::activation, K::fc, K::add};
  const auto fwd = megatron::block_collectives(block, false, megatron::Direction::forward);
  EXPECT_EQ(fwd[2].before, std::vector<std::string>{"all_reduce"});  // f-bar before the residual add
  EXPECT_EQ(fwd[7].before, std::vector<std::string>{"all_reduce"});
  EXPECT_TRUE(fwd[1].before.empty() && fwd[4].before.empty());
  const auto bwd_sp = megatron::block_collectives(block, true, megatron::Direction::backward);
  EXPECT_EQ(bwd_sp[4].before, std::vector<std::string>{"all_gather"});     // the stored Y^s again
  EXPECT_EQ(bwd_sp[4].after, std::vector<std::string>{"reduce_scatter"});  // g's conjugate
  EXPECT_EQ(bwd_sp[7].after, std::vector<std::string>{"all_gather"});      // g-bar's conjugate
  // Totals per block against transformer_costs.hpp (t = 2, no recomputation): without SP forward
  // 2 all-reduces, backward 2; with SP forward 2 all-gathers + 2 reduce-scatters, backward 4 + 2.
  const megatron::TransformerShape shape{.layers = 4, .hidden = 64, .heads = 2, .sequence = 16, .vocabulary = 128};
  for (bool sp : {false, true})
    for (megatron::Direction d : {megatron::Direction::forward, megatron::Direction::backward}) {
      megatron::CollectiveCounts n;
      for (const auto& layer : megatron::block_collectives(block, sp, d))
        for (const auto* list : {&layer.before, &layer.after})
          for (const std::string& kind : *list) {
            n.all_reduces += kind == "all_reduce";
            n.all_gathers += kind == "all_gather";
            n.reduce_scatters += kind == "reduce_scatter";
          }
      const auto costs = megatron::tensor_parallel_traffic(shape, 1, {2, sp, megatron::Recompute::none}, 2);
      EXPECT_EQ(n, d == megatron::Direction::forward ? costs.forward : costs.backward) << sp;
    }
}

// dp = 2 (tp = pp = 1, microbatch 2, m = 1): the 4 blocks' 4 x 49,984 = 199,936 parameters, the head's
// 9,216 and the tail's 8,320: 217,472, their fp32 gradients 869,888 B, all-reduced once by a ring of
// 2, whose first step sends half: 434,944 B. ZeRO 1: a reduce-scatter of the same 869,888 B (first
// step 434,944 B) and an all-gather of the bf16 parameters, 434,944 B (first step 217,472 B).
// pp = 2, dp = 2: one all-reduce per stage, over that stage's parameters: stage 0 2 x 49,984 + 9,216 =
// 109,184 (436,736 B, half 218,368 B), stage 1 99,968 + 8,320 = 108,288 (433,152 B, half 216,576 B).
TEST(MegatronLowering, DataParallelReductionPerStage) {
  const Fixture two(2, 4);
  const program::Program p = two.lower({.microbatch = 2});
  EXPECT_EQ(collective_count(p, "dp gradient all_reduce", plan::Pass::upd, 2), 1);
  for (const program::Task& t : p.tasks())
    if (t.label == "dp gradient all_reduce step 1") {
      EXPECT_DOUBLE_EQ(t.bytes, 434944);
    }
  const program::Program z1 = two.lower({.microbatch = 2, .zero = 1});
  EXPECT_EQ(collective_count(z1, "dp gradient all_reduce", plan::Pass::upd, 2), 0);
  EXPECT_EQ(collective_count(z1, "dp gradient reduce_scatter", plan::Pass::upd, 2), 1);
  EXPECT_EQ(collective_count(z1, "dp parameter all_gather", plan::Pass::upd, 2), 1);
  for (const program::Task& t : z1.tasks()) {
    if (t.label == "dp gradient reduce_scatter step 1") {
      EXPECT_DOUBLE_EQ(t.bytes, 434944);
    }
    if (t.label == "dp parameter all_gather step 1") {
      EXPECT_DOUBLE_EQ(t.bytes, 217472);
    }
  }
  const Fixture four(4, 4);
  const program::Program staged = four.lower({.pp = 2, .microbatch = 1});
  EXPECT_EQ(collective_count(staged, "dp gradient all_reduce", plan::Pass::upd, 2), 2);
  std::vector<double> sizes;
  for (const program::Task& t : staged.tasks())
    if (t.label == "dp gradient all_reduce step 1") sizes.push_back(t.bytes);
  std::sort(sizes.begin(), sizes.end());
  EXPECT_EQ(sizes, (std::vector<double>{216576, 216576, 218368, 218368}));
}

// overlap_grad_reduce: Megatron-LM reduces a bucket of gradients as soon as the last micro-batch's
// backward has completed them; here one bucket per block, one for the head and one for the tail,
// reduced one after another on the DP group (one communicator). pp = 1, v = 2 chunks on the stage,
// dp = 2, microbatch 2 (m = 1), 1 GB/s links: the stage runs F0.0 F0.1 B0.1 B0.0 (m = p: all
// warm-up), so the backward completes the tail, block 3, 2, 1, 0, the head, in that order.
// The stage's 4 x 49,984 + 9,216 + 8,320 = 217,472 parameters have 869,888 B of fp32 gradients; a
// ring of 2 all-reduces S bytes in 2 steps of S/2 at 1 GB/s: S / 1e9 s, so every bucket together
// takes 869.888 us whether reduced at once or one after another (no latency).
//   without overlap: one all-reduce after the last compute C: C + 869.888 us;
//   with it: the tail's (33,280 B: 33.28 us) starts when the tail's backward is done, at
//     C - (4 B2 + h_b2) (the blocks' and the head's backward for 2 samples still to run), and every
//     later bucket is ready before the previous one is reduced (a block's backward, 6.7 us, is
//     shorter than a block's all-reduce, 199.936 us), so the chain ends 4 B2 + h_b2 earlier.
//   B2 = 6.691328 us, h_b2 = 0.07808 us (the device model for 2 samples, checked below; not twice
//   one sample's, the memory-bound layers read their weights once):
//   4 x 6.691328 + 0.07808 = 26.765312 + 0.07808 = 26.843392 us hidden.
TEST(MegatronLowering, OverlappedGradientReductionStartsPerBucket) {
  const Fixture s(2, 4, "1GB/s");
  EXPECT_NEAR(s.times(s.model.blocks[0], 2).second, 6.691328e-6, 1e-15);
  EXPECT_NEAR(s.times(s.model.head, 2).second, 0.07808e-6, 1e-15);
  const Configuration base{.microbatch = 2, .schedule = Schedule::interleaved, .virtual_stages = 2};
  Configuration overlapped = base;
  overlapped.overlap_grad_reduce = true;
  const program::Program serial = s.lower(base), hidden = s.lower(overlapped);
  EXPECT_EQ(collective_count(serial, "dp gradient all_reduce", plan::Pass::upd, 2), 1);
  EXPECT_EQ(collective_count(hidden, "dp gradient all_reduce", plan::Pass::upd, 2), 6);
  EXPECT_NEAR(s.closed_form(serial) - s.closed_form(hidden), 26.843392e-6, 1e-12);
}

// Every schedule lowers without the emission deadlocking (the lowering throws if it would), for
// p = 1, 2, 4 and m = 1 .. 8 on the 4-layer model, with as many compute tasks as steps x layers.
TEST(MegatronLowering, EveryScheduleLowersForSmallPipelines) {
  for (int p : {1, 2, 4})
    for (int m : {1, 2, 4, 8})
      for (Schedule sc : {Schedule::gpipe, Schedule::one_f_one_b, Schedule::interleaved}) {
        const int v = sc == Schedule::interleaved ? 2 : 1;
        if (sc == Schedule::interleaved && (m % p != 0 || 4 % (p * v) != 0)) continue;
        const Fixture s(p, m);
        const program::Program prog = s.lower({.pp = p, .microbatch = 1, .schedule = sc, .virtual_stages = v});
        int forwards = 0;
        for (const program::Task& t : prog.tasks()) forwards += t.kind == program::TaskKind::compute && t.label == "forward";
        // Every layer but the input runs once per micro-batch: 4 blocks x 8 + 3 (embeddings) + 2 (tail).
        EXPECT_EQ(forwards, m * (4 * 8 + 3 + 2)) << "p " << p << " m " << m << " " << megatron::schedule_name(sc);
      }
}

// overlap_param_gather with ZeRO 1: the updated parameters' all-gather, bucket by bucket (head,
// blocks 0-3, tail) at the start, each bucket's first forward waiting for it. pp = 1, dp = 2,
// microbatch 2 (m = 1), 1 GB/s. The bf16 parameters, 217,472 x 2 = 434,944 B, a ring of 2 gathers
// in one step of S/2: 217.472 us in all, head 9.216 us, a block 49.984 us, tail 8.32 us.
//   without: C + reduce-scatter (869,888 B fp32: one step of 434,944 B, 434.944 us) + 217.472 us;
//   with: the gathers end at 217.472 us and every block's forward (3.4 us for 2 samples) hides
//     behind the next bucket's gather (49.984 us), so the tail's forward starts at 217.472 us;
//     then the tail's forward, the whole backward and the reduce-scatter as before.
// So the forward of the head and the 4 blocks (2 samples) is hidden: h_f2 + 4 F2, with F2 = 3.355648 us
// and h_f2 = 0.03904 us from the device model: 13.422592 + 0.03904 = 13.461632 us.
TEST(MegatronLowering, OverlappedParameterGatherHidesTheForward) {
  const Fixture s(2, 4, "1GB/s");
  const Configuration base{.microbatch = 2, .zero = 1};
  Configuration overlapped = base;
  overlapped.overlap_param_gather = true;
  EXPECT_NEAR(s.times(s.model.blocks[0], 2).first, 3.355648e-6, 1e-15);
  EXPECT_NEAR(s.times(s.model.head, 2).first, 0.03904e-6, 1e-15);
  const program::Program serial = s.lower(base), hidden = s.lower(overlapped);
  EXPECT_EQ(collective_count(serial, "dp parameter all_gather", plan::Pass::upd, 2), 1);
  EXPECT_EQ(collective_count(hidden, "dp parameter all_gather", plan::Pass::upd, 2), 0);
  EXPECT_EQ(collective_count(hidden, "dp parameter all_gather (overlapped)", plan::Pass::fwd, 2), 6);
  EXPECT_NEAR(s.closed_form(serial) - s.closed_form(hidden), 13.461632e-6, 1e-12);
}

// The rank order moves the groups: tp = 2, dp = 2 on 4 devices. Megatron-LM's tp-dp-pp puts the TP
// pairs on devices {0, 1} and {2, 3} and the DP pairs on {0, 2}, {1, 3}; dp-tp-pp swaps them. Every
// transfer of a TP collective stays inside its TP pair, every DP one inside its DP pair.
TEST(MegatronLowering, RankOrderPlacesTheTensorAndDataParallelGroups) {
  const Fixture s(4, 4);
  for (const std::string order : {"tp-dp-pp", "dp-tp-pp"}) {
    Configuration c;
    c.tp = 2;
    c.rank_order = megatron::parse_rank_order(order);
    const program::Program p = s.lower(c);
    const auto pair_of = [&](int device, bool tensor) {
      // tp-dp-pp: TP pairs differ in bit 0, DP pairs in bit 1; dp-tp-pp the other way round.
      const int bit = (order == "tp-dp-pp") == tensor ? 1 : 2;
      return device & ~bit;
    };
    int tp_transfers = 0, dp_transfers = 0;
    for (const program::Task& t : p.tasks()) {
      if (t.kind != program::TaskKind::transfer) continue;
      const std::string& label = t.label;
      const bool tensor = label.rfind("tp ", 0) == 0, data = label.rfind("dp ", 0) == 0;
      if (!tensor && !data) continue;
      (tensor ? tp_transfers : dp_transfers)++;
      EXPECT_EQ(pair_of(t.src.device, tensor), pair_of(t.dst.device, tensor)) << order << ": " << label << " "
                                                                             << t.src.device << " -> " << t.dst.device;
    }
    EXPECT_GT(tp_transfers, 0) << order;
    EXPECT_GT(dp_transfers, 0) << order;
  }
}

// The memory the lowering declares (lowering.hpp, program::Holding), placed in time by the closed
// form (memory_timeline.hpp holding_timeline), worked by hand for the tiny GPT (4 blocks, E = 64,
// V = 128, P = S = 16), pp = 2, microbatch 1 (m = 4), tp = dp = 1, no recomputation:
//   parameters (tests/megatron/test_planner.cpp): a block 12 E^2 + 13 E = 49,984; the head
//     (V + P) E = 9,216; the tail 2E + V E = 8,320.
//     stage 0: 2 x 49,984 + 9,216 = 109,184; stage 1: 2 x 49,984 + 8,320 = 108,288.
//   model states at 18 B per parameter (mixed Adam, fp32 main gradients: 2 + 4 + 12), ZeRO 0:
//     stage 0: 109,184 x 18 = 1,965,312 B (weights 218,368, gradients 436,736, optimizer 1,310,208);
//     stage 1: 108,288 x 18 = 1,949,184 B.
//   activations per micro-batch (K22 Eq. 1, s b h = 16 x 1 x 64 = 1,024): a layer sbh (34 + 5as/h)
//     = 1,024 x (34 + 5 x 2 x 16 / 64) = 1,024 x 36.5 = 37,376 B;
//     chunk 0 (stage 0): 2 x 37,376 + the embedding's dropout mask sbh = 74,752 + 1,024 = 75,776 B;
//     chunk 1 (stage 1): 74,752 + the output layer's 2sbh + 2sbh + 4sbV = 2,048 + 2,048 + 8,192:
//     74,752 + 12,288 = 87,040 B.
//   1F1B holds p - r micro-batches on stage r (warm-up p - r - 1, then one forward before the first
//   backward): stage 0 1,965,312 + 2 x 75,776 = 2,116,864 B, reached when F1 starts, right after F0:
//   at f0 = 3.384384 us (OneFOneBAndGpipeBubbleComesFromTheDependencies); stage 1 1,949,184 +
//   87,040 = 2,036,224 B, from its F0's start at f0 + one 2.048 ps send.
//   GPipe holds all m = 4: stage 0 1,965,312 + 4 x 75,776 = 2,268,416 B; stage 1 1,949,184 +
//   4 x 87,040 = 2,297,344 B.
// Nothing was declared that does not end: at the iteration's end only the model states remain.
TEST(MegatronLowering, MemoryHoldsModelStatesAndTheMicroBatchesInFlight) {
  const Fixture s(2, 4);
  const auto timeline = [&](Schedule sc) {
    const program::Program p = s.lower({.pp = 2, .microbatch = 1, .schedule = sc});
    const program::Evaluation e = program::ClosedFormEvaluator(program::uncontended_transfer_time(s.topology)).evaluate(p);
    return memory::holding_timeline(p, e, 2);
  };
  const memory::MemoryTimeline f = timeline(Schedule::one_f_one_b);
  ASSERT_EQ(f.devices.size(), 2u);
  EXPECT_DOUBLE_EQ(f.devices[0].resident_bytes, 1965312);
  EXPECT_DOUBLE_EQ(f.devices[1].resident_bytes, 1949184);
  EXPECT_DOUBLE_EQ(f.devices[0].peak_bytes, 2116864);
  EXPECT_DOUBLE_EQ(f.devices[1].peak_bytes, 2036224);
  EXPECT_NEAR(f.devices[0].peak_time_s, 3.384384e-6, 1e-15);
  EXPECT_NEAR(f.devices[1].peak_time_s, 3.384384e-6 + 2.048e-12, 1e-15);
  for (const auto& d : f.devices) EXPECT_DOUBLE_EQ(d.steps.back().bytes, d.resident_bytes);
  const memory::MemoryTimeline g = timeline(Schedule::gpipe);
  EXPECT_DOUBLE_EQ(g.devices[0].peak_bytes, 2268416);
  EXPECT_DOUBLE_EQ(g.devices[1].peak_bytes, 2297344);
  EXPECT_EQ(g.fullest(), 1u);
}

// Interleaved, p = 2, v = 2, m = 4 (one block per chunk; InterleavedBubbleComesFromTheDependencies):
// global chunk 0 (stage 0: block 0 + embedding mask) 37,376 + 1,024 = 38,400 B per micro-batch;
// chunk 2 (stage 0: block 2) 37,376; chunk 1 (stage 1: block 1) 37,376; chunk 3 (stage 1: block 3
// + output layer) 37,376 + 12,288 = 49,664. Model states as above.
// Stage 0's order (pipeline_order.hpp, warm-up 2 (p - 1) + (v - 1) p = 4): forwards (chunk.mb) 0.0
// 0.1 2.0 2.1, then F 0.2 B 2.0, F 0.3 B 2.1, F 2.2 B 0.0, F 2.3 B 0.1, then the rest backward. In
// flight after each forward: {0.0 0.1 2.0 2.1 0.2} = 3 x 38,400 + 2 x 37,376 = 189,952; after B 2.0
// and F 0.3: {0.0 0.1 2.1 0.2 0.3} = 4 x 38,400 + 37,376 = 190,976 (the peak: the schedule's five in
// flight, four of them the larger chunk); after B 2.1, F 2.2: 190,976 again; later less.
//   stage 0 peak 1,965,312 + 190,976 = 2,156,288 B.
// Stage 1 (warm-up 2): F 1.0 1.1, F 3.0 B 3.0, F 3.1 B 3.1, F 1.2 B 1.0, F 1.3 B 1.1, F 3.2 B 3.2, ...:
// {1.0 1.1 3.0} = 2 x 37,376 + 49,664 = 124,416 at most (three in flight, one of chunk 3);
//   stage 1 peak 1,949,184 + 124,416 = 2,073,600 B.
// The planner's per-stage formula (stage_activation_bytes: 2.5 micro-batches of the whole stage on
// stage 0, 1.5 on stage 1) does not know which chunks are in flight; the timeline does.
TEST(MegatronLowering, InterleavedMemoryFollowsTheChunksInFlight) {
  const Fixture s(2, 4);
  const program::Program p = s.lower({.pp = 2, .microbatch = 1, .schedule = Schedule::interleaved, .virtual_stages = 2});
  const program::Evaluation e = program::ClosedFormEvaluator(program::uncontended_transfer_time(s.topology)).evaluate(p);
  const memory::MemoryTimeline m = memory::holding_timeline(p, e, 2);
  EXPECT_DOUBLE_EQ(m.devices[0].peak_bytes, 2156288);
  EXPECT_DOUBLE_EQ(m.devices[1].peak_bytes, 2073600);
}

// fold_replicas: replica 0's compute, TP collectives and pipeline sends stand for every DP
// replica's; the other replicas' devices run only the DP collectives, waiting for replica 0's tasks.
// Without contention (the closed form) the replicas are identical, so the iteration time is the
// same to rounding, with and without overlap_grad_reduce and overlap_param_gather; tp 2, pp 2 (8
// devices, dp 2), interleaved v 2, microbatch 1, batch 8 (m = 4), 1 GB/s so that the DP collectives
// matter. Forward compute tasks (the input layer has none): 4 blocks x 8 + 3 + 2 = 37 layers per
// micro-batch and rank, x m 4 x tp 2 = 296 per replica: 592 unfolded, 296 folded. The DP
// collectives are the same ones: one gradient all-reduce per stage and rank (4), or with
// overlap_grad_reduce one per bucket: 6 buckets (head, 4 blocks, tail) x 2 ranks = 12.
TEST(MegatronLowering, FoldedReplicasKeepTheClosedForm) {
  const Fixture s(8, 8, "1GB/s");
  for (const bool overlap : {false, true})
    for (const int zero : {0, 1}) {
      Configuration c{.tp = 2, .pp = 2, .microbatch = 1, .schedule = Schedule::interleaved, .virtual_stages = 2};
      c.zero = zero;
      c.overlap_grad_reduce = overlap;
      c.overlap_param_gather = overlap && zero == 1;
      Configuration folded_c = c;
      folded_c.fold_replicas = true;
      const program::Program unfolded = s.lower(c), folded = s.lower(folded_c);
      const auto forwards = [](const program::Program& p) {
        int n = 0;
        for (const program::Task& t : p.tasks()) n += t.kind == program::TaskKind::compute && t.label == "forward";
        return n;
      };
      EXPECT_EQ(forwards(unfolded), 592);
      EXPECT_EQ(forwards(folded), 296);
      EXPECT_LT(folded.size(), unfolded.size());
      const char* dp_label = zero == 0 ? "dp gradient all_reduce" : "dp gradient reduce_scatter";
      EXPECT_EQ(collective_count(folded, dp_label, plan::Pass::upd, 2), overlap ? 12 : 4);
      EXPECT_EQ(collective_count(unfolded, dp_label, plan::Pass::upd, 2), overlap ? 12 : 4);
      const double t = s.closed_form(unfolded);
      EXPECT_GT(t, 0);
      EXPECT_NEAR(s.closed_form(folded), t, 1e-12 * t) << "overlap " << overlap << " zero " << zero;
    }
}

// Plans written before fold_replicas existed lower unfolded (the field is optional).
TEST(MegatronLowering, FoldReplicasIsOptionalInThePlan) {
  const Fixture s(2, 4);
  plan::Plan p = s.plan_of({.microbatch = 2});
  p.family->erase("fold_replicas");
  EXPECT_FALSE(megatron::configuration_of(p).fold_replicas);
  (*p.family)["fold_replicas"] = true;
  EXPECT_TRUE(megatron::configuration_of(p).fold_replicas);
}

// The lowering's optimizer step, one task per device after its reduction, by the same device model:
// tp = pp = dp = 1 on one device. The 4-block GPT has 4 x 49,984 + 9,216 + 8,320 = 217,472
// parameters (tests/megatron/test_planner.cpp counts them); x 28 B at 1000 GB/s = 6.089216 us more
// than the pipeline alone (memory-bound: 12 FLOP each take 2.6 us at 1 TFLOP/s). A plan written
// before the option existed has none.
TEST(MegatronLowering, OptimizerStepEndsTheIteration) {
  const Fixture s(1, 4);
  const program::Program plain = s.lower({});
  const program::Program stepped = s.lower({.optimizer_step = true});
  EXPECT_NEAR(s.closed_form(stepped) - s.closed_form(plain), 6.089216e-6, 1e-15);
  int steps = 0;
  for (const program::Task& t : stepped.tasks()) steps += t.label == "optimizer step" ? 1 : 0;
  EXPECT_EQ(steps, 1);
}
