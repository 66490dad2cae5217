// Lowering of DeepSpatialMatrix plans (seed 003) on a tiny platform written here.
#include <nlohmann/json.hpp>
#include <gtest/gtest.h>


#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <utility>
#include <vector>
#include <string>

#include "sim/common/error.hpp"
#include "sim/planners/dsm/plan_fields.hpp"
#include "sim/planners/dsm/registration.hpp"
#include "sim/lowering/lowering.hpp"
#include "sim/plan/json_reader.hpp"
#include "sim/planners/builtin_strategies.hpp"
#include "sim/program/closed_form.hpp"
#include "sim/program/platform_binding.hpp"
#include "sim/replay/program_replay.hpp"
#include "tests/lowering_dsm/dsm_fixtures.hpp"
#include "tests/support/platform_yaml.hpp"
#include "topology/system_parser.hpp"
#include "workloads/net_builder.hpp"
#include "workloads/workload_file.hpp"

using namespace partsim;
using test::pass_of;
using test::passes_of;
using test::PassView;
using test::tiny_yaml;

namespace {

// conv (1 -> 2 channels, 3x3, pad 1, on a 4x4 image, no bias) -> flatten -> fc (32 -> 64, no bias),
// batch 8. No auxiliary FLOPs, so AuxComp = 0 and every term below is a PE-array or a link time.
workloads::Graph conv_fc() {
  workloads::NetBuilder b("conv_fc", "");
  std::string x = b.input("x", {1, 4, 4});
  x = b.conv("conv", x, 2, 3, 1, 1, false);
  x = b.flatten("flat", x);
  b.fc("fc", x, 64, false);
  return b.build(8);
}

struct Lowered {
  plan::Plan plan;
  program::Program program;
  program::Evaluation eval;
  std::map<std::pair<std::string, plan::Pass>, double> span;       // closed form per (layer, pass)
  std::map<std::pair<std::string, plan::Pass>, double> predicted;  // plan's per-pass prediction
};

Lowered lower_and_time(const topology::SystemSpec& spec, const workloads::Graph& g, const std::string& opt,
                       topology::Granularity gran = topology::Granularity::chip) {
  Lowered r;
  r.plan = planner::builtin_strategies().make_plan("dsm", {spec, g, g.name(), plan::Mode::training, {opt}});
  const topology::TopologyGraph topo(spec, gran);
  r.program = planner::lower_plan({r.plan, spec, g, topo});
  program::ClosedFormEvaluator closed(program::uncontended_transfer_time(topo));
  r.eval = closed.evaluate(r.program);
  for (const auto& s : program::layer_pass_spans(r.program, r.eval))
    r.span[{r.program.layer_names()[static_cast<size_t>(s.layer)], s.pass}] = s.span();
  for (const auto& l : r.plan.layers)
    for (const auto& pp : l.passes) r.predicted[{l.name, pp.pass}] = pp.cost.total_s;
  return r;
}

/// The family object of layer `name` (to edit a plan the way a user could).
nlohmann::json& family_of(plan::Plan& p, const std::string& name) {
  for (auto& l : p.layers)
    if (l.name == name) return *l.family;
  throw std::runtime_error("no layer " + name);
}

long long count(const program::Program& p, program::TaskKind kind) {
  long long n = 0;
  for (const auto& t : p.tasks()) n += t.kind == kind ? 1 : 0;
  return n;
}

using plan::Pass;
constexpr double ns = 1e-9;

// The spans of conv_fc on the tiny platform computed by hand below (TwoLayerSpansComputedByHand),
// and the iteration: FWD conv, fc; then fc BWD, UPD, conv UPD, one after the other.
void expect_two_layer_spans_by_hand(const std::map<std::pair<std::string, plan::Pass>, double>& span,
                                    double makespan_s, double tol) {
  EXPECT_NEAR(span.at({"conv", Pass::fwd}), 56 * ns, tol);
  EXPECT_NEAR(span.at({"conv", Pass::upd}), 64.25 * ns, tol);
  EXPECT_NEAR(span.at({"fc", Pass::fwd}), 272 * ns, tol);
  EXPECT_NEAR(span.at({"fc", Pass::bwd}), 448 * ns, tol);
  EXPECT_NEAR(span.at({"fc", Pass::upd}), 192 * ns, tol);
  EXPECT_NEAR(makespan_s, (56 + 272 + 448 + 192 + 64.25) * ns, tol);
}

}  // namespace

// The tiny platform (tests/dsm/tiny_system.hpp as YAML): 2 x 2 torus (M = N = 2), chips of 2 cores,
// one 4 x 4 PE array per core, 1 SIMD lane, 1 GHz (1 cycle = 1 ns); memory 10 GB/s x 0.8 = 8 GB/s,
// core-to-core 8 GB/s, X links 4 GB/s, Y links 1 GB/s, no latency; fp16 (e = 2 B).
//
// The planner (opt=none) picks data parallelism for conv and model parallelism for fc (asserted
// below), then every span is computed by hand from seed 003 §II-D for those choices.
//
// conv: N_in 1, N_out 2, N_ij 16, N_kij 9, N_mb 8, first layer (FWD, UPD only).
//   data: ChipD = {in 1, out 2, ij 16, kij 9, mb 8/4 = 2}; CoreD splits mb over the 2 cores.
//   FWD PriComp: ceil(in*kij 9 / 4 rows) * ceil(out 2 / 4 cols) * ceil(mb*ij 16 / 1 lane) + 4 + 4
//     = 3 * 1 * 16 + 8 = 56 cycles = 56 ns.
//   FWD memory: Input 1*2*16 = 32 + Kernel 18 + Output 2*16*8/4 = 64 elements = 228 B / 8 GB/s = 28.5 ns
//     (fetch 100 B = 12.5 ns, then writeout 128 B = 16 ns); on-chip max(64 / 2 + 36, 128 / 2) = 68 B
//     / 8 GB/s = 8.5 ns. TotCy = max(56, 28.5, 8.5) = 56 ns.
//   UPD PriComp: ceil(mb*ij 16 / 4) * ceil(out 2 / 4) * ceil(in*kij 9 / 1) + 8 = 4 * 1 * 9 + 8 = 44 ns;
//     memory (32 + 64 + 18) x 2 = 228 B = 28.5 ns; PartialSumAcc (mb split over k = 2 cores): gradient
//     tile 2*1*9 = 18 el = 36 B, (k-1)/k * 36 / 8 GB/s = 2.25 ns. TotCy = 44 + 2.25 = 46.25 ns.
//   Gradient reduction (data: X and Y), G = 1*2*9*2 = 36 B: X ring all-reduce p = 2:
//     2 (p-1) G / (p B_x) = 2 * 36 / (2 * 4e9) = 9 ns; Y of G / 2 = 18 B: 2 * 18 / (2 * 1e9) = 18 ns;
//     memory 2G / 8 GB/s = 9 ns; on-chip G / 8 GB/s = 4.5 ns; pipelined: max = 18 ns.
//   conv UPD = 46.25 + 18 = 64.25 ns.
// fc: N_in 32, N_out 64, N_mb 8, model: ChipD = {in 32, out 64/4 = 16, ij 1, kij 1, mb 8}.
//   Relayout conv (data) -> fc (model), both axes change: conv output 256 el x 2 B / 4 chips = 128 B
//     per chip; all-to-all along X (p = 2): 128 / (2 * 4e9) = 16 ns, then Y: 128 / (2 * 1e9) = 64 ns;
//     memory 256 B / 8 GB/s = 32 ns; on-chip 16 ns: 80 ns, on fc's FWD and again on its BWD.
//   Rotation (model): N(M-1) = 2 steps along X, N-1 = 1 along Y of the chip's own input chunk
//     32*8/4 = 64 el = 128 B: 2 * 128 / 4e9 + 128 / 1e9 = 64 + 128 = 192 ns.
//   FWD (CoreD: mb over 2 cores): PriComp ceil(32/4) * ceil(16/4) * ceil(4/1) + 8 = 136 ns; memory
//     (64 + 512 + 128) el = 1408 B = 176 ns; on-chip (64 + 1024 + 3*128/2) = 1280 B = 160 ns;
//     TotCy = max(136, 176, 160, 192) = 192 ns; + relayout 80 = 272 ns.
//   BWD: PriComp ceil(16/4) * ceil(32/4) * 4 + 8 = 136 ns; memory (128 + 512 + 64) el = 176 ns;
//     on-chip 1344 B = 168 ns; not overlapped: rotation 192 ns: 176 + 192 + relayout 80 = 448 ns.
//   UPD (CoreD: out over 2 cores): PriComp ceil(8/4) * ceil(8/4) * 32 + 8 = 136 ns; memory 176 ns;
//     rotation 192 ns overlapped: 192 ns; no gradient reduction (model parallel).
TEST(LoweringDsm, TwoLayerSpansComputedByHand) {
  const auto spec = test::platform_from_yaml(tiny_yaml());
  const Lowered r = lower_and_time(spec, conv_fc(), "opt=none");
  // The planner's choices the arithmetic above assumes.
  EXPECT_EQ(pass_of(r.plan, "conv", Pass::fwd).chip_split, dsm::ChipSplit::data);
  EXPECT_EQ(pass_of(r.plan, "fc", Pass::fwd).chip_split, dsm::ChipSplit::model);
  EXPECT_EQ(pass_of(r.plan, "conv", Pass::fwd).core_split.mb, 1);
  EXPECT_EQ(pass_of(r.plan, "fc", Pass::fwd).core_split.mb, 4);
  EXPECT_EQ(pass_of(r.plan, "fc", Pass::upd).core_split.out, 8);
  ASSERT_EQ(r.span.size(), 5u);  // conv FWD, UPD; fc FWD, BWD, UPD (flatten folded into conv)

  expect_two_layer_spans_by_hand(r.span, r.eval.makespan_s, 1e-3 * ns);
  // The closed form describes the events the planner charged: equal per pass up to rounding (no
  // memory latency on this platform, and all-to-all with p = 2 is one hop, so no link is shared).
  for (const auto& [key, pred] : r.predicted) EXPECT_NEAR(r.span.at(key), pred, 1e-9 * pred) << key.first;
  EXPECT_NEAR(r.eval.makespan_s, r.plan.predicted_iteration_s, 1e-9 * r.plan.predicted_iteration_s);
}

// Latency: every merged ring step keeps the latencies of the steps it stands for. With 10 ns per
// chip-to-chip link the closed form must still equal the planner pass by pass.
TEST(LoweringDsm, LinkLatencyKeptWhenStepsAreMerged) {
  const auto spec = test::platform_from_yaml(tiny_yaml("0ns", "10ns"));
  const Lowered r = lower_and_time(spec, conv_fc(), "opt=none");
  ASSERT_EQ(pass_of(r.plan, "fc", Pass::upd).chip_split, dsm::ChipSplit::model);
  ASSERT_EQ(pass_of(r.plan, "conv", Pass::upd).chip_split, dsm::ChipSplit::data);
  // fc UPD: rotation 2 (10 + 128/4) + (10 + 128/1) = 84 + 138 = 222 ns > memory 176 ns, PriComp 136.
  EXPECT_NEAR(r.span.at({"fc", Pass::upd}), 222 * ns, 1e-3 * ns);
  // conv UPD: 46.25 + gradient: X 2 (10 + 36/(2*4)) = 29 ns, Y 2 (10 + 18/(2*1)) = 38 ns -> 84.25.
  EXPECT_NEAR(r.span.at({"conv", Pass::upd}), (46.25 + 38) * ns, 1e-3 * ns);
  for (const auto& [key, pred] : r.predicted) EXPECT_NEAR(r.span.at(key), pred, 1e-9 * pred) << key.first;
}

// All optimizations (opt=all: hybrid, memory reuse, DySM; biases, activation and pooling give
// AuxComp): the plan's choices decode to the costs the planner charged, so the closed form equals
// the planner per pass on this platform (memory latency 0, no all-to-all over more than 2 chips).
TEST(LoweringDsm, AllOptimizationsMatchThePlanner) {
  const auto spec = test::platform_from_yaml(tiny_yaml("1ns", "100ns"));
  for (std::int64_t batch : {8, 64}) {
    const Lowered r = lower_and_time(spec, test::three_layers(batch), "opt=all");
    for (const auto& [key, pred] : r.predicted)
      EXPECT_NEAR(r.span.at(key), pred, 1e-9 * pred) << key.first << " " << plan::to_string(key.second) << " b" << batch;
  }
}

// A bidirectional LSTM runs its directions in turn (docs/model.md "Bidirectional LSTMs"): each
// direction's first step fetches the weights, the later ones hold them, so the lowering replays two
// (first, later) runs per pass, and the closed form still equals the planner pass by pass.
TEST(LoweringDsm, BidirectionalLstmDirectionsInTurnMatchThePlanner) {
  const auto spec = test::platform_from_yaml(tiny_yaml("1ns", "100ns"));
  workloads::NetBuilder b("bilstm", "");
  std::string x = b.input("x", {4, 6, 1});  // 4 features, 6 timesteps
  x = b.lstm("bi", x, 4, /*bidirectional=*/true);
  b.lstm("uni", x, 4);
  const Lowered r = lower_and_time(spec, b.build(8), "opt=memreuse");
  bool held = false;
  for (const auto& l : r.plan.layers)
    if (l.name == "bi")
      for (const auto& pp : passes_of(l)) held = held || pp.weight_reuse;
  EXPECT_TRUE(held);  // the reading this test is about occurs
  for (const auto& [key, pred] : r.predicted)
    EXPECT_NEAR(r.span.at(key), pred, 1e-9 * pred) << key.first << " " << plan::to_string(key.second);
}

// vgg16 on the paper's asymmetric torus (seed 003 Fig. 10, with hybrid parallelism, memory reuse
// and DySM chosen by the planner) with the HBM latency set to 0 (the model has none, docs/model.md
// "Not modelled"): every pass equals the planner in the closed form, except passes carrying a
// chip-to-chip relayout along an axis of more than 2 chips: there the all-to-all by shifts puts k
// pieces on a link at once in shift k, which the planner's formula charges (sum k (L + S/(pB))) and
// the uncontended closed form cannot (it is contention), so those come out below the planner.
TEST(LoweringDsm, Vgg16OnThePaperTorusMatchesThePlannerPassByPass) {
  const topology::SystemSpec spec = topology::load_system(
      PARTSIM_TEST_DATA_DIR "/platforms/torus_8pf_asym.yaml", {"system.device_types.dsm_chip.chip.memory_latency=0ns"});
  const workloads::Graph g = workloads::load_workload("vgg16", 512);
  const Lowered r = lower_and_time(spec, g, "opt=all");
  int dysm = 0, hybrid = 0, reuse = 0, relayout = 0;
  for (const auto& l : r.plan.layers)
    for (const auto& pp : passes_of(l)) {
      dysm += pp.dysm_factor > 1;
      hybrid += pp.chip_split == dsm::ChipSplit::data_x_model_y || pp.chip_split == dsm::ChipSplit::model_x_data_y;
      reuse += pp.memory_reuse;
      const double pred = pp.predicted.total_s;
      const double closed = r.span.at({l.name, pp.pass});
      const auto it = pp.predicted.breakdown.find("relayout_s");
      if (it != pp.predicted.breakdown.end() && it->second > 0) {
        ++relayout;
        EXPECT_LT(closed, pred) << l.name << " " << plan::to_string(pp.pass);
        EXPECT_GT(closed, pred - it->second - 1e-12) << l.name << " " << plan::to_string(pp.pass);
      } else {
        EXPECT_NEAR(closed, pred, 1e-9 * pred) << l.name << " " << plan::to_string(pp.pass);
      }
    }
  // The optimizations this test is about were used.
  EXPECT_GT(dysm, 0);
  EXPECT_GT(hybrid, 0);
  EXPECT_GT(reuse, 0);
  EXPECT_GT(relayout, 0);
}

// Inference (FWD only; memory reuse read from FWD flags and weight preloading, §III-B): the closed
// form equals the planner per layer.
TEST(LoweringDsm, InferencePlansMatchThePlanner) {
  const topology::SystemSpec spec = topology::load_system(
      PARTSIM_TEST_DATA_DIR "/platforms/torus_8pf.yaml", {"system.device_types.dsm_chip.chip.memory_latency=0ns"});
  for (std::int64_t batch : {1, 16}) {
    const workloads::Graph g = workloads::load_workload("vgg16", batch);
    const plan::Plan p = planner::builtin_strategies().make_plan("dsm", {spec, g, "vgg16", plan::Mode::inference, {}});
    const topology::TopologyGraph topo(spec);
    const program::Program prog = planner::lower_plan({p, spec, g, topo});
    program::ClosedFormEvaluator closed(program::uncontended_transfer_time(topo));
    const auto ev = closed.evaluate(prog);
    int preloaded = 0, reused = 0;
    for (const auto& l : p.layers)
      for (const auto& pp : passes_of(l)) {
        preloaded += pp.preloaded;
        reused += pp.memory_reuse;
      }
    EXPECT_GT(preloaded, 0);  // the reuse readings this test is about occur
    EXPECT_GT(reused, 0);
    for (const auto& s : program::layer_pass_spans(prog, ev)) {
      const auto& lp = p.layers[static_cast<size_t>(s.layer)];
      const auto it = lp.passes.front().cost.breakdown.find("relayout_s");
      if (it != lp.passes.front().cost.breakdown.end() && it->second > 0) continue;  // see the vgg16 test
      EXPECT_NEAR(s.span(), lp.passes.front().cost.total_s, 1e-9 * lp.passes.front().cost.total_s)
          << lp.name << " batch " << batch << " preloaded " << preloaded << " reused " << reused;
    }
  }
}

// Timestep pipelining (seed 003 §III-D): two uni-directional LSTM layers, each on one row of the
// 2 x 2 torus (rows are rings of M = 2 chips: no wrap-around beyond the block). The stages run at
// once, so per layer the spans overlap; the planner reports each layer's share of the group's pass
// time (N_ts + G - 1) x slowest stage per timestep (+ the largest gradient reduction in UPD). The
// closed-form span of the group's pass (first start to last finish over both layers) equals the sum
// of the shares.
TEST(LoweringDsm, PipelinedLstmGroupSpansThePlannersPassTime) {
  const auto spec = test::platform_from_yaml(tiny_yaml("1ns", "10ns"));
  workloads::NetBuilder b("two_lstm", "");
  std::string x = b.input("x", {8, 8, 1});  // 8 features, 8 timesteps
  x = b.lstm("l1", x, 8);
  b.lstm("l2", x, 8);
  const Lowered r = lower_and_time(spec, b.build(4), "opt=all");
  ASSERT_TRUE(pass_of(r.plan, "l1", Pass::fwd).pipe_group.has_value()) << "the planner did not pipeline";
  ASSERT_EQ(pass_of(r.plan, "l1", Pass::fwd).chips, (std::vector<int>{0, 1}));
  ASSERT_EQ(pass_of(r.plan, "l2", Pass::fwd).chips, (std::vector<int>{2, 3}));
  const int l1 = 1, l2 = 2;  // plan layer indices (0 is the input)
  for (Pass pass : {Pass::fwd, Pass::upd}) {
    double start = 1e300, finish = 0;
    for (const auto& s : program::layer_pass_spans(r.program, r.eval))
      if ((s.layer == l1 || s.layer == l2) && s.pass == pass) {
        start = std::min(start, s.start);
        finish = std::max(finish, s.finish);
      }
    const double predicted = pass_of(r.plan, "l1", pass).predicted.total_s + pass_of(r.plan, "l2", pass).predicted.total_s;
    EXPECT_NEAR(finish - start, predicted, 1e-9 * predicted) << plan::to_string(pass);
  }
  // l1 is the first layer (no BWD): the planner pipelines the first stage's passes only, so l2's
  // BWD runs alone on its row.
  EXPECT_NEAR(r.span.at({"l2", Pass::bwd}), pass_of(r.plan, "l2", Pass::bwd).predicted.total_s,
              1e-9 * pass_of(r.plan, "l2", Pass::bwd).predicted.total_s);
  EXPECT_NEAR(r.eval.makespan_s, r.plan.predicted_iteration_s, 1e-9 * r.plan.predicted_iteration_s);
}

// Program size: at chip granularity one compute task per chip and segment; at core granularity one
// per core; collectives are chip-pair transfers at both (module comment of dsm_lowering.cpp).
TEST(LoweringDsm, TaskCountsAtChipAndCoreGranularity) {
  const auto spec = test::platform_from_yaml(tiny_yaml());
  const Lowered chip = lower_and_time(spec, conv_fc(), "opt=none", topology::Granularity::chip);
  const Lowered core = lower_and_time(spec, conv_fc(), "opt=none", topology::Granularity::core);
  // 5 passes, one segment each (one iteration), 4 chips, no AuxComp: 5 x 4 = 20 compute tasks at
  // chip granularity, x 2 cores = 40 at core granularity.
  EXPECT_EQ(count(chip.program, program::TaskKind::compute), 20);
  EXPECT_EQ(count(core.program, program::TaskKind::compute), 40);
  // Chip-to-chip transfers: rotation in fc's 3 passes (one merged X and one Y step, 4 chips each)
  // = 3 x 8 = 24; gradient of conv (X and Y all-reduce, one merged step each: 2 x 4) = 8; relayout
  // on fc FWD and BWD (X and Y all-to-all, one step each: 2 x 2 x 4) = 16: 48.
  EXPECT_EQ(count(chip.program, program::TaskKind::transfer), 48);
  long long memory_transfers = 0;
  for (const auto& t : core.program.tasks())
    if (t.kind == program::TaskKind::transfer && (t.src.memory || t.dst.memory)) ++memory_transfers;
  // At core granularity memory traffic is 2 transfers per chip (one per core here: 2 cores).
  // Per pass: fetch + writeout = 4 x 4 chips = 16, x 5 passes = 80; conv's gradient read + write
  // (16) and fc's two relayouts' read + write (2 x 16): 128.
  EXPECT_EQ(memory_transfers, 128);
  // PartialSumAcc between the 2 cores of a chip (one pass splits its reduction over both): a ring of
  // 2 per chip, one flow each way: 2 x 4 chips = 8, each carrying half the tile (one step, tile / 2).
  long long partial_sums = 0;
  for (const auto& t : core.program.tasks()) partial_sums += t.kind == program::TaskKind::transfer && t.label == "partial_sum";
  EXPECT_EQ(partial_sums, 8);
  EXPECT_EQ(count(core.program, program::TaskKind::transfer), 48 + 128 + 8);
  // Layers in plan order, named as the plan's layers; every task names a layer and says what it is.
  ASSERT_EQ(chip.program.layer_names().size(), chip.plan.layers.size());
  for (size_t i = 0; i < chip.plan.layers.size(); ++i) EXPECT_EQ(chip.program.layer_names()[i], chip.plan.layers[i].name);
  for (const auto& t : chip.program.tasks()) {
    EXPECT_GE(t.layer, 0);
    EXPECT_FALSE(t.label.empty());
  }
}

TEST(LoweringDsm, PlanWhosePassesDoNotMatchTheWorkloadIsRefused) {
  const auto spec = test::platform_from_yaml(tiny_yaml());
  const auto g = conv_fc();
  const topology::TopologyGraph topo(spec);
  const plan::Plan good =
      planner::builtin_strategies().make_plan("dsm", {spec, g, "conv_fc", plan::Mode::training, {"opt=none"}});
  auto message = [&](const plan::Plan& p) {
    try {
      dsm::lower_dsm({p, spec, g, topo});
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  // conv is the first layer: it has no BWD pass.
  plan::Plan extra = good;
  {
    nlohmann::json& passes = family_of(extra, "conv")["passes"];
    passes.push_back(passes.back());
    passes.back()["pass"] = "bwd";
  }
  EXPECT_NE(message(extra).find("layer 'conv': passes [fwd, upd, bwd] do not match the workload"), std::string::npos)
      << message(extra);
  // fc without its UPD.
  plan::Plan missing = good;
  family_of(missing, "fc")["passes"].erase(family_of(missing, "fc")["passes"].size() - 1);
  EXPECT_NE(message(missing).find("layer 'fc': passes"), std::string::npos) << message(missing);
  // A folded auxiliary layer (flatten, in conv's group) carrying passes.
  plan::Plan folded = good;
  family_of(folded, "flat") = family_of(folded, "conv");
  EXPECT_NE(message(folded).find("'flat' carries passes"), std::string::npos) << message(folded);
  // A work per core that the core factors do not give.
  plan::Plan bad_split = good;
  family_of(bad_split, "fc")["passes"][0]["core_split"]["in"] = 3;
  EXPECT_NE(message(bad_split).find("core_split"), std::string::npos) << message(bad_split);
  EXPECT_EQ(message(good), "no error");
}

// The SimGrid replay of dsm plans, one simulation per test (one SimGrid engine per process; ctest
// runs every test in its own process). Tolerance 1e-6 of the span: SimGrid's clock precision.
namespace {
struct Replayed {
  Lowered lowered;
  program::Evaluation sim;
  std::map<std::pair<std::string, plan::Pass>, double> span;  // simulated per (layer, pass)
};
Replayed lower_and_replay(const topology::SystemSpec& spec, const workloads::Graph& g, const std::string& opt) {
  Replayed r{lower_and_time(spec, g, opt), {}, {}};
  const topology::TopologyGraph topo(spec);
  replay::SimGridEvaluator simgrid(topo);
  r.sim = simgrid.evaluate(r.lowered.program);
  for (const auto& s : program::layer_pass_spans(r.lowered.program, r.sim))
    r.span[{r.lowered.program.layer_names()[static_cast<size_t>(s.layer)], s.pass}] = s.span();
  return r;
}
}  // namespace

// The two-layer plan of TwoLayerSpansComputedByHand, simulated: no link carries two transfers at
// once (X and Y rings of 2 chips, unidirectional; the all-to-all of p = 2 is one hop; rotation
// sends each chip's chunk to one neighbour), so the simulated spans are the hand-computed ones.
TEST(LoweringDsmReplay, TwoLayerPlanSimulatedTimeByHand) {
  const Replayed r = lower_and_replay(test::platform_from_yaml(tiny_yaml()), conv_fc(), "opt=none");
  ASSERT_EQ(pass_of(r.lowered.plan, "conv", Pass::fwd).chip_split, dsm::ChipSplit::data);
  ASSERT_EQ(pass_of(r.lowered.plan, "fc", Pass::fwd).chip_split, dsm::ChipSplit::model);
  expect_two_layer_spans_by_hand(r.span, r.sim.makespan_s, 1e-6 * 1032.25 * ns);
  EXPECT_GT(r.sim.activities, 0);
}

// A contended plan: the same two layers on a 4 x 2 torus (8 chips; X rings of 4 chips at 4 GB/s,
// unidirectional). fc is model-parallel after the data-parallel conv, so fc's FWD and BWD start
// with a relayout all-to-all of each chip's share of conv's output, S = 256 el x 2 B / 8 = 64 B.
// By shifts (seed 003 §II-D), along X (p = 4): in shift k every chip sends S/p = 16 B k hops on,
// so each X link carries k pieces at once. The planner charges that sharing:
//   sum_{k=1..3} k x S / (p B_x) = (1 + 2 + 3) x 16 B / 4 GB/s = 24 ns, plus Y (p = 2, one hop)
//   S / (2 B_y) = 32 ns: relayout 56 ns.
// The closed form has no contention: 3 shifts x 4 ns + 32 = 44 ns, 12 ns below the planner.
// SimGrid shares each X link max-min among its k flows, all equal, so shift k takes k x 4 ns: the
// simulation lands on the planner (the direction the model predicts), 12 ns above the closed form.
TEST(LoweringDsmReplay, ContendedRelayoutIsSlowerThanTheClosedFormByTheSharedShifts) {
  const Replayed r = lower_and_replay(test::platform_from_yaml(tiny_yaml("0ns", "0ns", 4)), conv_fc(), "opt=none");
  const double tol = 1e-6 * 1000 * ns;
  for (Pass pass : {Pass::fwd, Pass::bwd}) {
    const auto& pp = pass_of(r.lowered.plan, "fc", pass);
    ASSERT_EQ(pp.chip_split, dsm::ChipSplit::model);
    EXPECT_NEAR(pp.predicted.breakdown.at("relayout_s"), 56 * ns, tol) << plan::to_string(pass);
    const double predicted = pp.predicted.total_s;
    EXPECT_NEAR(r.lowered.span.at({"fc", pass}), predicted - 12 * ns, tol) << plan::to_string(pass);
    EXPECT_NEAR(r.span.at({"fc", pass}), predicted, tol) << plan::to_string(pass);
  }
  // The passes without an all-to-all over more than 2 chips are uncontended: all three agree.
  for (const auto& key : {std::pair{std::string("conv"), Pass::fwd}, std::pair{std::string("conv"), Pass::upd},
                          std::pair{std::string("fc"), Pass::upd}}) {
    EXPECT_NEAR(r.span.at(key), r.lowered.span.at(key), tol) << key.first;
    EXPECT_NEAR(r.span.at(key), r.lowered.predicted.at(key), tol) << key.first;
  }
  EXPECT_NEAR(r.sim.makespan_s, r.lowered.eval.makespan_s + 2 * 12 * ns, tol);
  EXPECT_NEAR(r.sim.makespan_s, r.lowered.plan.predicted_iteration_s, tol);
}
