// The shared sharding lowering (sim/lowering/sharding_lowering.hpp) on hand-built plans: the Program
// timed by the closed form and replayed on SimGrid, against times computed by hand.

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "sim/geometry/layer_geometry.hpp"
#include "sim/lowering/redistribution_check.hpp"
#include "sim/lowering/sharding_lowering.hpp"
#include "sim/planners/prediction_check.hpp"
#include "sim/program/closed_form.hpp"
#include "sim/program/platform_binding.hpp"
#include "sim/replay/program_replay.hpp"
#include "tests/lowering_sharding/two_fc.hpp"
#include "workloads/net_builder.hpp"

using namespace partsim;
using partsim::fixtures::kFwdFlops;
using partsim::fixtures::kUpdFlops;
using partsim::fixtures::kWeightBytes;
using partsim::fixtures::plan_of;
using plan::ShardDim;

namespace {

constexpr double us = 1e-6;

struct Timed {
  program::Program program;
  program::Evaluation closed;
  std::map<std::string, int> transfers;  // by label
};

Timed lower(const plan::Plan& p, const topology::SystemSpec& spec, const workloads::Graph& g) {
  const topology::TopologyGraph topo(spec);
  Timed t{lowering::lower_sharding({p, spec, g, topo}), {}, {}};
  t.closed = program::ClosedFormEvaluator(program::uncontended_transfer_time(topo)).evaluate(t.program);
  for (const auto& task : t.program.tasks())
    if (task.kind == program::TaskKind::transfer) ++t.transfers[task.label];
  return t;
}

}  // namespace

// Data parallelism on 2 devices: no transfer between the layers; each device computes half of
// every pass; the gradients of fc2 and fc1 are all-reduced on a ring of 2 (one flow per direction
// of 2 x (S/2) = S bytes at 1 GB/s: 2.097 ms), each after its own UPD, overlapping what follows.
// Closed form: FWD 2 x 67.076 us, fc2 BWD 67.076 + UPD 66.585; fc1 has no BWD (its input is the
// graph's), UPD 66.585, then its all-reduce: 334.4 us + 2097.152 us.
TEST(ShardingLowering, DataParallelByHand) {
  const auto spec = fixtures::star(2);
  const auto g = fixtures::two_fc();
  const plan::Sharding dp = plan::mesh_sharding({}, {{ShardDim::batch, 2}});
  const Timed t = lower(plan_of(g, {dp, dp, dp}), spec, g);
  EXPECT_EQ(t.transfers.size(), 1u);  // only the gradient all-reduces
  EXPECT_EQ(t.transfers.at("gradient all-reduce"), 4);
  const double fwd = kFwdFlops / 2 / 1e12, upd = kUpdFlops / 2 / 1e12;
  const double allreduce = kWeightBytes / 1e9;
  EXPECT_NEAR(t.closed.makespan_s, 3 * fwd + 2 * upd + allreduce, 1e-9 * t.closed.makespan_s);

  // SimGrid: fc2's all-reduce starts at 3 fwd + upd; fc1's joins it 66.6 us later and both share
  // each device's link, which stays busy until 2 x S has crossed it: the end is 3 fwd + upd + 2 S/b.
  const topology::TopologyGraph topo(spec);
  replay::SimGridEvaluator simgrid(topo);
  const auto sim = simgrid.evaluate(t.program);
  EXPECT_NEAR(sim.makespan_s, 3 * fwd + upd + 2 * allreduce, 1e-6 * sim.makespan_s);
}

// The same data-parallel plan with one communication stream per device (schedule.gradient_sync_order
// in_order): fc1's all-reduce waits for fc2's to finish on both devices, although fc1's gradient is
// ready 66.6 us into fc2's, so the closed form ends at 3 fwd + upd + 2 AR (concurrent: 3 fwd + 2 upd
// + AR). Nothing shares a link any more, so the replay ends at the same instant.
TEST(ShardingLowering, InOrderGradientSyncSerialisesTheAllReducesByHand) {
  const auto spec = fixtures::star(2);
  const auto g = fixtures::two_fc();
  const plan::Sharding dp = plan::mesh_sharding({}, {{ShardDim::batch, 2}});
  plan::Plan p = plan_of(g, {dp, dp, dp});
  p.schedule.gradient_sync_order = plan::GradientSyncOrder::in_order;
  const Timed t = lower(p, spec, g);
  EXPECT_EQ(t.transfers.at("gradient all-reduce"), 4);
  const double fwd = kFwdFlops / 2 / 1e12, upd = kUpdFlops / 2 / 1e12;
  const double allreduce = kWeightBytes / 1e9;
  EXPECT_NEAR(t.closed.makespan_s, 3 * fwd + upd + 2 * allreduce, 1e-9 * t.closed.makespan_s);
  const topology::TopologyGraph topo(spec);
  replay::SimGridEvaluator simgrid(topo);
  EXPECT_NEAR(simgrid.evaluate(t.program).makespan_s, 3 * fwd + upd + 2 * allreduce, 1e-6 * t.closed.makespan_s);
}

// A parameter server (schedule.gradient_sync_algorithm parameter_server) on 4 devices, in order: per
// layer devices 1-3 send device 0 their S = 2,097,152 B of gradients (its down link carries 3 S),
// then device 0 sends each the parameters (its up link carries 3 S): 6 S / 1 GB/s per layer in the
// replay, against the ring's 2 (4-1)/4 S / 1 GB/s = 1.5 S. In order: 3 fwd + upd + 2 x 6 S / 1 GB/s.
// The closed form gives every transfer its route to itself (no contention): 2 S / 1 GB/s per layer.
TEST(ShardingLowering, ParameterServerSyncByHand) {
  const auto spec = fixtures::star(4);
  const auto g = fixtures::two_fc();
  const plan::Sharding dp = plan::mesh_sharding({}, {{ShardDim::batch, 4}});
  plan::Plan p = plan_of(g, {dp, dp, dp});
  p.schedule.gradient_sync_order = plan::GradientSyncOrder::in_order;
  p.schedule.gradient_sync_algorithm = plan::GradientSyncAlgorithm::parameter_server;
  const Timed t = lower(p, spec, g);
  EXPECT_EQ(t.transfers.at("gradient parameter-server sync"), 2 * 6);
  EXPECT_EQ(t.transfers.count("gradient all-reduce"), 0u);
  for (const auto& task : t.program.tasks())
    if (task.kind == program::TaskKind::transfer) {
      EXPECT_DOUBLE_EQ(task.bytes, kWeightBytes);
    }
  const double fwd = kFwdFlops / 4 / 1e12, upd = kUpdFlops / 4 / 1e12;
  const double sync = 6 * kWeightBytes / 1e9;
  EXPECT_NEAR(t.closed.makespan_s, 3 * fwd + upd + 2 * (2 * kWeightBytes / 1e9), 1e-9 * t.closed.makespan_s);
  const topology::TopologyGraph topo(spec);
  replay::SimGridEvaluator simgrid(topo);
  EXPECT_NEAR(simgrid.evaluate(t.program).makespan_s, 3 * fwd + upd + 2 * sync, 1e-6 * t.closed.makespan_s);
}

// Gradient buckets (schedule.gradient_bucket_bytes): with a bucket of 1.5 S per device, fc2's S
// waits for fc1's S and the two go as one all-reduce of 2 S (one flow per direction, reported under
// fc1, the layer that closed it) once fc1's gradient is ready: 3 fwd + 2 upd + 2 AR. A bucket larger
// than all gradients (10 S) is all-reduced after back-propagation: the same. A 1-byte bucket holds
// one layer each: the concurrent all-reduces of DataParallelByHand.
TEST(ShardingLowering, GradientBucketsFuseTheAllReducesByHand) {
  const auto spec = fixtures::star(2);
  const auto g = fixtures::two_fc();
  const plan::Sharding dp = plan::mesh_sharding({}, {{ShardDim::batch, 2}});
  const double fwd = kFwdFlops / 2 / 1e12, upd = kUpdFlops / 2 / 1e12;
  const double allreduce = kWeightBytes / 1e9;
  for (double bucket : {1.5 * kWeightBytes, 10 * kWeightBytes}) {
    plan::Plan p = plan_of(g, {dp, dp, dp});
    p.schedule.gradient_bucket_bytes = bucket;
    const Timed t = lower(p, spec, g);
    EXPECT_EQ(t.transfers.count("gradient all-reduce"), 0u) << bucket;
    EXPECT_EQ(t.transfers.at("gradient all-reduce (bucket of 2 layers)"), 2) << bucket;
    for (const auto& task : t.program.tasks())
      if (task.kind == program::TaskKind::transfer) {
        EXPECT_EQ(t.program.layer_names()[static_cast<std::size_t>(task.layer)], "fc1");
        EXPECT_DOUBLE_EQ(task.bytes, 2 * kWeightBytes);
      }
    EXPECT_NEAR(t.closed.makespan_s, 3 * fwd + 2 * upd + 2 * allreduce, 1e-9 * t.closed.makespan_s) << bucket;
  }
  plan::Plan p = plan_of(g, {dp, dp, dp});
  p.schedule.gradient_bucket_bytes = 1;
  const Timed t = lower(p, spec, g);
  EXPECT_EQ(t.transfers.at("gradient all-reduce"), 4);
  EXPECT_NEAR(t.closed.makespan_s, 3 * fwd + 2 * upd + allreduce, 1e-9 * t.closed.makespan_s);
}

// Model parallelism (out_channels over 2 devices): fc2 needs the half of fc1's output it lacks
// (64 x 512 x 2 B = 65,536 B = 65.5 us at 1 GB/s, both directions at once); in BWD fc2's input error
// is a partial sum over its output half, sent back to fc1's owners (65.5 us again). No weight is
// replicated, so no all-reduce. The input x is batch-split: fc1's devices each fetch the other's
// half batch (32 x 1024 x 2 B = 65.5 us).
TEST(ShardingLowering, ModelParallelRedistributesByHand) {
  const auto spec = fixtures::star(2);
  const auto g = fixtures::two_fc();
  const plan::Sharding mp = plan::mesh_sharding({}, {{ShardDim::out_channels, 2}});
  const plan::Sharding dp = plan::mesh_sharding({}, {{ShardDim::batch, 2}});
  const Timed t = lower(plan_of(g, {dp, mp, mp}), spec, g);
  EXPECT_EQ(t.transfers.at("input from x"), 2);
  EXPECT_EQ(t.transfers.at("input from fc1"), 2);
  EXPECT_EQ(t.transfers.at("error to fc1"), 2);
  EXPECT_EQ(t.transfers.count("gradient all-reduce"), 0u);
  const double hop = 65536 / 1e9;
  const double fwd = kFwdFlops / 2 / 1e12, upd = kUpdFlops / 2 / 1e12;
  // x -> fc1 FWD -> fetch -> fc2 FWD -> fc2 BWD -> send -> fc1 UPD; fc2 UPD runs on the device
  // while the error travels (device order: fc2 BWD, fc2 UPD, then fc1 UPD).
  const double expected = hop + fwd + hop + fwd + fwd + std::max(upd, hop) + upd;
  EXPECT_NEAR(t.closed.makespan_s, expected, 1e-9 * expected);
}

// schedule.redistribution collective on 4 devices: x batch-split, fc1 and fc2 split 4 ways on
// out_channels. fc2 needs all of fc1's output, held as 4 equal quarters (64 x 256 x 2 B = 32,768 B):
// an all-gather, a ring over the devices in index order, 3 steps of a quarter merged into one flow
// per ring pair (98,304 B: 98.3 us at 1 GB/s) instead of 12 point-to-point transfers; in BWD each
// fc2 device's error for all of fc1's output is reduce-scattered onto fc1's owners the same way.
// x is the graph's input and stays point to point (each device fetches 3 quarter batches, 3 x
// 32.8 us on its one link). The closed form is the same either way on the star (each device's link
// carries 3 quarters in and out), by hand: 3 hops + fc1 FWD + 3 hops + fc2 FWD + fc2 BWD +
// max(fc2 UPD, 3 hops) + fc1 UPD.
TEST(ShardingLowering, CollectiveRedistributionIsAnAllGatherAndAReduceScatterByHand) {
  const auto spec = fixtures::star(4);
  const auto g = fixtures::two_fc();
  const plan::Sharding mp = plan::mesh_sharding({}, {{ShardDim::out_channels, 4}});
  const plan::Sharding dp = plan::mesh_sharding({}, {{ShardDim::batch, 4}});
  plan::Plan p = plan_of(g, {dp, mp, mp});
  const Timed point = lower(p, spec, g);
  p.schedule.redistribution = plan::Redistribution::collective;
  const Timed collective = lower(p, spec, g);
  EXPECT_EQ(point.transfers.at("input from fc1"), 12);
  EXPECT_EQ(point.transfers.at("error to fc1"), 12);
  EXPECT_EQ(collective.transfers.count("input from fc1"), 0u);
  EXPECT_EQ(collective.transfers.at("input from fc1 (all-gather)"), 4);
  EXPECT_EQ(collective.transfers.at("error to fc1 (reduce-scatter)"), 4);
  EXPECT_EQ(collective.transfers.at("input from x"), 12);  // the graph's input: point to point
  for (const auto& task : collective.program.tasks())
    if (task.label == "input from fc1 (all-gather)" || task.label == "error to fc1 (reduce-scatter)") {
      EXPECT_DOUBLE_EQ(task.bytes, 3 * 32768.0);
      EXPECT_EQ(task.dst.device, (task.src.device + 1) % 4);  // the ring in device order
    }
  const double hops = 3 * 32768 / 1e9;
  const double fwd = kFwdFlops / 4 / 1e12, upd = kUpdFlops / 4 / 1e12;
  const double expected = hops + fwd + hops + fwd + fwd + std::max(upd, hops) + upd;
  EXPECT_NEAR(point.closed.makespan_s, expected, 1e-9 * expected);
  EXPECT_NEAR(collective.closed.makespan_s, expected, 1e-9 * expected);
}

// The count behind simrun's and simplan's warning of a replay that takes minutes
// (lowering/redistribution_check.hpp): every point-to-point redistribution transfer (the 12 of x to
// fc1, 12 of fc1 to fc2, 12 errors back to fc1), none of the collective ones.
TEST(ShardingLowering, CountsPointToPointRedistributionTransfers) {
  const auto spec = fixtures::star(4);
  const auto g = fixtures::two_fc();
  const plan::Sharding mp = plan::mesh_sharding({}, {{ShardDim::out_channels, 4}});
  const plan::Sharding dp = plan::mesh_sharding({}, {{ShardDim::batch, 4}});
  plan::Plan p = plan_of(g, {dp, mp, mp});
  EXPECT_EQ(lowering::point_to_point_redistribution_transfers(lower(p, spec, g).program), 36u);
  p.schedule.redistribution = plan::Redistribution::collective;
  const program::Program collective = lower(p, spec, g).program;
  EXPECT_EQ(lowering::point_to_point_redistribution_transfers(collective), 12u);  // x's: the graph's input
  // By identity, not label: x's transfers are a point-to-point redistribution, fc1's all-gathers and
  // reduce-scatters are collectives of those kinds (their labels end in "(all-gather)" and
  // "(reduce-scatter)" but nothing reads that).
  std::map<std::string, std::set<collectives::Kind>> kinds;  // by label
  for (const program::Task& task : collective.tasks()) {
    if (task.kind != program::TaskKind::transfer) continue;
    const program::CollectiveInstance* c = collective.collective_of(task);
    ASSERT_NE(c, nullptr) << task.label.str();
    kinds[task.label.str()].insert(c->kind);
    EXPECT_EQ(lowering::is_point_to_point_redistribution(collective, task), task.label == "input from x");
  }
  EXPECT_EQ(kinds.at("input from x"), std::set<collectives::Kind>{collectives::Kind::redistribution});
  EXPECT_EQ(kinds.at("input from fc1 (all-gather)"), std::set<collectives::Kind>{collectives::Kind::all_gather});
  EXPECT_EQ(kinds.at("error to fc1 (reduce-scatter)"), std::set<collectives::Kind>{collectives::Kind::reduce_scatter});
}

TEST(RedistributionWarning, OnlyOverTheThresholdAndNamingTheOptionOnlyForPointToPointPlans) {
  using lowering::kRedistributionWarningTransfers;
  using lowering::redistribution_transfer_warning;
  EXPECT_FALSE(redistribution_transfer_warning(0, plan::Redistribution::point_to_point));
  EXPECT_FALSE(redistribution_transfer_warning(kRedistributionWarningTransfers, plan::Redistribution::point_to_point));
  const auto over = redistribution_transfer_warning(kRedistributionWarningTransfers + 1, plan::Redistribution::point_to_point);
  ASSERT_TRUE(over);
  EXPECT_NE(over->find("200,001 point-to-point redistribution transfers"), std::string::npos) << *over;
  EXPECT_NE(over->find("may take minutes"), std::string::npos) << *over;
  EXPECT_NE(over->find("--redistribution collective"), std::string::npos) << *over;
  // Already collective (the rest stays point to point): said, with no advice to do what was done.
  const auto already = redistribution_transfer_warning(1'234'567, plan::Redistribution::collective);
  ASSERT_TRUE(already);
  EXPECT_NE(already->find("1,234,567"), std::string::npos) << *already;
  EXPECT_EQ(already->find("--redistribution collective"), std::string::npos) << *already;
}

// fc1 split 4 ways on in_channels: its partial sums are reduce-scattered into 4 equal slices; in
// BWD every device needs the error of fc1's whole output for its partial product, held as those
// slices: an all-gather (4 merged ring flows of 3 slices, 64 x 256 x 2 B each) under
// schedule.redistribution collective, 12 transfers point to point.
TEST(ShardingLowering, CollectiveRedistributionAllGathersTheErrorOfASplitReduction) {
  const auto spec = fixtures::star(4);
  const auto g = fixtures::two_fc();
  const plan::Sharding in = plan::mesh_sharding({}, {{ShardDim::in_channels, 4}});
  const plan::Sharding dp = plan::mesh_sharding({}, {{ShardDim::batch, 4}});
  plan::Plan p = plan_of(g, {dp, in, dp});
  EXPECT_EQ(lower(p, spec, g).transfers.at("error of fc1"), 12);
  p.schedule.redistribution = plan::Redistribution::collective;
  const Timed t = lower(p, spec, g);
  EXPECT_EQ(t.transfers.count("error of fc1"), 0u);
  EXPECT_EQ(t.transfers.at("error of fc1 (all-gather)"), 4);
  for (const auto& task : t.program.tasks())
    if (task.label == "error of fc1 (all-gather)") {
      EXPECT_DOUBLE_EQ(task.bytes, 3 * 32768.0);
    }
}

// With unequal pieces (fc1 split 3 : 1) the redistribution is not a collective's shape: it stays
// point to point under schedule.redistribution collective too.
TEST(ShardingLowering, CollectiveRedistributionLeavesUnequalPiecesPointToPoint) {
  const auto spec = fixtures::star(2);
  const auto g = fixtures::two_fc();
  const plan::Sharding mp = plan::mesh_sharding({}, {{ShardDim::out_channels, 2}});
  plan::Sharding uneven = mp;
  uneven.splits.at(0).shares = {0.75, 0.25};
  const plan::Sharding dp = plan::mesh_sharding({}, {{ShardDim::batch, 2}});
  plan::Plan p = plan_of(g, {dp, uneven, mp});
  p.schedule.redistribution = plan::Redistribution::collective;
  const Timed t = lower(p, spec, g);
  EXPECT_EQ(t.transfers.at("input from fc1"), 2);
  EXPECT_EQ(t.transfers.count("input from fc1 (all-gather)"), 0u);
}

// The output a device computes, and the input window it reads, for a strided convolution.
TEST(LayerGeometry, ConvolutionReadsItsWindowAndConcatItsSlot) {
  workloads::NetBuilder b("geo", "");
  const std::string x = b.input("x", {3, 8, 8});
  const std::string c = b.conv("c", x, 4, 3, 2, 1, false);  // 3x3, stride 2, pad 1: 8x8 -> 4x4
  b.concat("cat", {c, c});
  const workloads::Graph g = b.build(2);
  const auto& conv = g.layer("c");
  const plan::LoopExtent e = geometry::loop_extent(conv, 2);
  EXPECT_EQ(e.out_channels, 4);
  EXPECT_EQ(e.in_channels, 3);
  EXPECT_EQ(e.height, 4);
  // Output rows 2..3 read input rows 2*2-1 = 3 .. (3*2-1)+3 = 8.
  plan::LoopBox box{{0, 2}, {0, 4}, {0, 3}, {2, 4}, {0, 4}};
  const auto in = geometry::input_box(conv, 0, box, e, 2);
  EXPECT_EQ(in.height, (plan::Range{3, 8}));
  EXPECT_EQ(in.width, (plan::Range{0, 8}));
  EXPECT_EQ(geometry::output_box(conv, box, e, 2).height, (plan::Range{2, 4}));
  EXPECT_DOUBLE_EQ(geometry::work_fraction(conv, box, e), 0.5);
  // concat of two 4-channel inputs: output channels 2..6 read channels 2..4 of slot 0, 0..2 of slot 1.
  const auto& cat = g.layer("cat");
  const plan::LoopExtent ce = geometry::loop_extent(cat, 2);
  plan::LoopBox cb{{0, 2}, {2, 6}, {0, 8}, {0, 4}, {0, 4}};
  EXPECT_EQ(geometry::input_box(cat, 0, cb, ce, 2).channel, (plan::Range{2, 4}));
  EXPECT_EQ(geometry::input_box(cat, 1, cb, ce, 2).channel, (plan::Range{0, 2}));
}

// A slice reads its input shifted by `begin` along the cut axis: output channels 32..64 of k (input
// channels 128..256 of qkv) read qkv's 160..192; a height slice of rows 4..8 reads rows 4+1..4+3
// for its output rows 1..3.
TEST(LayerGeometry, SliceReadsItsInputShiftedByBegin) {
  workloads::NetBuilder b("geo", "");
  const std::string qkv = b.fc("qkv", b.input("x", {128, 16, 1}), 384);
  b.slice("k", qkv, workloads::ShapeAxis::channels, 128, 256);
  b.slice("rows", qkv, workloads::ShapeAxis::height, 4, 8);
  const workloads::Graph g = b.build(2);
  const auto& k = g.layer("k");
  const plan::LoopExtent e = geometry::loop_extent(k, 2);
  plan::LoopBox box{{0, 2}, {32, 64}, {32, 64}, {0, 16}, {0, 1}};
  const auto in = geometry::input_box(k, 0, box, e, 2);
  EXPECT_EQ(in.channel, (plan::Range{160, 192}));
  EXPECT_EQ(in.height, (plan::Range{0, 16}));
  const auto& rows = g.layer("rows");
  const plan::LoopExtent re = geometry::loop_extent(rows, 2);
  plan::LoopBox rbox{{0, 2}, {0, 384}, {0, 384}, {1, 3}, {0, 1}};
  const auto rin = geometry::input_box(rows, 0, rbox, re, 2);
  EXPECT_EQ(rin.height, (plan::Range{5, 7}));
  EXPECT_EQ(rin.channel, (plan::Range{0, 384}));
}

// Partial sums (in_channels split) are reduce-scattered on a ring: with 2 devices, one step of half
// the output each way (64 x 1024 / 2 x 2 B = 65,536 B, 65.5 us); each device then owns half.
TEST(ShardingLowering, SplitReductionIsReduceScattered) {
  const auto spec = fixtures::star(2);
  const auto g = fixtures::two_fc();
  const plan::Sharding in = plan::mesh_sharding({}, {{ShardDim::in_channels, 2}});
  const plan::Sharding dp = plan::mesh_sharding({}, {{ShardDim::batch, 2}});
  plan::Plan p = plan_of(g, {dp, in, dp});
  p.workload.mode = plan::Mode::inference;
  const Timed t = lower(p, spec, g);
  EXPECT_EQ(t.transfers.at("partial-sum reduce-scatter"), 2);
  for (const auto& task : t.program.tasks()) {
    if (task.label == "partial-sum reduce-scatter") {
      EXPECT_DOUBLE_EQ(task.bytes, 65536);
    }
  }
}

// Every layer the planner charges has work: a layer norm straight on the workload's input gets
// its FWD, its gradient (UPD, gamma and beta) and the all-reduce of those 2 x 16 parameters.
TEST(ShardingLowering, LayerNormOnTheInputHasWork) {
  workloads::NetBuilder b("ln", "");
  const std::string x = b.input("x", {16, 4, 1});
  const std::string n = b.layer_norm("ln", x);
  b.fc("fc", n, 8, false);
  const workloads::Graph g = b.build(4);
  const auto spec = fixtures::star(2);
  const plan::Sharding dp = plan::mesh_sharding({}, {{ShardDim::batch, 2}});
  const Timed t = lower(plan_of(g, {dp, dp, dp}), spec, g);
  std::map<std::pair<std::string, plan::Pass>, int> tasks;
  for (const auto& task : t.program.tasks()) ++tasks[{t.program.layer_names()[static_cast<std::size_t>(task.layer)], task.pass}];
  EXPECT_GT((tasks[{"ln", plan::Pass::fwd}]), 0);
  EXPECT_GT((tasks[{"ln", plan::Pass::upd}]), 0);
  for (const auto& task : t.program.tasks()) {
    if (task.label == "gradient all-reduce" && t.program.layer_names()[static_cast<std::size_t>(task.layer)] == "ln") {
      EXPECT_DOUBLE_EQ(task.bytes, 2 * 16 * 2.0);  // (gamma + beta) x 2 B, one flow of both ring steps
    }
  }
}

TEST(ShardingLowering, InvalidShardingNamesTheLayer) {
  const auto spec = fixtures::star(2);
  const auto g = fixtures::two_fc();
  const plan::Sharding dp = plan::mesh_sharding({}, {{ShardDim::batch, 2}});
  const plan::Sharding bad = plan::mesh_sharding({0, 5}, {{ShardDim::batch, 2}});
  try {
    lower(plan_of(g, {dp, bad, dp}), spec, g);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "plan: /layers/1/sharding ('fc1'): device 5 does not exist (the platform has 2 devices: 0..1)");
  }
}

// simplan's warning (planner::prediction_warnings): the device model's compute of the plan's shards
// against the plan's own. Data parallelism on 2 devices of two_fc: every pass of a shard is
// compute-bound at 1000 GB/s (FWD: 67.1 us of FLOPs, 2.23 us of memory), so the device model gives
// 3 x 67.076 + 2 x 66.585 = 334.4 us, the FLOPs at peak. At 1 GB/s every pass reads and writes
// (32 x 1024 + 1024 x 1024 + 32 x 1024) x 2 B = 2,228,224 B: 2.228 ms, five passes (fc2 FWD, BWD,
// UPD; fc1 FWD, UPD): 11.141 ms, of which 11.141 - 0.334 ms is the memory term.
TEST(PredictionCheck, MemoryBoundShardsAreNamedWithTheirSize) {
  const auto g = fixtures::two_fc();
  const plan::Sharding dp = plan::mesh_sharding({}, {{ShardDim::batch, 2}});
  plan::Plan p = plan_of(g, {dp, dp, dp});
  const double flops_s = (3 * kFwdFlops + 2 * kUpdFlops) / 2 / 1e12;
  p.layers[1].predicted.compute_s = flops_s / 2;  // what a FLOPs-at-peak model charges
  p.layers[2].predicted.compute_s = flops_s / 2;
  p.layers[1].predicted.comm_s = kWeightBytes / 1e9;  // each all-reduce's bytes on a device's link
  p.layers[2].predicted.comm_s = kWeightBytes / 1e9;
  p.predicted_iteration_s = flops_s + 2 * kWeightBytes / 1e9 + 2.1e-3;
  const auto fast = planner::check_compute(p, fixtures::star(2), g);
  EXPECT_NEAR(fast.device_compute_s, flops_s, 1e-9 * flops_s);
  EXPECT_NEAR(fast.flops_at_peak_s, flops_s, 1e-9 * flops_s);
  EXPECT_TRUE(planner::prediction_warnings(p, fixtures::star(2), g).empty());
  const auto slow = planner::check_compute(p, fixtures::star(2, "1GB/s"), g);
  EXPECT_NEAR(slow.device_compute_s, 5 * 2228224 / 1e9, 1e-9);
  EXPECT_NEAR(slow.memory_bound_s, 5 * 2228224 / 1e9 - flops_s, 1e-9);
  const auto warnings = planner::prediction_warnings(p, fixtures::star(2, "1GB/s"), g);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("hand's cost model charges 0.334 ms of compute; the platform's device model takes 11.1 ms"),
            std::string::npos)
      << warnings[0];
  EXPECT_NE(warnings[0].find("memory-bound layers"), std::string::npos) << warnings[0];
}

// The communication terms of the same data-parallel plan (planner::check_communication). Each
// layer's gradient all-reduce on a ring of 2 is one flow per direction of S = 2,097,152 B (two
// steps merged, DataParallelByHand), so each device's link to the switch carries 2 S = 4,194,304 B:
// 4.194 ms at 1 GB/s. A plan charging no communication misses all of it, and 4.19 ms is more than
// its 0.434 ms iteration: that cannot hold.
TEST(PredictionCheck, BusiestLinkAgainstPredictedCommunication) {
  const auto g = fixtures::two_fc();
  const plan::Sharding dp = plan::mesh_sharding({}, {{ShardDim::batch, 2}});
  plan::Plan p = plan_of(g, {dp, dp, dp});
  const double flops_s = (3 * kFwdFlops + 2 * kUpdFlops) / 2 / 1e12;  // 0.334 ms, compute-bound
  p.layers[1].predicted.compute_s = p.layers[2].predicted.compute_s = flops_s / 2;
  p.predicted_iteration_s = 0.434e-3;
  const auto c = planner::check_communication(p, fixtures::star(2), g);
  EXPECT_EQ(c.transfers, 4);
  EXPECT_DOUBLE_EQ(c.busiest_link_bytes, 2 * kWeightBytes);
  EXPECT_NEAR(c.busiest_link_s, 4.194304e-3, 1e-12);
  EXPECT_EQ(c.busiest_link, "d0->switch");
  EXPECT_EQ(c.latency_s(), 0);  // the star has no latency
  const auto warnings = planner::prediction_warnings(p, fixtures::star(2), g);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("contention: hand's cost model charges 0 ms of communication, but the busiest link "
                             "(d0->switch) must carry 4.19 MB of the plan's transfers: 4.19 ms at its bandwidth, "
                             "4.19 ms more"),
            std::string::npos)
      << warnings[0];
  EXPECT_NE(warnings[0].find("cannot hold: it misses at least 3.76 ms"), std::string::npos) << warnings[0];
  // Charging the link's bytes (2 x 2.097 ms) silences it.
  p.layers[1].predicted.comm_s = p.layers[2].predicted.comm_s = kWeightBytes / 1e9;
  p.predicted_iteration_s += 2 * kWeightBytes / 1e9;
  EXPECT_TRUE(planner::prediction_warnings(p, fixtures::star(2), g).empty());
}

// A program over the check's task limit is not lowered to the end: nothing is measured, and the
// warning says so instead of guessing (owt's bert_large on 1,024 chips needed 18 GB to lower).
TEST(PredictionCheck, OverTheTaskLimitCommunicationIsNotChecked) {
  const auto g = fixtures::two_fc();
  const plan::Sharding dp = plan::mesh_sharding({}, {{ShardDim::batch, 2}});
  plan::Plan p = plan_of(g, {dp, dp, dp});
  p.layers[1].predicted.compute_s = p.layers[2].predicted.compute_s = (3 * kFwdFlops + 2 * kUpdFlops) / 4 / 1e12;
  p.predicted_iteration_s = 0.434e-3;  // no compute warning (BusiestLinkAgainstPredictedCommunication)
  const auto whole = planner::check_communication(p, fixtures::star(2), g);
  EXPECT_EQ(whole.too_many_tasks, 0u);
  EXPECT_EQ(whole.transfers, 4);
  const auto cut = planner::check_communication(p, fixtures::star(2), g, 3);
  EXPECT_EQ(cut.too_many_tasks, 3u);
  EXPECT_EQ(cut.transfers, 0);
  EXPECT_EQ(cut.busiest_link, "");
  const auto warnings = planner::prediction_warnings(p, fixtures::star(2), g, 0.10, 3);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].rfind("communication not checked: the plan's lowered program has more than 3 tasks", 0), 0u)
      << warnings[0];
  program::Program program;
  program.set_task_limit(1);
  program.add_delay(-1, plan::Pass::fwd, "first", 0, {});
  EXPECT_THROW(program.add_delay(-1, plan::Pass::fwd, "second", 0, {}), program::TaskLimitExceeded);
}

// Link latency: with 50 us per star link a route d0 -> switch -> d1 takes 100 us. fc1's all-reduce
// ends the iteration (DataParallelByHand): its flow pays 100 us and its second, merged ring step
// another 100 us (the lowering's latency delay), so latency adds 4 x 50 = 200 us to the critical
// path, whatever the bandwidth. Against a 1 ms iteration charging no latency that is 20 %; a plan
// that charges it (breakdown "latency_s") is not warned.
TEST(PredictionCheck, LinkLatencyOnTheCriticalPathByHand) {
  const auto g = fixtures::two_fc();
  const auto spec = fixtures::star(2, "1000GB/s", "50us");
  const plan::Sharding dp = plan::mesh_sharding({}, {{ShardDim::batch, 2}});
  plan::Plan p = plan_of(g, {dp, dp, dp});
  const double flops_s = (3 * kFwdFlops + 2 * kUpdFlops) / 2 / 1e12;  // no compute warning
  p.layers[1].predicted.compute_s = p.layers[2].predicted.compute_s = flops_s / 2;
  p.layers[1].predicted.comm_s = p.layers[2].predicted.comm_s = kWeightBytes / 1e9;  // no contention warning
  p.predicted_iteration_s = 1e-3;
  const auto c = planner::check_communication(p, spec, g);
  const double fwd = kFwdFlops / 2 / 1e12, upd = kUpdFlops / 2 / 1e12;
  EXPECT_NEAR(c.closed_form_bandwidth_only_s, 3 * fwd + 2 * upd + kWeightBytes / 1e9, 1e-12);
  EXPECT_NEAR(c.latency_s(), 200e-6, 1e-12);
  auto warnings = planner::prediction_warnings(p, spec, g);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("link latency: the plan's 4 transfers each pay their route's latency, which hand's "
                             "cost model (0 ms of latency charged) leaves out; it adds 0.2 ms to the lowered "
                             "program's critical path"),
            std::string::npos)
      << warnings[0];
  EXPECT_NE(warnings[0].find("20 % of the predicted iteration (1 ms)"), std::string::npos) << warnings[0];
  p.layers[2].predicted.breakdown["latency_s"] = 200e-6;
  EXPECT_TRUE(planner::prediction_warnings(p, spec, g).empty());
}

// Issue 41 item 5: a plan that leaves devices without work says so. two_fc at batch 64 split by
// samples over devices 0-1 of a 4-device star: d2 and d3 get no layer. With every device used (a
// 4-way split) or a plan on devices the platform has all of, nothing is said.
TEST(ShardingLowering, IdleDevicesAreWarnedAbout) {
  const auto g = fixtures::two_fc();
  const auto spec = fixtures::star(4);
  const plan::Sharding half = plan::mesh_sharding({0, 1}, {{ShardDim::batch, 2}});
  EXPECT_EQ(planner::idle_devices_warning(plan_of(g, {half, half, half}), spec, g),
            "2 of 4 devices get no layer of this plan and stay idle (d2, d3)");
  const plan::Sharding all = plan::mesh_sharding({}, {{ShardDim::batch, 4}});
  EXPECT_EQ(planner::idle_devices_warning(plan_of(g, {all, all, all}), spec, g), "");
  // 128 devices, batch 64: a split by samples over devices 0-63 leaves 64 idle and says why.
  const auto wide = fixtures::star(128);
  std::vector<int> first_half(64);
  for (int d = 0; d < 64; ++d) first_half[static_cast<std::size_t>(d)] = d;
  const plan::Sharding by_sample = plan::mesh_sharding(first_half, {{ShardDim::batch, 64}});
  EXPECT_EQ(planner::idle_devices_warning(plan_of(g, {by_sample, by_sample, by_sample}), wide, g),
            "64 of 128 devices get no layer of this plan and stay idle (d64, d65, d66, ..); the batch (64) is smaller "
            "than the 128 devices, so a split by samples cannot reach them all");
}
