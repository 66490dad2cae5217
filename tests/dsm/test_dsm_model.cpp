// Hand-computed checks of the DeepSpatialMatrix performance model (seed 003 §II-D, Fig. 5) on the
// tiny system (tests/dsm/tiny_system.hpp): 2x2 torus, 2 cores/chip, 4x4 array, 1 GHz (1 cycle = 1 ns),
// memory 8 GB/s effective, on-chip 8 GB/s, X 4 GB/s, Y 1 GB/s, 2 bytes per element.
#include <gtest/gtest.h>

#include "sim/planners/dsm/layer_model.hpp"
#include "sim/planners/dsm/transfers.hpp"
#include "tiny_system.hpp"

namespace partsim::dsm {
namespace {

constexpr double kNs = 1e-9;
using testing::kSys;

TEST(DsmPriComp, PadsEachExtentToTheArrayAndAddsStartup) {
  // ArrayD {in 3, out 5, ij 6, kij 2, mb 1}; P = (rows 4, cols 4, simd 1); start-up rows + cols = 8.
  const Split5 a{3, 5, 6, 2, 1};
  // FWD: reduction in*kij = 6 -> ceil(6/4) = 2; column out = 5 -> 2; stream mb*ij = 6 -> 6: 24 + 8.
  EXPECT_DOUBLE_EQ(pricomp_cycles(a, Pass::fwd, kSys.chip.core), 32);
  // BWD: reduction out*kij = 10 -> 3; column in = 3 -> 1; stream 6: 18 + 8.
  EXPECT_DOUBLE_EQ(pricomp_cycles(a, Pass::bwd, kSys.chip.core), 26);
  // UPD: reduction mb*ij = 6 -> 2; column out = 5 -> 2; stream in*kij = 6: 24 + 8.
  EXPECT_DOUBLE_EQ(pricomp_cycles(a, Pass::upd, kSys.chip.core), 32);
  // Unpadded 4x4x1 work needs no padding: 1*1*1 + 8.
  EXPECT_DOUBLE_EQ(pricomp_cycles(Split5{4, 4, 1, 1, 1}, Pass::fwd, kSys.chip.core), 9);
}

DsmLayer fc_layer() {
  DsmLayer L;
  L.name = "fc";
  L.in = 8; L.out = 8; L.ij = 1; L.ij_in = 1; L.kij = 1; L.mb = 16;
  L.out_elements = 8 * 16;
  L.aux[0] = {AuxOp{"relu", 128, 1, 2}};
  L.aux[1] = {AuxOp{"relu", 128, 1, 2}};
  return L;
}

DsmLayer conv_layer() {
  DsmLayer L;
  L.name = "conv";
  L.in = 2; L.out = 4; L.ij = 4; L.ij_in = 4; L.kij = 9; L.mb = 8;
  L.out_elements = 4 * 8 * 4;  // 128
  L.aux[0] = {AuxOp{"relu", 128, 1, 2}};
  L.aux[1] = {AuxOp{"relu", 128, 1, 2}};
  return L;
}

TEST(DsmTotCy, FcDataParallelEachPass) {
  // Data parallel: ChipD mb = 16/4 = 4, ChipD {in 8, out 8, ij 1, kij 1, mb 4}; CoreD split out x2:
  // CoreD {8, 4, 1, 1, 4}.
  const DsmLayer L = fc_layer();
  CoreConfig cfg{Split5{1, 2, 1, 1, 1}, Split5{}};
  // FWD. PriComp: red 8 -> 2, col 4 -> 1, stream 4 -> 4: 8 + 8 = 16 ns.
  // Memory: input 8*4 = 32 + kernel 64 + output 128/4 = 32 -> 128 el = 256 B / 8 GB/s = 32 ns.
  // On chip: input unsplit (64 B) + kernel split 2 (128/2 B) = 128 B / 8 GB/s = 16 ns.
  // Aux relu: 128 / (4 chips * 2 cores) = 16 el/core: SFP 16/4 = 4 ns; spad 2*16*2 B/32 = 2 ns -> 4.
  // TotCy = max(16, 32) + 4 + 0 = 36 ns.
  PassCost f = evaluate_pass(L, Pass::fwd, ChipSplit::data, cfg, {}, kSys);
  EXPECT_NEAR(f.pricomp, 16 * kNs, 1e-15);
  EXPECT_NEAR(f.overlapped.memory, 256, 1e-9);
  EXPECT_NEAR(f.overlapped.on_chip, 128, 1e-9);
  EXPECT_NEAR(f.ovl, 32 * kNs, 1e-15);
  EXPECT_NEAR(f.aux, 4 * kNs, 1e-15);
  EXPECT_NEAR(f.total, 36 * kNs, 1e-15);
  // Useful MACs 8*8*16 = 1024; peak 4 chips * 2 cores * 16 MAC/ns = 128 MAC/ns -> 8 ns busy.
  EXPECT_NEAR(f.mac_busy, 8 * kNs, 1e-15);

  // BWD. PriComp: red out*kij = 4 -> 1, col in = 8 -> 2, stream 4: 8 + 8 = 16 ns.
  // Memory: error 32 + kernel 64 + input error 32 = 256 B -> 32 ns.
  // PartialSumAcc: out split 2 -> the cores hold partial input errors of in*mb = 32 el = 64 B:
  // (2-1)/2 * 64 B / 8 GB/s = 4 ns. TotCy = 32 + 4 (relu') + 4 = 40 ns.
  PassCost b = evaluate_pass(L, Pass::bwd, ChipSplit::data, cfg, {}, kSys);
  EXPECT_NEAR(b.pricomp, 16 * kNs, 1e-15);
  EXPECT_NEAR(b.partial_sum, 4 * kNs, 1e-15);
  EXPECT_NEAR(b.total, 40 * kNs, 1e-15);

  // UPD. PriComp: red mb*ij = 4 -> 1, col out 4 -> 1, stream in*kij = 8: 8 + 8 = 16 ns.
  // Memory: input 32 + error 8*4 = 32 + gradient 64 = 256 B -> 32 ns. No partial sums.
  PassCost u = evaluate_pass(L, Pass::upd, ChipSplit::data, cfg, {}, kSys);
  EXPECT_NEAR(u.pricomp, 16 * kNs, 1e-15);
  EXPECT_NEAR(u.partial_sum, 0, 1e-15);
  EXPECT_NEAR(u.total, 32 * kNs, 1e-15);
}

TEST(DsmTotCy, ConvDataParallelEachPass) {
  // Conv in 2, out 4, 2x2 output (ij 4), 3x3 kernel (kij 9), mb 8; data parallel: ChipD mb 2;
  // CoreD split ij x2: CoreD {2, 4, 2, 9, 2}.
  const DsmLayer L = conv_layer();
  CoreConfig cfg{Split5{1, 1, 2, 1, 1}, Split5{}};
  // FWD. PriComp: red in*kij = 18 -> 5, col 4 -> 1, stream mb*ij = 4 -> 4: 20 + 8 = 28 ns.
  // Memory: input 2*2*4 = 16 + kernel 72 + output 128/4 = 32 -> 120 el = 240 B -> 30 ns.
  // On chip: input split 2 (32/2 = 16 B) + kernel shared (144 B) = 160 B -> 20 ns.
  // TotCy = max(28, 30) + 4 = 34 ns.
  PassCost f = evaluate_pass(L, Pass::fwd, ChipSplit::data, cfg, {}, kSys);
  EXPECT_NEAR(f.pricomp, 28 * kNs, 1e-15);
  EXPECT_NEAR(f.overlapped.memory, 240, 1e-9);
  EXPECT_NEAR(f.overlapped.on_chip, 160, 1e-9);
  EXPECT_NEAR(f.total, 34 * kNs, 1e-15);
  // BWD. PriComp: red out*kij = 36 -> 9, col in 2 -> 1, stream 4: 36 + 8 = 44 ns > memory 30 ns.
  // TotCy = 44 + 4 = 48 ns.
  PassCost b = evaluate_pass(L, Pass::bwd, ChipSplit::data, cfg, {}, kSys);
  EXPECT_NEAR(b.pricomp, 44 * kNs, 1e-15);
  EXPECT_NEAR(b.total, 48 * kNs, 1e-15);
  // UPD. PriComp: red mb*ij = 4 -> 1, col out 4 -> 1, stream in*kij = 18: 18 + 8 = 26 ns.
  // Memory: input 16 + error 4*2*4 = 32 + gradient 72 = 120 el -> 30 ns.
  // PartialSumAcc: ij split 2 = reduction split; gradient tile 4*2*9 = 72 el = 144 B:
  // 1/2 * 144 / 8 GB/s = 9 ns. TotCy = 30 + 9 = 39 ns.
  PassCost u = evaluate_pass(L, Pass::upd, ChipSplit::data, cfg, {}, kSys);
  EXPECT_NEAR(u.pricomp, 26 * kNs, 1e-15);
  EXPECT_NEAR(u.partial_sum, 9 * kNs, 1e-15);
  EXPECT_NEAR(u.total, 39 * kNs, 1e-15);
}

// PartialSumAcc of normalizations (seed 003 Fig. 5 (ii), (iii)): an all-reduce of the partial
// statistics among the cores that split the reduced dimension, = 2 x (k-1)/k x bytes / 8 GB/s (no
// on-chip latency on the tiny system).
TEST(DsmTransfers, NormalizationStatisticsAreAllReducedBetweenCores) {
  // fc_layer data parallel: per chip mb 4, CoreD out x2 -> per core {in 8, out 4, mb 4}.
  DsmLayer L = fc_layer();
  const CoreConfig out_split{Split5{1, 2, 1, 1, 1}, Split5{}};
  const CoreConfig mb_split{Split5{1, 1, 1, 1, 2}, Split5{}};
  const double fwd_alone = evaluate_pass(L, Pass::fwd, ChipSplit::data, out_split, {}, kSys).partial_sum;
  EXPECT_NEAR(fwd_alone, 0, 1e-18);  // a relu reduces nothing
  // Softmax over the 8 features: cores split out, so each holds a partial exponent sum for each of
  // its mb*ij = 4 positions: 4 values x 2 B = 8 B; all-reduce over k = 2: 2 x 1/2 x 8 B / 8 GB/s = 1 ns.
  L.aux[0].push_back(AuxOp{"prob", 128, 5, 2, AuxReduction::over_features, 1});
  EXPECT_NEAR(evaluate_pass(L, Pass::fwd, ChipSplit::data, out_split, {}, kSys).partial_sum, 1 * kNs, 1e-18);
  // Split over mb instead, every core has all features of its samples: nothing to reduce.
  EXPECT_NEAR(evaluate_pass(L, Pass::fwd, ChipSplit::data, mb_split, {}, kSys).partial_sum, 0, 1e-18);
  // Batch norm over (mb, ij): with mb split 2, each core holds mean and variance partials of its
  // out = 8 features: 16 values = 32 B: 2 x 1/2 x 32 B / 8 GB/s = 4 ns (plus softmax: 0 here).
  L.aux[0].push_back(AuxOp{"bn", 128, 4, 2, AuxReduction::over_samples, 2});
  EXPECT_NEAR(evaluate_pass(L, Pass::fwd, ChipSplit::data, mb_split, {}, kSys).partial_sum, 4 * kNs, 1e-18);
  // With out split 2 instead: softmax 1 ns, batch norm none (every core has all samples).
  const PassCost both = evaluate_pass(L, Pass::fwd, ChipSplit::data, out_split, {}, kSys);
  EXPECT_NEAR(both.partial_sum, 1 * kNs, 1e-18);
  // Not overlapped: TotCy grows by it (36 ns of FcDataParallelEachPass + SFP time of the new ops).
  const PassCost none = [&] {
    DsmLayer plain = L;
    for (auto& op : plain.aux[0]) op.reduction = AuxReduction::none;
    return evaluate_pass(plain, Pass::fwd, ChipSplit::data, out_split, {}, kSys);
  }();
  EXPECT_NEAR(both.total - none.total, 1 * kNs, 1e-18);
}

TEST(DsmTransfers, GradientReductionYIsOneMthOfX) {
  // Conv gradient 72 el = 144 B per chip, data parallel on 2 x 2 (M = N = 2).
  const GradientTraffic g = gradient_reduction(144, ChipSplit::data, kSys);
  EXPECT_DOUBLE_EQ(g.sum_x, 72);        // reduce-scatter along X: (2-1)/2 * 144
  EXPECT_DOUBLE_EQ(g.sum_y, 36);        // along Y on the 144/2 left: (2-1)/2 * 72
  EXPECT_DOUBLE_EQ(g.broadcast_y, 36);
  EXPECT_DOUBLE_EQ(g.broadcast_x, 72);
  // seed 003 §III-A: Y carries 1/M of X's gradient traffic.
  EXPECT_DOUBLE_EQ(g.loads.y, g.loads.x / kSys.M);
  // Group: X 144 B / 4 GB/s = 36 ns, Y 72 B / 1 GB/s = 72 ns, memory 2*144 / 8 = 36 ns -> 72 ns.
  EXPECT_NEAR(group_time(g.loads, kSys), 72 * kNs, 1e-15);
  // DataXModelY reduces along X only, ModelXDataY along Y only, model not at all.
  EXPECT_DOUBLE_EQ(gradient_reduction(144, ChipSplit::data_x_model_y, kSys).loads.y, 0);
  EXPECT_DOUBLE_EQ(gradient_reduction(144, ChipSplit::data_x_model_y, kSys).loads.x, 144);
  EXPECT_DOUBLE_EQ(gradient_reduction(144, ChipSplit::model_x_data_y, kSys).loads.x, 0);
  EXPECT_DOUBLE_EQ(gradient_reduction(144, ChipSplit::model, kSys).loads.memory, 0);
}

TEST(DsmTransfers, RotationOverlappedInFwdUpdNotBwd) {
  // FC model parallel: ChipD out 8/4 = 2, all 16 samples; each chip owns 8*16/4 = 32 input el
  // = 64 B. M*N = 4 iterations: N(M-1) = 2 steps along X, N-1 = 1 along Y (seed 003 §II-D).
  const RotationSteps r = rotation_steps(ChipSplit::model, 2, 2);
  EXPECT_EQ(r.x, 2);
  EXPECT_EQ(r.y, 1);
  // 2 * 64 B / 4 GB/s + 1 * 64 B / 1 GB/s = 32 + 64 = 96 ns.
  EXPECT_NEAR(rotation_time(64, ChipSplit::model, kSys), 96 * kNs, 1e-15);
  const DsmLayer L = fc_layer();
  CoreConfig cfg{Split5{1, 1, 1, 1, 2}, Split5{}};
  PassCost f = evaluate_pass(L, Pass::fwd, ChipSplit::model, cfg, {}, kSys);
  EXPECT_NEAR(f.rotation, 96 * kNs, 1e-15);
  EXPECT_NEAR(f.ovl, 96 * kNs, 1e-15);       // overlapped: part of OvlDt
  EXPECT_NEAR(f.non_ovl, 0, 1e-15);
  PassCost b = evaluate_pass(L, Pass::bwd, ChipSplit::model, cfg, {}, kSys);
  EXPECT_NEAR(b.non_ovl, 96 * kNs, 1e-15);   // BWD: partial outputs rotate, not overlapped
  PassCost u = evaluate_pass(L, Pass::upd, ChipSplit::model, cfg, {}, kSys);
  EXPECT_NEAR(u.ovl, 96 * kNs, 1e-15);
  // Hybrids rotate along one axis only: DataXModelY along Y (N-1 = 1), ModelXDataY along X (M-1).
  EXPECT_EQ(rotation_steps(ChipSplit::data_x_model_y, 2, 2).y, 1);
  EXPECT_EQ(rotation_steps(ChipSplit::data_x_model_y, 2, 2).x, 0);
  EXPECT_EQ(rotation_steps(ChipSplit::model_x_data_y, 2, 2).x, 1);
}

TEST(DsmTransfers, RelayoutIsAnAllToAllAlongTheAxesThatChange) {
  // FC output 128 el = 256 B; 64 B per chip.
  // data -> model: both axes change. X: all-to-all of 64 B among 2: piece 32 B crosses 1 link
  // -> 32 B / 4 GB/s = 8 ns; then Y: 32 B / 1 GB/s = 32 ns (axes one after the other, as
  // sim/collectives' torus all-to-all); memory 2*64 B / 8 GB/s = 16 ns -> max(8 + 32, 16) = 40 ns.
  LinkLoads l = relayout(256, ChipSplit::data, ChipSplit::model, kSys);
  EXPECT_DOUBLE_EQ(l.x, 32);
  EXPECT_DOUBLE_EQ(l.y, 32);
  EXPECT_NEAR(group_time(l, kSys), 40 * kNs, 1e-15);
  // data -> DataXModelY: only Y changes.
  LinkLoads h = relayout(256, ChipSplit::data, ChipSplit::data_x_model_y, kSys);
  EXPECT_DOUBLE_EQ(h.x, 0);
  EXPECT_DOUBLE_EQ(h.y, 32);
  EXPECT_DOUBLE_EQ(relayout(256, ChipSplit::model, ChipSplit::model, kSys).memory, 0);
  // All-to-all along a ring of 4, one direction: piece b/4 crosses 1+2+3 links: 6/4 b; both
  // directions (shortest way): 1+2+1 hops: b.
  EXPECT_DOUBLE_EQ(ring_all_to_all_link_bytes(400, 4, false), 600);
  EXPECT_DOUBLE_EQ(ring_all_to_all_link_bytes(400, 4, true), 400);
  // Reduce-scatter on a bidirectional ring of 4 splits over both directions: 3/4 * 400 / 2.
  EXPECT_DOUBLE_EQ(ring_reduce_scatter_link_bytes(400, 4, true), 150);
}

TEST(DsmTransfers, MemoryReuseFlagsRemoveFetches) {
  // FC FWD with the input held in the scratchpad: memory 256 - 64 = 192 B -> 24 ns.
  const DsmLayer L = fc_layer();
  CoreConfig cfg{Split5{1, 2, 1, 1, 1}, Split5{}};
  PassFlags flags;
  flags.fetch_a = false;
  PassCost f = evaluate_pass(L, Pass::fwd, ChipSplit::data, cfg, flags, kSys);
  EXPECT_NEAR(f.overlapped.memory, 192, 1e-9);
  // Now PriComp (16 ns) and the on-chip kernel multicast (64 B = 8 ns) are below memory (24 ns).
  EXPECT_NEAR(f.total, 28 * kNs, 1e-15);
}

TEST(DsmAuxComp, SlowerOfSfpThroughputAndScratchpadBandwidth) {
  // 16 elements on a core; SFP 4 ops/ns; scratchpad 32 B/ns.
  // 1 op, 3 accesses: SFP 16/4 = 4 ns, scratchpad 3*16*2/32 = 3 ns -> 4 ns.
  EXPECT_NEAR(aux_seconds(AuxOp{"add", 0, 1, 3}, 16, kSys), 4 * kNs, 1e-15);
  // 0.5 op: SFP 2 ns < scratchpad 3 ns -> 3 ns.
  EXPECT_NEAR(aux_seconds(AuxOp{"add", 0, 0.5, 3}, 16, kSys), 3 * kNs, 1e-15);
}

TEST(DsmWorkSplit, HybridSplitsDivideTheTorusAxes) {
  // fc in 8, out 8, mb 16 on 2 x 2: DataXModelY gives mb/M = 8 and out/N = 4 per chip;
  // ModelXDataY out/M = 4, mb/N = 8; model out/4 = 2; data mb/4 = 4.
  const DsmLayer L = fc_layer();
  const CoreConfig cfg{Split5{1, 1, 1, 1, 2}, Split5{}};
  EXPECT_EQ(work_split(L, ChipSplit::data_x_model_y, cfg, 2, 2).chip.mb, 8);
  EXPECT_EQ(work_split(L, ChipSplit::data_x_model_y, cfg, 2, 2).chip.out, 4);
  EXPECT_EQ(work_split(L, ChipSplit::model_x_data_y, cfg, 2, 2).chip.out, 4);
  EXPECT_EQ(work_split(L, ChipSplit::model, cfg, 2, 2).chip.out, 2);
  const WorkSplit d = work_split(L, ChipSplit::data, cfg, 2, 2);
  EXPECT_EQ(d.chip.mb, 4);
  EXPECT_EQ(d.core.mb, 2);  // CoreD: mb 4 over 2 cores
  // One core: nothing crosses the on-chip ring; shared data loads the first link fully.
  EXPECT_DOUBLE_EQ(on_chip_fetch_link_bytes(100, 1, 1), 0);
  EXPECT_DOUBLE_EQ(on_chip_fetch_link_bytes(100, 1, 2), 100);
  EXPECT_DOUBLE_EQ(on_chip_fetch_link_bytes(100, 4, 8), 50);
}

}  // namespace
}  // namespace partsim::dsm
