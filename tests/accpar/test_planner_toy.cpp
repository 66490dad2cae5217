// The hierarchical time model and the planners on hand-built toys (seed 000 §4-§5).

#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "sim/planners/accpar/accpar_planner.hpp"
#include "sim/planners/accpar/search.hpp"
#include "sim/common/error.hpp"
#include "topology/system_parser.hpp"
#include "workloads/zoo.hpp"

using namespace partsim;
using namespace partsim::accpar;

namespace {

// input (4 x 3) -> fc1 (3 -> 5) -> fc2 (5 -> 4), B = 4, 1 byte per element.
Problem toy() {
  Problem p;
  p.bytes_per_element = 1;
  Node in;
  in.name = "in";
  in.input = true;
  Node fc1;
  fc1.name = "fc1";
  fc1.weighted = true;
  fc1.dims = {4, 3, 5, 1, 1, 1};
  fc1.inputs = {{0, 12}};
  Node fc2;
  fc2.name = "fc2";
  fc2.weighted = true;
  fc2.dims = {4, 5, 4, 1, 1, 1};
  fc2.inputs = {{1, 20}};
  p.nodes = {in, fc1, fc2};
  return p;
}

// Two devices: a (1000 FLOP/s, 10 B/s) and b (3000 FLOP/s, 20 B/s) in different groups.
// One level; cut bandwidth min(10, 20) = 10 B/s.
Hierarchy two_devices() { return build_hierarchy({1e3, 3e3}, {10, 20}, {"slow", "fast"}); }

Typing typing(Type in, Type t1, Type t2, double alpha) {
  return {{{in, alpha}}, {{t1, alpha}}, {{t2, alpha}}};
}

// The toy with a carrier (a flatten: no work, no weights) between fc1 and fc2.
Problem toy_with_carrier() {
  Problem p = toy();
  Node flat;
  flat.name = "flat";
  flat.inputs = {{1, 20}};
  p.nodes[2].inputs = {{2, 20}};
  p.nodes.insert(p.nodes.begin() + 2, flat);
  return p;
}

}  // namespace

TEST(Hierarchy, TwoUnequalDevices) {
  const Hierarchy h = two_devices();
  EXPECT_EQ(h.depth, 1);
  EXPECT_DOUBLE_EQ(h.cut_bandwidth(h.groups[0]), 10);
  EXPECT_FALSE(h.groups[0].mirrored);
}

TEST(Hierarchy, TpuV2V3SplitsByGroupFirst) {
  const auto spec = topology::load_system(std::string(PARTSIM_TEST_DATA_DIR) + "/platforms/tpu_v2v3_256.yaml");
  const Hierarchy h = build_hierarchy(spec);
  EXPECT_EQ(h.depth, 8);  // 1 (v2 | v3) + 7 halvings of 128
  const Group& root = h.groups[0];
  const Group& a = h.groups[static_cast<size_t>(root.a)];
  const Group& b = h.groups[static_cast<size_t>(root.b)];
  EXPECT_EQ(a.devices.size(), 128u);
  EXPECT_EQ(spec.device_type_of[static_cast<size_t>(a.devices[0])], "tpu_v2");
  EXPECT_EQ(spec.device_type_of[static_cast<size_t>(b.devices[0])], "tpu_v3");
  // 8 Gb/s = 1e9 B/s per TPU-v2, 16 Gb/s = 2e9 B/s per TPU-v3: cut = min(128e9, 256e9).
  EXPECT_DOUBLE_EQ(h.cut_bandwidth(root), 128e9);
  EXPECT_DOUBLE_EQ(h.cut_bandwidth(a), 64e9);  // 64 | 64 TPU-v2
  EXPECT_DOUBLE_EQ(a.flops, 128 * 180e12);
  EXPECT_TRUE(h.groups[static_cast<size_t>(a.a)].devices.size() == 64u);
  EXPECT_TRUE(a.mirrored);
  // The device reading: each side fetches at one accelerator's b_i, at every level.
  const Hierarchy d = build_hierarchy(spec, BandwidthReading::device);
  EXPECT_DOUBLE_EQ(d.side_bandwidth(d.groups[0], Side::a), 1e9);
  EXPECT_DOUBLE_EQ(d.side_bandwidth(d.groups[0], Side::b), 2e9);
  EXPECT_DOUBLE_EQ(d.side_bandwidth(d.groups[static_cast<size_t>(d.groups[0].a)], Side::b), 1e9);
}

TEST(Hierarchy, BandwidthReadingsOfOneSplit) {
  // Devices of 10 and 20 B/s. cut: both sides see min(10, 20) = 10 B/s; device: each its own b_i.
  const Hierarchy cut = two_devices();
  EXPECT_DOUBLE_EQ(cut.side_bandwidth(cut.groups[0], Side::a), 10);
  EXPECT_DOUBLE_EQ(cut.side_bandwidth(cut.groups[0], Side::b), 10);
  const Hierarchy device = build_hierarchy({1e3, 3e3}, {10, 20}, {"slow", "fast"}, BandwidthReading::device);
  EXPECT_DOUBLE_EQ(device.side_bandwidth(device.groups[0], Side::a), 10);
  EXPECT_DOUBLE_EQ(device.side_bandwidth(device.groups[0], Side::b), 20);
  EXPECT_EQ(bandwidth_reading_from_name("cut"), BandwidthReading::cut);
  EXPECT_EQ(bandwidth_reading_from_name("device"), BandwidthReading::device);
  EXPECT_THROW(bandwidth_reading_from_name("link"), UnknownNameError);
}

TEST(TimeModel, TypeIThenTypeIIOnTwoUnequalDevices) {
  // alpha = 0.25 on every node. fc1 Type-I after a batch-split input:
  //   comm: Table 4 A(W_1) = 15 elements / 10 B/s = 1.5 s on each side; no inter-layer.
  //   side a (B = 1): fwd 1*5*(2*3-1) = 25, bwd 2*(1*5)*3 - 1*3 = 27, grad 15*(2*1-1) = 15
  //                   -> 67 FLOP / 1000 = 0.067 s -> 1.567 s
  //   side b (B = 3): fwd 15*5 = 75, bwd 2*15*3 - 9 = 81, grad 15*5 = 75 -> 231 / 3000 = 0.077 s
  //                   -> 1.577 s (the slower side)
  // fc2 Type-II after fc1 Type-I:
  //   Table 5 (b): alpha*beta*(A(F)+A(E)) = 0.1875 * 40 = 7.5 elements -> 0.75 s on each side
  //   Table 4: A(F_3) = 16 -> 1.6 s
  //   side a (D_i = 1.25): fwd 16*(2.5-1) = 24, bwd 2*16*1.25 - 4*1.25 = 35, grad 1.25*4*7 = 35
  //                   -> 94 / 1000 = 0.094 -> 2.444 s
  //   side b (D_i = 3.75): fwd 16*6.5 = 104, bwd 120 - 15 = 105, grad 3.75*4*7 = 105
  //                   -> 314 / 3000 = 0.1046667 -> 2.4546667 s (the slower side)
  const auto r = evaluate_typing(toy(), two_devices(), typing(Type::I, Type::I, Type::II, 0.25));
  EXPECT_DOUBLE_EQ(r.layers[0].total_s, 0.0);
  EXPECT_NEAR(r.layers[1].total_s, 1.577, 1e-12);
  EXPECT_NEAR(r.layers[1].intra_s, 1.5, 1e-12);
  EXPECT_NEAR(r.layers[1].compute_s, 0.077, 1e-12);
  EXPECT_NEAR(r.layers[2].total_s, 2.4546667, 1e-7);
  EXPECT_NEAR(r.layers[2].inter_s, 0.75, 1e-12);
  EXPECT_NEAR(r.layers[2].intra_s, 1.6, 1e-12);
  EXPECT_NEAR(r.iteration_s, 1.577 + 2.4546667, 1e-7);
}

TEST(TimeModel, TypeIIIAfterTypeIIIsFreeBetweenLayersButNotInside) {
  // fc1 Type-II with the input held whole (Type-II layout: full): no conversion; Table 4 A(F_2) = 20
  // -> 2 s. fc2 Type-III after Type-II: Table 5 (f) = 0; Table 4 A(E_2) = A(F_2) = 20 -> 2 s.
  //   fc2 side b (D_o = 3): fwd 12*9 = 108, bwd 2*12*5 - 20 = 100, grad 15*7 = 105 -> 313/3000
  //   = 0.1043333 -> 2.1043333 s; side a (D_o = 1): 36 + 20 + 35 = 91 / 1000 = 0.091 -> 2.091 s.
  const auto r = evaluate_typing(toy(), two_devices(), typing(Type::II, Type::II, Type::III, 0.25));
  EXPECT_NEAR(r.layers[2].inter_s, 0.0, 1e-12);
  EXPECT_NEAR(r.layers[2].total_s, 2.1043333, 1e-7);
}

TEST(TimeModel, DeviceReadingChargesEachSideItsOwnBandwidth) {
  // TypeIThenTypeIIOnTwoUnequalDevices with b = 10 B/s for side a and 20 B/s for side b:
  //   fc1: side a 15/10 = 1.5 s + 0.067 = 1.567 s; side b 15/20 = 0.75 s + 0.077 = 0.827 s -> 1.567 s
  //   fc2: side a 7.5/10 + 16/10 + 0.094 = 2.444 s; side b 7.5/20 + 16/20 + 0.1046667 = 1.2796667 s
  //        -> 2.444 s
  const Hierarchy h = build_hierarchy({1e3, 3e3}, {10, 20}, {"slow", "fast"}, BandwidthReading::device);
  const auto r = evaluate_typing(toy(), h, typing(Type::I, Type::I, Type::II, 0.25));
  EXPECT_NEAR(r.layers[1].total_s, 1.567, 1e-12);
  EXPECT_NEAR(r.layers[2].total_s, 2.444, 1e-12);
  EXPECT_NEAR(r.layers[2].inter_s, 0.75, 1e-12);
}

TEST(TimeModel, CutReadingWeighsTheDeepLevelsTheDeviceReadingDoesNot) {
  // dp on 4 equal devices (1000 FLOP/s, 10 B/s), the toy's fc1 only, 1 byte per element. Every
  // level exchanges A(W_1) = 15 elements (Table 4, Type-I):
  //   cut:    level 0 over min(2 x 10, 2 x 10) = 20 B/s: 0.75 s; level 1 over 10 B/s: 1.5 s -> 2.25 s
  //   device: 15 / 10 = 1.5 s at each level -> 3 s
  // Compute, B = 1 per device: fwd 5 * (2*3 - 1) = 25, bwd 2*5*3 - 3 = 27, grad 15 * 1 = 15
  //   -> 67 FLOP / 1000 = 0.067 s.
  Problem p = toy();
  p.nodes.pop_back();
  const std::vector<double> flops(4, 1e3), bandwidth(4, 10);
  const std::vector<std::string> group(4, "g");
  const auto cut = plan_layers(p, build_hierarchy(flops, bandwidth, group), Strategy::dp);
  EXPECT_NEAR(cut.layers[1].intra_s, 2.25, 1e-12);
  EXPECT_NEAR(cut.layers[1].total_s, 2.317, 1e-12);
  const auto device = plan_layers(p, build_hierarchy(flops, bandwidth, group, BandwidthReading::device), Strategy::dp);
  EXPECT_NEAR(device.layers[1].intra_s, 3.0, 1e-12);
  EXPECT_NEAR(device.layers[1].total_s, 3.067, 1e-12);
}

TEST(TimeModel, ACarrierConvertsTheTensorItsConsumerHolds) {
  // 4 equal devices (two levels), alpha = 0.5 everywhere; F_2 = E_2 has 20 elements.
  // fc1 Type-I at both levels; the carrier batch (I) then channel-split (III); fc2 III then II.
  // Level 0: the carrier keeps fc1's batch split; fc2 (III) needs F_2 whole: Table 5 (c),
  //   beta A(F) = 0.5 x 20 = 10 elements per side, charged to fc2.
  // Level 1: fc2's sub-layer holds F_2 whole (Type-III replicates its input), 20 elements, and
  //   fc1 I -> fc2 II is Table 5 (b): alpha beta (A(F) + A(E)) = 0.25 x 40 = 10 per side. The
  //   carrier makes this conversion (batch -> channel) on those 20 elements, not on the 10 its
  //   own level-0 batch split would leave it, which Table 5 does not know.
  const Problem p = toy_with_carrier();
  const Hierarchy h = build_hierarchy({1e3, 1e3, 1e3, 1e3}, {10, 10, 10, 10}, {"g", "g", "g", "g"});
  const Typing t{{{Type::I, 0.5}, {Type::I, 0.5}},
                 {{Type::I, 0.5}, {Type::I, 0.5}},
                 {{Type::I, 0.5}, {Type::III, 0.5}},
                 {{Type::III, 0.5}, {Type::II, 0.5}}};
  const auto carrier = layer_work(p, h, t, 2);
  const auto fc2 = layer_work(p, h, t, 3);
  ASSERT_EQ(carrier.splits.size(), 3u);  // the root, then its two halves
  for (const auto& s : carrier.splits) {
    EXPECT_DOUBLE_EQ(s.inter_a, s.level == 0 ? 0 : 10) << s.level;
    EXPECT_DOUBLE_EQ(s.inter_b, s.level == 0 ? 0 : 10) << s.level;
  }
  for (const auto& s : fc2.splits) {
    EXPECT_DOUBLE_EQ(s.inter_a, s.level == 0 ? 10 : 0) << s.level;
    EXPECT_DOUBLE_EQ(s.inter_b, s.level == 0 ? 10 : 0) << s.level;
  }
}

TEST(Planner, CarriersWithoutWorkChangeNoPlannedTime) {
  // Carriers only move conversions along a chain; charged on the consumer's tensor, no carrier
  // makes a transition cheaper or dearer than Table 5 between the two weighted layers (the layout
  // conversions obey the triangle inequality). So FC chains plan to the same time with a
  // work-free carrier after every layer as without: 8 devices of two kinds (three levels), both
  // readings of eq. 7's b.
  const std::vector<double> flops{1e6, 1e6, 1e6, 1e6, 3e6, 3e6, 3e6, 3e6};
  const std::vector<double> bandwidth{1e3, 1e3, 1e3, 1e3, 2e3, 2e3, 2e3, 2e3};
  const std::vector<std::string> group{"s", "s", "s", "s", "f", "f", "f", "f"};
  unsigned seed = 7;
  auto next = [&seed] { return (seed = seed * 1103515245u + 12345u) / 65536u % 1000u; };
  for (int trial = 0; trial < 20; ++trial) {
    Problem plain, carried;
    plain.bytes_per_element = carried.bytes_per_element = 2;
    Node in;
    in.name = "in";
    in.input = true;
    plain.nodes.push_back(in);
    carried.nodes.push_back(in);
    double width = 1 + static_cast<double>(next());
    for (int i = 0; i < 5; ++i) {
      Node n;
      n.name = "fc" + std::to_string(i);
      n.weighted = true;
      const double out = 1 + static_cast<double>(next());
      n.dims = {64, width, out, 1, 1, 1};
      n.inputs = {{static_cast<int>(plain.nodes.size()) - 1, 64 * width}};
      plain.nodes.push_back(n);
      Node c;
      c.name = "carrier" + std::to_string(i);
      c.inputs = {{static_cast<int>(carried.nodes.size()) - 1, 64 * width}};
      carried.nodes.push_back(c);
      n.inputs = {{static_cast<int>(carried.nodes.size()) - 1, 64 * width}};
      carried.nodes.push_back(n);
      width = out;
    }
    for (BandwidthReading reading : {BandwidthReading::cut, BandwidthReading::device}) {
      const Hierarchy h = build_hierarchy(flops, bandwidth, group, reading);
      const double expected = plan_layers(plain, h, Strategy::accpar).iteration_s;
      EXPECT_NEAR(plan_layers(carried, h, Strategy::accpar).iteration_s, expected, 1e-12 * expected) << trial;
    }
  }
}

TEST(Planner, DpIsAllTypeIAndAccParNeverWorse) {
  const Problem p = toy();
  const Hierarchy h = two_devices();
  const auto dp = plan_layers(p, h, Strategy::dp);
  for (const auto& levels : dp.typing) EXPECT_EQ(levels[0].type, Type::I);
  EXPECT_DOUBLE_EQ(dp.typing[1][0].ratio, 0.5);  // one device on each side: equal split
  const auto acc = plan_layers(p, h, Strategy::accpar);
  EXPECT_LE(acc.iteration_s, dp.iteration_s);
}

TEST(Planner, AccParEqualsBruteForceOnTwoEqualDevices) {
  // Two equal devices: eq. 10 gives alpha = 0.5 everywhere, so brute force over all 3^N typings
  // with alpha = 0.5 must find exactly the DP's time. A chain of 6 FC layers of varied shapes.
  Problem p;
  p.bytes_per_element = 2;
  const double widths[] = {300, 20, 500, 40, 7, 900, 3};
  Node in;
  in.name = "in";
  in.input = true;
  p.nodes.push_back(in);
  for (int i = 0; i < 6; ++i) {
    Node n;
    n.name = "fc" + std::to_string(i);
    n.weighted = true;
    n.dims = {64, widths[i], widths[i + 1], 1, 1, 1};
    n.inputs = {{i, 64 * widths[i]}};
    p.nodes.push_back(n);
  }
  const Hierarchy h = build_hierarchy({1e6, 1e6}, {1e4, 1e4}, {"g", "g"});
  const auto acc = plan_layers(p, h, Strategy::accpar);
  double best = 1e300;
  const size_t n = p.nodes.size();
  for (int code = 0; code < 2187; ++code) {  // 3^7
    Typing t(n);
    int c = code;
    for (size_t v = 0; v < n; ++v, c /= 3) t[v] = {{static_cast<Type>(c % 3), 0.5}};
    best = std::min(best, evaluate_typing(p, h, t).iteration_s);
  }
  EXPECT_NEAR(acc.iteration_s, best, 1e-12 * best);
}

TEST(Planner, TooManyLevelsIsAnInputError) {
  PlanOptions o;
  o.levels = 2;
  EXPECT_THROW(plan_layers(toy(), two_devices(), Strategy::accpar, o), InputError);
}

TEST(Hierarchy, ThreeDevicesSplitTwoAndOne) {
  // 3 equal devices: level 1 splits {0,1} | {2} (larger half first), level 2 splits {0,1}; the
  // single device {2} is a leaf at depth 1.
  const Hierarchy h = build_hierarchy({1e3, 1e3, 1e3}, {10, 10, 10}, {"g", "g", "g"});
  EXPECT_EQ(h.depth, 2);
  const Group& root = h.groups[0];
  EXPECT_EQ(h.groups[static_cast<size_t>(root.a)].devices.size(), 2u);
  EXPECT_TRUE(h.groups[static_cast<size_t>(root.b)].is_leaf());
  EXPECT_FALSE(root.mirrored);
  EXPECT_DOUBLE_EQ(h.device_share(root), 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(h.cut_bandwidth(root), 10);  // min(20, 10)
}

TEST(Planner, ThreeDevicesDataParallelByHand) {
  // dp on 3 devices (c = 1000 FLOP/s, b = 10 B/s each), 1 byte per element, the toy's fc1 only
  // (B = 4, D_i = 3, D_o = 5; A(W) = 15). Level 1: alpha = 2/3, cut min(20, 10) = 10 B/s:
  //   each side exchanges A(W) = 15 elements -> 1.5 s.
  // Level 2 (only the 2-device side splits, 1 | 1, alpha = 1/2): cut min(10, 10) = 10 B/s ->
  //   another 1.5 s for those two devices.
  // Compute: side b (1 device) holds B = 4/3: fwd (4/3*5)(2*3-1) = 33.33, bwd 2*(20/3)*3 - 4 = 36,
  //   grad 15*(8/3-1) = 25 -> 94.33/1000 = 0.0943 s -> 1.5943 s.
  //   side a devices hold B = 4/3 too (2/3 * 1/2 * 4): same compute, 3 s of comm -> 3.094333 s.
  Problem p = toy();
  p.nodes.pop_back();
  const Hierarchy h = build_hierarchy({1e3, 1e3, 1e3}, {10, 10, 10}, {"g", "g", "g"});
  const auto r = plan_layers(p, h, Strategy::dp);
  EXPECT_DOUBLE_EQ(r.typing[1][0].ratio, 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(r.typing[1][1].ratio, 0.5);
  EXPECT_NEAR(r.layers[1].total_s, 3.094333, 1e-6);
}

TEST(Planner, OneDeviceHasNoLevels) {
  const Hierarchy h = build_hierarchy({1e3}, {10}, {"g"});
  EXPECT_EQ(h.depth, 0);
  const auto r = plan_layers(toy(), h, Strategy::accpar);
  EXPECT_TRUE(r.typing[1].empty());
  // All compute, no communication: fc1 313 FLOP (Table 6) / 1000 = 0.313 s.
  EXPECT_NEAR(r.layers[1].total_s, 0.313, 1e-12);
}

TEST(Planner, InferenceDataParallelHasNoCommunication) {
  // Inference has no gradient phase: Type-I exchanges nothing (Table 4) and Type-I -> Type-I
  // converts nothing (Table 5 (a)), so dp is pure compute and accpar cannot beat it.
  Problem p = toy();
  p.mode = Mode::inference;
  const Hierarchy h = build_hierarchy({1e3, 1e3}, {10, 10}, {"g", "g"});
  const auto dp = plan_layers(p, h, Strategy::dp);
  for (const auto& l : dp.layers) EXPECT_DOUBLE_EQ(l.intra_s + l.inter_s, 0.0);
  EXPECT_NEAR(plan_layers(p, h, Strategy::accpar).iteration_s, dp.iteration_s, 1e-15);
}

TEST(LayerWork, TransfersOfTheTwoDeviceToy) {
  // fc2 Type-II after fc1 Type-I at alpha = 0.25 (see TypeIThenTypeIIOnTwoUnequalDevices):
  // Table 4 A(F_3) = 16 elements each way, Table 5 (b) 7.5 elements each way, cut 10 B/s;
  // leaves: side a 94 FLOP, side b 314 FLOP (Table 6 of D_i = 1.25 and 3.75).
  const auto w = layer_work(toy(), two_devices(), typing(Type::I, Type::I, Type::II, 0.25), 2);
  ASSERT_EQ(w.splits.size(), 1u);
  EXPECT_DOUBLE_EQ(w.splits[0].intra_a, 16);
  EXPECT_DOUBLE_EQ(w.splits[0].intra_b, 16);
  EXPECT_DOUBLE_EQ(w.splits[0].inter_a, 7.5);
  EXPECT_DOUBLE_EQ(w.splits[0].inter_b, 7.5);
  EXPECT_DOUBLE_EQ(w.splits[0].bandwidth_a, 10);
  EXPECT_DOUBLE_EQ(w.splits[0].bandwidth_b, 10);
  ASSERT_EQ(w.leaves.size(), 2u);
  EXPECT_DOUBLE_EQ(w.leaves[0].primary_flops, 94);
  EXPECT_DOUBLE_EQ(w.leaves[1].primary_flops, 314);
}

namespace {

// The slowest device's path through layer_work's splits must give the planner's layer time: the
// events a lowering takes from layer_work are the ones the prediction charged.
void expect_layer_work_reproduces_the_plan(const Hierarchy& h, const std::string& model) {
  std::vector<int> parent(h.groups.size(), -1);
  for (size_t g = 0; g < h.groups.size(); ++g)
    if (!h.groups[g].is_leaf()) parent[static_cast<size_t>(h.groups[g].a)] = parent[static_cast<size_t>(h.groups[g].b)] = static_cast<int>(g);
  const Problem p = make_problem(workloads::build_zoo(model, 512), Mode::training, 2);
  const auto planned = plan_layers(p, h, Strategy::accpar);
  for (size_t v = 0; v < p.nodes.size(); ++v) {
    const auto w = layer_work(p, h, planned.typing, static_cast<int>(v));
    EXPECT_EQ(w.leaves.size(), 256u);
    EXPECT_EQ(w.splits.size(), 255u);
    std::vector<const SplitTransfers*> split_of(h.groups.size(), nullptr);
    for (const auto& s : w.splits) split_of[static_cast<size_t>(s.group)] = &s;
    double worst = 0;
    for (const auto& leaf : w.leaves) {
      double t = (leaf.primary_flops + leaf.aux_flops) / h.groups[static_cast<size_t>(leaf.group)].flops;
      for (int child = leaf.group, g = parent[static_cast<size_t>(child)]; g >= 0; child = g, g = parent[static_cast<size_t>(g)]) {
        const auto& s = *split_of[static_cast<size_t>(g)];
        const bool side_a = h.groups[static_cast<size_t>(g)].a == child;
        t += side_a ? (s.intra_a + s.inter_a) * 2 / s.bandwidth_a : (s.intra_b + s.inter_b) * 2 / s.bandwidth_b;  // bf16
      }
      worst = std::max(worst, t);
    }
    EXPECT_NEAR(worst, planned.layers[v].total_s, 1e-9 * planned.layers[v].total_s + 1e-15) << model << " " << p.nodes[v].name;
  }
}

}  // namespace

namespace partsim::accpar {
// What gtest prints for the parameter (found by argument-dependent lookup).
void PrintTo(BandwidthReading r, std::ostream* os) { *os << (r == BandwidthReading::cut ? "cut" : "device"); }
}  // namespace partsim::accpar

class LayerWorkOnTheTpuArray : public ::testing::TestWithParam<BandwidthReading> {};

TEST_P(LayerWorkOnTheTpuArray, ReproducesThePlannedTime) {
  const auto spec = topology::load_system(std::string(PARTSIM_TEST_DATA_DIR) + "/platforms/tpu_v2v3_256.yaml");
  const Hierarchy h = build_hierarchy(spec, GetParam());
  expect_layer_work_reproduces_the_plan(h, "alexnet");   // a chain with carriers
  expect_layer_work_reproduces_the_plan(h, "resnet18");  // forks and joins
}

INSTANTIATE_TEST_SUITE_P(BothReadings, LayerWorkOnTheTpuArray,
                         ::testing::Values(BandwidthReading::cut, BandwidthReading::device),
                         [](const ::testing::TestParamInfo<BandwidthReading>& param_info) {
                           return std::string(param_info.param == BandwidthReading::cut ? "cut" : "device");
                         });
