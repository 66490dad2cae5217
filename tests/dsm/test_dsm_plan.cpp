// DeepSpatialMatrix on real workload graphs: grouping of layers (seed 003 §II-A), the `dsm` strategy's
// plan.json, --explain and simplan's exit codes.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "sim/dsm/strategy.hpp"
#include "sim/plan/plan_io.hpp"
#include "sim/planner/strategies.hpp"
#include "topology/system_parser.hpp"
#include "workloads/net_builder.hpp"
#include "workloads/zoo.hpp"

namespace partsim::dsm {
namespace {

using workloads::NetBuilder;

workloads::Graph small_net(std::int64_t batch) {
  NetBuilder b("small", "");
  std::string x = b.input("image", {3, 8, 8});
  x = b.conv("c1", x, 4, 3, 1, 1);
  x = b.activation("r1", x);
  const std::string p1 = b.pool("p1", x, workloads::PoolOp::max, 2, 2);
  x = b.conv("c2", p1, 4, 3, 1, 1);
  x = b.activation("r2", x);
  x = b.add("res", {x, p1});
  x = b.flatten("flat", x);
  x = b.fc("f", x, 10);
  b.softmax("prob", x);
  return b.build(batch);
}

TEST(DsmNetwork, GroupsPrimaryLayersWithTheirAuxiliaryLayers) {
  const DsmNetwork net = build_network(small_net(2));
  ASSERT_EQ(net.groups.size(), 3u);
  EXPECT_EQ(net.groups[0].members, (std::vector<std::string>{"c1", "r1", "p1"}));
  EXPECT_EQ(net.groups[1].members, (std::vector<std::string>{"c2", "r2", "res", "flat"}));
  EXPECT_EQ(net.groups[2].members, (std::vector<std::string>{"f", "prob"}));
  const DsmLayer& c1 = net.groups[0].layer;
  EXPECT_TRUE(c1.first);
  EXPECT_EQ(c1.in, 3);
  EXPECT_EQ(c1.out, 4);
  EXPECT_EQ(c1.ij, 64);
  EXPECT_EQ(c1.kij, 9);
  EXPECT_EQ(c1.mb, 2);
  // The group writes the pooled tensor: 4 x 4 x 4 per sample, 2 samples.
  EXPECT_DOUBLE_EQ(c1.out_elements, 128);
  // FWD auxiliary ops: conv bias, relu, pool (each over max(in, out) = 4*8*8*2 = 512 elements).
  ASSERT_EQ(c1.aux[0].size(), 3u);
  EXPECT_DOUBLE_EQ(c1.aux[0][1].elements, 512);
  EXPECT_DOUBLE_EQ(c1.aux[0][1].ops, 1);
  // The residual add reads p1's output (128 elements) as its second operand.
  EXPECT_DOUBLE_EQ(net.groups[1].layer.extra_in_elements, 128);
  EXPECT_EQ(net.groups[1].producers, (std::vector<std::size_t>{0}));
  EXPECT_EQ(net.groups[2].layer.in, 64);
  EXPECT_EQ(net.groups[2].layer.out, 10);
  EXPECT_FALSE(net.groups[2].layer.first);
}

TEST(DsmNetwork, ShortcutsAreRetainedAcrossTheGroupsTheySkip) {
  const workloads::Graph g = workloads::build_zoo("resnet50", 4);
  const DsmNetwork net = build_network(g);
  double retained = 0;
  for (const auto& grp : net.groups) retained += grp.retained_elements;
  EXPECT_GT(retained, 0);
  // Groups stay in dependency order: the residual add joins the later of its producers (the
  // down-sampling short-cut conv), so every producer precedes its consumer.
  for (std::size_t gi = 0; gi < net.groups.size(); ++gi)
    for (std::size_t p : net.groups[gi].producers) EXPECT_LT(p, gi) << net.groups[gi].members.front();
  // GNMT: the bidirectional first encoder layer, LSTM timesteps.
  const DsmNetwork gnmt = build_network(workloads::build_zoo("gnmt", 4));
  bool found = false;
  for (std::size_t gi = 0; gi < gnmt.groups.size(); ++gi)
    for (std::size_t p : gnmt.groups[gi].producers) EXPECT_LT(p, gi) << gnmt.groups[gi].members.front();
  for (const auto& grp : gnmt.groups)
    if (grp.members.front() == "enc_lstm1") {
      found = true;
      EXPECT_TRUE(grp.layer.lstm && grp.layer.bidirectional);
      EXPECT_EQ(grp.layer.ts, 128);
      EXPECT_EQ(grp.layer.in, 1024 + 1024);
      EXPECT_EQ(grp.layer.out, 4 * 1024 * 2);
    }
  EXPECT_TRUE(found);
}

struct Inputs {
  topology::SystemSpec spec = topology::load_system(PARTSIM_SOURCE_DIR "/configs/torus_8pf_asym.yaml");
  workloads::Graph graph = workloads::build_zoo("vgg16", 128);
};

TEST(DsmStrategy, PlanHasEveryLayerAndTimesAddUp) {
  const Inputs in;
  const auto& registry = planner::builtin_strategies();
  const plan::Plan p = registry.make_plan(
      "dsm", planner::PlanInputs{in.spec, in.graph, "vgg16", plan::Mode::training, {"opt=all"}});
  ASSERT_EQ(p.layers.size(), in.graph.size());
  double sum = 0;
  int with_passes = 0;
  for (const auto& lp : p.layers) {
    sum += lp.predicted.total_s;
    if (!lp.passes.empty()) ++with_passes;
    for (const auto& pp : lp.passes) {
      EXPECT_NO_THROW(chip_split_from_string(pp.chip_split));
      EXPECT_GE(pp.dysm_factor, 1);
      double terms = 0;
      for (const char* k : {"mac_busy_s", "array_underuse_s", "overlap_not_hidden_s", "non_overlapped_s", "auxiliary_s"})
        terms += pp.predicted.breakdown.at(k);
      EXPECT_NEAR(terms, pp.predicted.total_s, 1e-12 + 1e-9 * pp.predicted.total_s);
    }
  }
  EXPECT_EQ(with_passes, 16);  // 13 conv + 3 fc
  EXPECT_NEAR(sum, p.predicted_iteration_s, 1e-9 * p.predicted_iteration_s);
  EXPECT_EQ(p.options, (std::vector<std::string>{"hybrid", "memreuse", "dysm", "tpipe"}));
  EXPECT_NO_THROW(planner::check_plan(p, in.spec, in.graph, "plan.json"));
  // plan.json round trip.
  const plan::Plan back = plan::plan_from_json(nlohmann::json::parse(plan::plan_to_text(p)), "plan.json");
  EXPECT_EQ(back.layers.size(), p.layers.size());
  // No optimization cannot be faster than all of them.
  const plan::Plan none = registry.make_plan(
      "dsm", planner::PlanInputs{in.spec, in.graph, "vgg16", plan::Mode::training, {"opt=none"}});
  EXPECT_GE(none.predicted_iteration_s, p.predicted_iteration_s);
}

TEST(DsmStrategy, BadOptionsAreInputErrors) {
  const Inputs in;
  const auto& registry = planner::builtin_strategies();
  EXPECT_THROW(registry.make_plan("dsm", planner::PlanInputs{in.spec, in.graph, "vgg16", plan::Mode::training,
                                                             {"opt=hybrid,warp"}}),
               InputError);
  EXPECT_THROW(registry.make_plan("dsm", planner::PlanInputs{in.spec, in.graph, "vgg16", plan::Mode::training,
                                                             {"levels=3"}}),
               InputError);
}

TEST(DsmStrategy, ExplainListsTheBestConfigurationsOfALayer) {
  const Inputs in;
  const std::string text = explain_text(
      planner::PlanInputs{in.spec, in.graph, "vgg16", plan::Mode::training, {"opt=all"}}, "fc7", 4);
  EXPECT_NE(text.find("layer fc7"), std::string::npos);
  for (const char* pass : {"\nfwd\n", "\nbwd\n", "\nupd\n"}) EXPECT_NE(text.find(pass), std::string::npos);
  EXPECT_NE(text.find("data_x_model_y"), std::string::npos);
  // A member of the group (the relu after fc7) explains the same group.
  EXPECT_THROW(explain_text(planner::PlanInputs{in.spec, in.graph, "vgg16", plan::Mode::training, {}}, "nope"),
               UnknownNameError);
}

TEST(DsmSimplan, WritesAPlanAndRejectsBadOptionsWithExitCode2) {
  const std::string bin = PARTSIM_BIN_DIR "/simplan";
  const std::string out = ::testing::TempDir() + "dsm_plan.json";
  const std::string base = bin + " --config " PARTSIM_SOURCE_DIR "/configs/torus_8pf.yaml --workload vgg16 --batch 64 "
                           "--strategy dsm";
  ASSERT_EQ(std::system((base + " --opt hybrid,memreuse -o " + out + " > /dev/null").c_str()), 0);
  std::ifstream f(out);
  EXPECT_TRUE(f.good());
  const int bad = std::system((base + " --opt warp -o " + out + ".bad 2> /dev/null").c_str());
  EXPECT_EQ(WEXITSTATUS(bad), 2);
  EXPECT_FALSE(std::ifstream(out + ".bad").good());  // no half-written output
}

}  // namespace
}  // namespace partsim::dsm
