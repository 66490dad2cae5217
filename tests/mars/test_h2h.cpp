// Seed 004 §VI-C (Table IV): MARS with fixed heterogeneous designs (a set waits for its slowest
// member) and the H2H-style mapping (every layer whole on one accelerator, branches in parallel),
// checked against times computed by hand, and replayed.

#include <nlohmann/json.hpp>
#include <gtest/gtest.h>

#include <limits>

#include "sim/common/error.hpp"
#include "sim/planners/mars/h2h_mapping.hpp"
#include "sim/planners/mars/layer_strategy.hpp"
#include "sim/planners/builtin_strategies.hpp"
#include "sim/planners/check_plan.hpp"
#include "sim/program/closed_form.hpp"
#include "sim/program/platform_binding.hpp"
#include "topology/system_parser.hpp"
#include "tests/support/platform_yaml.hpp"
#include "workloads/zoo.hpp"

using namespace partsim;

namespace {

// Two roofline devices on a star, bf16, no latency: 1 TFLOP/s, 1000 GB/s memory, `link` per device
// link (a device-to-device route crosses two of them; its slowest is `link`).
topology::SystemSpec pair(const std::string& link) {
  return test::platform_from_yaml(
      "system:\n  name: pair\n  precision: bf16\n  device_types:\n"
      "    dev: {kind: roofline, peak: 1TFLOP/s, memory: 16GiB, memory_bandwidth: 1000GB/s, network_bandwidth: " +
      link + "}\n  devices:\n    - {type: dev, count: 2}\n  star:\n    latency: 0s\n");
}

// x (1024 features) -> fc1 -> {fc2, fc3} -> add, batch 64, no biases. Each fc: 65536 outputs x
// (2 x 1024 - 1) FLOP = 134,152,192 FLOP = 134.152 us at 1 TFLOP/s (its 2.4 MB of memory traffic
// take 2.4 us, below that); its output 65536 x 2 B = 131,072 B. The input and the addition are
// memory-bound sub-microsecond terms (the tolerance below).
workloads::Graph diamond() {
  workloads::Graph g("diamond");
  workloads::LayerSpec x;
  x.name = "x";
  x.kind = workloads::LayerKind::input;
  x.attr.shape = {1024, 1, 1};
  g.add(x);
  for (const auto& [name, input] : {std::pair{"fc1", "x"}, std::pair{"fc2", "fc1"}, std::pair{"fc3", "fc1"}}) {
    workloads::LayerSpec fc;
    fc.name = name;
    fc.kind = workloads::LayerKind::fc;
    fc.inputs = {input};
    fc.attr.out_channels = 1024;
    fc.attr.bias = false;
    g.add(fc);
  }
  workloads::LayerSpec add;
  add.name = "add";
  add.kind = workloads::LayerKind::add;
  add.inputs = {"fc2", "fc3"};
  g.add(add);
  g.finalize(64);
  return g;
}

constexpr double kFc = 134.152192e-6;   // s
constexpr double kTolerance = 1.5e-6;   // s: the input layer and the addition

double closed_form_of(const plan::Plan& p, const topology::SystemSpec& spec, const workloads::Graph& g) {
  planner::check_plan(p, spec, g, planner::builtin_strategies(), "plan.json");
  const auto configured = planner::configured_platform(p, spec);
  const topology::TopologyGraph t(configured);
  const auto program = planner::lower_plan({p, configured, g, t});
  return program::ClosedFormEvaluator(program::uncontended_transfer_time(t)).evaluate(program).makespan_s;
}

}  // namespace

// At 500 MB/s a branch elsewhere costs 262 us of transfer (fc1's output there, or a branch's result
// to the addition), more than the 134 us it saves: everything on one device, 3 x 134.152 us. At 10 GB/s a
// transfer takes 13.107 us: one branch and the addition go to the other device, fc1's output goes there
// while fc2 runs, fc2's output follows it: 2 x 134.152 + 13.107 = 281.41 us.
TEST(H2hMapping, BranchesGoElsewhereOnlyWhenTheTransfersPay) {
  const auto g = diamond();
  {
    const auto spec = pair("500MB/s");
    const mars::LatencyModel m(spec, g, mars::DesignChoice::fixed);
    const auto mapping = mars::h2h_mapping(m, {});
    EXPECT_EQ(mapping.device[1], mapping.device[2]);
    EXPECT_EQ(mapping.device[2], mapping.device[3]);
    EXPECT_NEAR(mapping.latency_s, 3 * kFc, kTolerance);
    // A split by hand: fc3 waits for fc1's output (262.144 us), and add for fc3's (262.144 us).
    mars::H2hMapping split;
    split.device = {0, 0, 0, 1, 0};
    EXPECT_NEAR(mars::schedule_latency(m, split), kFc + 262.144e-6 + kFc + 262.144e-6, kTolerance);
    EXPECT_NEAR(split.start_s[3], kFc + 262.144e-6, kTolerance);
    EXPECT_NEAR(split.start_s[2], kFc, kTolerance);
  }
  const auto spec = pair("10GB/s");
  const mars::LatencyModel m(spec, g, mars::DesignChoice::fixed);
  const auto mapping = mars::h2h_mapping(m, {});
  EXPECT_NE(mapping.device[2], mapping.device[3]);
  EXPECT_NEAR(mapping.latency_s, 2 * kFc + 13.1072e-6, kTolerance);
  // The replay's program agrees with the schedule (no link is shared by two transfers here).
  const plan::Plan p = planner::builtin_strategies().make_plan(
      "h2h", planner::PlanInputs(spec, g, "diamond", plan::Mode::inference, {}, std::nullopt));
  EXPECT_NEAR(p.predicted_iteration_s, mapping.latency_s, 1e-12);
  EXPECT_TRUE(p.configuration.empty());
  EXPECT_NEAR(closed_form_of(p, spec, g), mapping.latency_s, kTolerance);
  // No moves: a starting mapping as it is (here the earliest-finish one, which already splits the branches).
  const plan::Plan first = planner::builtin_strategies().make_plan(
      "h2h", planner::PlanInputs(spec, g, "diamond", plan::Mode::inference, {"max_moves=0"}, std::nullopt));
  EXPECT_EQ(first.family->at("moves"), 0);
  EXPECT_GE(first.predicted_iteration_s, p.predicted_iteration_s);
  EXPECT_THROW(planner::builtin_strategies().make_plan(
                   "h2h", planner::PlanInputs(spec, g, "diamond", plan::Mode::training, {}, std::nullopt)),
               InputError);
}

// DRAM: a 4 TFLOP/s device with 1 MiB cannot hold one FC layer's 2 MiB of weights, so however fast it
// is, no layer with weights goes there, and a schedule that puts one there has no latency.
TEST(H2hMapping, ALayerGoesOnlyWhereItsWeightsFit) {
  const auto spec = test::platform_from_yaml(
      "system:\n  name: small\n  precision: bf16\n  device_types:\n"
      "    big: {kind: roofline, peak: 1TFLOP/s, memory: 16GiB, memory_bandwidth: 1000GB/s, network_bandwidth: 10GB/s}\n"
      "    tiny: {kind: roofline, peak: 4TFLOP/s, memory: 1MiB, memory_bandwidth: 1000GB/s, network_bandwidth: 10GB/s}\n"
      "  devices:\n    - {type: big, count: 1}\n    - {type: tiny, count: 1}\n  star:\n    latency: 0s\n");
  const auto g = diamond();
  const mars::LatencyModel m(spec, g, mars::DesignChoice::fixed);
  const auto mapping = mars::h2h_mapping(m, {});
  for (std::size_t v = 1; v <= 3; ++v) EXPECT_EQ(mapping.device[v], 0) << g.layer(v).name;
  EXPECT_NEAR(mapping.latency_s, 3 * kFc, kTolerance);
  mars::H2hMapping on_tiny;
  on_tiny.device = {0, 0, 1, 0, 0};
  EXPECT_EQ(mars::schedule_latency(m, on_tiny), std::numeric_limits<double>::infinity());
}

// designs=fixed on two roofline devices of 2 and 1 TFLOP/s: fc1 split over both by output channels
// (ES C_out/2) computes 512 of 1024 outputs each, 65536 / 2 x 2047 FLOP = 67,076,096 FLOP: 33.5 us on
// the fast one, 67.076 us on the slow one, which the set waits for.
TEST(H2hMapping, FixedDesignsWaitForTheSlowerRoofline) {
  const auto spec = test::platform_from_yaml(
      "system:\n  name: mixed\n  precision: bf16\n  device_types:\n"
      "    fast: {kind: roofline, peak: 2TFLOP/s, memory: 16GiB, memory_bandwidth: 1000GB/s, network_bandwidth: 1GB/s}\n"
      "    slow: {kind: roofline, peak: 1TFLOP/s, memory: 16GiB, memory_bandwidth: 1000GB/s, network_bandwidth: 1GB/s}\n"
      "  devices:\n    - {type: fast, count: 1}\n    - {type: slow, count: 1}\n  star:\n    latency: 0s\n");
  const auto g = diamond();
  const mars::LatencyModel m(spec, g, mars::DesignChoice::fixed);
  ASSERT_EQ(m.sets().front(), (std::vector<int>{0, 1}));
  const mars::LayerStrategy split{{{plan::ShardDim::out_channels, 2}}, std::nullopt};
  EXPECT_NEAR(m.layer_cost(1, 0, 0, split).compute_s, 65536.0 / 2 * 2047 / 1e12, 1e-12);
  EXPECT_NEAR(m.device_compute_s(1, 0), kFc / 2, 1e-12);  // the whole of fc1 on the fast device
  EXPECT_EQ(m.device_compute_s(0, 1), 0);                  // the graph input computes nothing
}

// designs=fixed: a set of two FPGAs of different designs computes a layer in the time of the slower
// of the two designs (seed 004 §VI-C: the members stall until the slowest finishes), which the
// configurable model gives when the whole set is configured to that design.
TEST(H2hMapping, FixedDesignsWaitForTheSlowestMember) {
  const auto spec = topology::load_system(std::string(PARTSIM_TEST_DATA_DIR) + "/platforms/f1_hetero.yaml");
  const auto g = workloads::build_zoo("vgg16", 1);  // even heights: both halves of an H split alike
  const mars::LatencyModel fixed(spec, g, mars::DesignChoice::fixed);
  const mars::LatencyModel configurable(spec, g);
  ASSERT_EQ(fixed.designs(), (std::vector<std::string>{mars::kFixedDesigns}));
  // A candidate pair of two different designs (the F1 rings cut in two give pairs).
  int set = -1;
  for (std::size_t s = 0; s < fixed.sets().size() && set < 0; ++s) {
    const auto& members = fixed.sets()[s];
    if (members.size() == 2 && spec.device_type_of.at(static_cast<std::size_t>(members[0])) !=
                                   spec.device_type_of.at(static_cast<std::size_t>(members[1])))
      set = static_cast<int>(s);
  }
  ASSERT_GE(set, 0);
  const auto& members = fixed.sets()[static_cast<std::size_t>(set)];
  const auto& designs = configurable.designs();
  auto design_of = [&](int device) {
    const auto& name = spec.device_type_of.at(static_cast<std::size_t>(device));
    return static_cast<int>(std::find(designs.begin(), designs.end(), name) - designs.begin());
  };
  const mars::LayerStrategy height{{{plan::ShardDim::height, 2}}, std::nullopt};
  for (const char* name : {"conv1_1", "conv3_1", "conv5_3"}) {
    const std::size_t v = *g.index_of(name);
    const double slower = std::max(configurable.layer_cost(v, set, design_of(members[0]), height).compute_s,
                                   configurable.layer_cost(v, set, design_of(members[1]), height).compute_s);
    EXPECT_GT(slower, 0) << name;
    EXPECT_DOUBLE_EQ(fixed.layer_cost(v, set, 0, height).compute_s, slower) << name;
  }
  // The plan keeps the platform's designs: no configuration.
  const plan::Plan p = planner::builtin_strategies().make_plan(
      "mars", planner::PlanInputs(spec, g, "vgg16", plan::Mode::inference,
                                  {"designs=fixed", "population=4", "generations=1", "inner_population=4",
                                   "inner_generations=1"},
                                  1));
  EXPECT_TRUE(p.configuration.empty());
  EXPECT_GT(closed_form_of(p, spec, g), 0);
  // A platform of roofline devices: MARS configures designs only where there are some.
  const auto rooflines = pair("1GB/s");
  EXPECT_THROW(mars::LatencyModel(rooflines, g), InputError);
  EXPECT_NO_THROW(mars::LatencyModel(rooflines, g, mars::DesignChoice::fixed));
}
