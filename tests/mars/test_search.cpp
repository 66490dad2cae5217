// MARS's search (seed 004 §V) on configs/f1_16xlarge.yaml: the AccSet candidates of G(Acc, BW),
// the strategy decoding, determinism for a seed, never worse than the initial population, the
// baseline of §VI-A, and a plan that lowers and replays.

#include <nlohmann/json.hpp>
#include <gtest/gtest.h>

#include "sim/planners/mars/acc_sets.hpp"
#include "sim/planners/mars/search.hpp"
#include "sim/planners/mars/registration.hpp"
#include "sim/plan/plan_io.hpp"
#include "sim/planners/check_plan.hpp"
#include "sim/planners/builtin_strategies.hpp"
#include "sim/program/closed_form.hpp"
#include "sim/program/platform_binding.hpp"
#include "sim/replay/program_replay.hpp"
#include "topology/system_parser.hpp"
#include "workloads/zoo.hpp"

using namespace partsim;
using plan::ShardDim;

namespace {

topology::SystemSpec f1() { return topology::load_system(std::string(PARTSIM_TEST_DATA_DIR) + "/platforms/f1_16xlarge.yaml"); }

mars::SearchOptions small(std::uint64_t seed) {
  mars::SearchOptions o;
  o.population = 6;
  o.generations = 4;
  o.inner_population = 4;
  o.inner_generations = 3;
  o.seed = seed;
  return o;
}

}  // namespace

// Removing G(Acc, BW)'s lowest edges: the 16 host-routed 2 Gb/s edges first (the two groups split
// off when the last goes), then the 8 Gb/s ring edges, each ring cut into two pairs, then singles.
TEST(MarsSearch, CandidateSetsOfTheF1) {
  const auto spec = f1();
  const topology::TopologyGraph t(spec);
  EXPECT_EQ(mars::accelerator_graph(t).size(), 16u + 8u);  // 4 x 4 across the host, two rings of 4
  const auto sets = mars::candidate_sets(t);
  ASSERT_EQ(sets.size(), 15u);
  EXPECT_EQ(sets[0], (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(sets[1], (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(sets[2], (std::vector<int>{4, 5, 6, 7}));
  int pairs = 0, singles = 0;
  for (const auto& s : sets) {
    pairs += s.size() == 2;
    singles += s.size() == 1;
  }
  EXPECT_EQ(pairs, 4);
  EXPECT_EQ(singles, 8);
  EXPECT_DOUBLE_EQ(mars::ring_bandwidth(t, sets[1]), 1e9);    // 8 Gb/s
  EXPECT_DOUBLE_EQ(mars::ring_bandwidth(t, sets[0]), 0.25e9); // 2 Gb/s through the host
  EXPECT_DOUBLE_EQ(mars::set_to_set_bandwidth(t, sets[1], sets[2]), 4 * 0.25e9);
}

TEST(MarsSearch, DecodingPicksTheHighestGenes) {
  mars::StrategyGenes g;
  g.es = {0.1, 0.2, 0.9, 0.8};  // H, then W
  g.ss = {0.7, 0.3, 0.9, 0.1};  // H is taken by ES: C_out
  g.two_es = 0.9;
  g.use_ss = 0.9;
  const auto s = mars::decode(g, 4);
  EXPECT_EQ(mars::to_string(s), "ES = {H/2, W/2}, SS = {C_out}");
  g.two_es = 0.1;
  g.use_ss = 0.1;
  EXPECT_EQ(mars::to_string(mars::decode(g, 8)), "ES = {H/8}, SS = {}");
  EXPECT_EQ(mars::all_strategies(1).size(), 1u);
  // encode() inverts decode() where decode can say it: ES {C_out/2, C_in/2}, SS {W} on 4 devices;
  // {C_out/2, C_in/4} on 8 cannot be said (decode puts the larger degree first).
  const mars::LayerStrategy s2{{{ShardDim::out_channels, 2}, {ShardDim::in_channels, 2}}, ShardDim::width};
  ASSERT_TRUE(mars::encode(s2, 4).has_value());
  EXPECT_EQ(mars::decode(*mars::encode(s2, 4), 4), s2);
  EXPECT_FALSE(mars::encode({{{ShardDim::out_channels, 2}, {ShardDim::in_channels, 4}}, std::nullopt}, 8).has_value());
  // 4 devices: 4 one-dimension ES, 6 pairs 2 x 2; SS on none or one of the others: 4 x 4 + 6 x 3 = 34.
  EXPECT_EQ(mars::all_strategies(4).size(), 34u);
}

TEST(MarsSearch, SameSeedSamePlanNeverWorseThanInitial) {
  const auto spec = f1();
  const auto g = workloads::build_zoo("alexnet", 1);
  const mars::LatencyModel m(spec, g);
  mars::SearchTrace trace;
  const auto a = mars::search(m, small(7), &trace);
  const auto b = mars::search(m, small(7));
  EXPECT_EQ(plan::plan_to_text(mars::mapping_plan(m, a)), plan::plan_to_text(mars::mapping_plan(m, b)));
  EXPECT_LE(a.latency_s, trace.initial_best_s);
  for (std::size_t i = 1; i < trace.best_per_generation.size(); ++i)
    EXPECT_LE(trace.best_per_generation[i], trace.best_per_generation[i - 1]);
  EXPECT_DOUBLE_EQ(a.latency_s, trace.best_per_generation.back());
  EXPECT_LT(a.latency_s, 1.0);  // finite: a mapping that fits
}

// §VI-A: the two groups, half of the convolution/FC layers each, ES along the two longest dims.
TEST(MarsSearch, BaselineUsesTheTwoGroups) {
  const auto spec = f1();
  const auto g = workloads::build_zoo("alexnet", 1);
  const mars::LatencyModel m(spec, g);
  const auto base = mars::baseline(m);
  ASSERT_EQ(base.sets.size(), 2u);
  EXPECT_EQ(m.sets()[static_cast<std::size_t>(base.sets[0].set)], (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(m.sets()[static_cast<std::size_t>(base.sets[1].set)], (std::vector<int>{4, 5, 6, 7}));
  // AlexNet has 8 conv/FC layers: conv1-conv4 on group 0 (conv1: 64 x 3 x 55 x 55: C_out and H).
  EXPECT_EQ(g.layer(base.sets[1].first).name, "conv5");
  EXPECT_EQ(mars::to_string(base.sets[0].strategies[1]), "ES = {C_out/2, H/2}, SS = {}");
}

// A mars plan checks, lowers and replays on SimGrid; its configuration names the designs.
TEST(MarsSearch, PlanReplaysOnF1) {
  const auto spec = f1();
  const auto g = workloads::build_zoo("alexnet", 1);
  planner::PlanInputs in(spec, g, "alexnet", plan::Mode::inference,
                         {"population=4", "generations=2", "inner_population=4", "inner_generations=2"}, 3);
  const plan::Plan p = planner::builtin_strategies().make_plan("mars", in);
  EXPECT_EQ(p.seed, 3u);
  EXPECT_FALSE(p.configuration.empty());
  planner::check_plan(p, spec, g, planner::builtin_strategies(), "plan.json");
  const auto configured = planner::configured_platform(p, spec);
  const topology::TopologyGraph t(configured);
  const auto program = planner::lower_plan({p, configured, g, t});
  const auto closed = program::ClosedFormEvaluator(program::uncontended_transfer_time(t)).evaluate(program);
  replay::SimGridEvaluator simgrid(t, {});
  const auto simulated = simgrid.evaluate(program);
  EXPECT_GT(closed.makespan_s, 0);
  EXPECT_GT(simulated.makespan_s, 0);
  EXPECT_THROW(planner::builtin_strategies().make_plan(
                   "mars", planner::PlanInputs(spec, g, "alexnet", plan::Mode::training, {}, 3)),
               InputError);
}

// The registry entry: the baseline as an option, --explain of a layer, clear errors.
TEST(MarsSearch, BaselineOptionExplainAndErrors) {
  const auto spec = f1();
  const auto g = workloads::build_zoo("alexnet", 1);
  const auto& r = planner::builtin_strategies();
  const plan::Plan p =
      r.make_plan("mars", planner::PlanInputs(spec, g, "alexnet", plan::Mode::inference, {"mapping=baseline"}, 1));
  const mars::LatencyModel m(spec, g);
  EXPECT_DOUBLE_EQ(p.predicted_iteration_s, mars::baseline(m).latency_s);
  EXPECT_EQ(p.configuration.size(), 8u);
  const std::string text = r.explain("mars", planner::PlanInputs(spec, g, "alexnet", plan::Mode::inference, {}, 1), "conv5");
  EXPECT_NE(text.find("4 x f1_winograd"), std::string::npos);
  EXPECT_NE(text.find("ES = {"), std::string::npos);
  // A platform without accelerator designs.
  const auto tpu = topology::load_system(std::string(PARTSIM_TEST_DATA_DIR) + "/platforms/tpu_v2v3_256.yaml");
  const auto big = workloads::build_zoo("alexnet", 1);
  EXPECT_THROW(r.make_plan("mars", planner::PlanInputs(tpu, big, "alexnet", plan::Mode::inference, {}, 1)), InputError);
  EXPECT_THROW(r.make_plan("mars", planner::PlanInputs(spec, g, "alexnet", plan::Mode::inference, {"mutation=2"}, 1)),
               InputError);
}

// A plan's configuration: the named devices get the named designs; unknown names are errors.
TEST(MarsSearch, ConfiguredPlatform) {
  const auto spec = f1();
  plan::Plan p;
  p.configuration = {{"fpga5", "f1_winograd"}};
  const auto c = planner::configured_platform(p, spec, "plan.json");
  EXPECT_EQ(c.device_type_of[5], "f1_winograd");
  EXPECT_EQ(c.device_type_of[4], "f1_superlip");
  p.configuration = {{"fpga9", "f1_winograd"}};
  EXPECT_THROW(planner::configured_platform(p, spec, "plan.json"), InputError);
  p.configuration = {{"fpga1", "tpu_v2"}};
  try {
    planner::configured_platform(p, spec, "plan.json");
    FAIL() << "no throw";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("plan.json: /configuration/fpga1: unknown device type 'tpu_v2'"), std::string::npos);
  }
}
