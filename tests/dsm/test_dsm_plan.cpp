// DeepSpatialMatrix on real workload graphs: grouping of layers (seed 003 §II-A), the `dsm` strategy's
// plan.json, --explain and simplan's exit codes.
#include <nlohmann/json.hpp>
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "sim/common/error.hpp"
#include "sim/planners/dsm/footprint.hpp"
#include "sim/planners/dsm/registration.hpp"
#include "sim/plan/json_reader.hpp"
#include "sim/plan/plan_io.hpp"
#include "sim/planners/builtin_strategies.hpp"
#include "tests/dsm/tiny_system.hpp"
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

TEST(GroupChain, GroupsPrimaryLayersWithTheirAuxiliaryLayers) {
  const GroupChain net = build_group_chain(small_net(2));
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

TEST(GroupChain, ShortcutsAreRetainedAcrossTheGroupsTheySkip) {
  const workloads::Graph g = workloads::build_zoo("resnet50", 4);
  const GroupChain net = build_group_chain(g);
  double retained = 0;
  for (const auto& grp : net.groups) retained += grp.retained_elements;
  EXPECT_GT(retained, 0);
  // Groups stay in dependency order: the residual add joins the later of its producers (the
  // down-sampling short-cut conv), so every producer precedes its consumer.
  for (std::size_t gi = 0; gi < net.groups.size(); ++gi)
    for (std::size_t p : net.groups[gi].producers) EXPECT_LT(p, gi) << net.groups[gi].members.front();
  // GNMT: the bidirectional first encoder layer, LSTM timesteps.
  const GroupChain gnmt = build_group_chain(workloads::build_zoo("gnmt", 4));
  bool found = false;
  for (std::size_t gi = 0; gi < gnmt.groups.size(); ++gi)
    for (std::size_t p : gnmt.groups[gi].producers) EXPECT_LT(p, gi) << gnmt.groups[gi].members.front();
  for (const auto& grp : gnmt.groups)
    if (grp.members.front() == "enc_lstm1") {
      found = true;
      EXPECT_TRUE(grp.layer.lstm && grp.layer.bidirectional);
      // The two directions run one after the other (docs/model.md "Bidirectional LSTMs"): an
      // iteration is one direction's timestep, 4 x 1024 gates over (1024 input + 1024 hidden), and
      // there are 2 x 128 of them; weights in all 2 x 2048 x 4096 = 16.8 M elements.
      EXPECT_EQ(grp.layer.directions, 2);
      EXPECT_EQ(grp.layer.ts, 2 * 128);
      EXPECT_EQ(grp.layer.in, 1024 + 1024);
      EXPECT_EQ(grp.layer.out, 4 * 1024);
      EXPECT_DOUBLE_EQ(grp.layer.all_kernel_elements(), 2.0 * 2048 * 4096);
      // Output per iteration: one direction's 1024 hidden values for each of the 4 samples.
      EXPECT_DOUBLE_EQ(grp.layer.out_elements, 1024.0 * 4);
    }
  EXPECT_TRUE(found);
}

// Normalizations carry what they reduce over (for PartialSumAcc between cores, Fig. 5), in FWD
// and BWD only; other auxiliary ops reduce nothing.
TEST(GroupChain, NormalizationsNameTheirReductions) {
  const GroupChain resnet = build_group_chain(workloads::build_zoo("resnet50", 4));
  int batch_norms = 0, softmaxes = 0, others = 0;
  for (const auto& grp : resnet.groups)
    for (std::size_t p = 0; p < 3; ++p)
      for (const AuxOp& op : grp.layer.aux[p]) {
        if (op.reduction == AuxReduction::over_samples) {
          ++batch_norms;
          EXPECT_EQ(op.statistics, 2) << op.name;
          EXPECT_NE(p, 2u) << op.name;
        } else if (op.reduction == AuxReduction::over_features) {
          ++softmaxes;
          EXPECT_EQ(op.statistics, 1) << op.name;
        } else {
          ++others;
        }
      }
  // 53 batch norms (one per conv, including the 4 projection short-cuts) in FWD and BWD; one softmax.
  EXPECT_EQ(batch_norms, 2 * 53);
  EXPECT_GE(softmaxes, 1);
  EXPECT_GT(others, 0);
}

struct Inputs {
  topology::SystemSpec spec = topology::load_system(PARTSIM_TEST_DATA_DIR "/platforms/torus_8pf_asym.yaml");
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
  for (std::size_t i = 0; i < p.layers.size(); ++i) {
    const auto& lp = p.layers[i];
    sum += lp.predicted.total_s;
    const DsmLayerFields fields =
        dsm_fields_from(plan::JsonReader(lp.family, "/layers/" + std::to_string(i) + "/family", "plan.json"));
    ASSERT_EQ(fields.passes.size(), lp.passes.size());
    if (!lp.passes.empty()) ++with_passes;
    for (const auto& pp : fields.passes) {
      EXPECT_EQ(chip_split_from_string(to_string(pp.chip_split)), pp.chip_split);
      EXPECT_GE(pp.dysm_factor, 1);
      EXPECT_EQ(product(pp.core_factors), make_dsm_system(in.spec).cores());
    }
    for (const auto& pc : lp.passes) {
      double terms = 0;
      for (const char* k : {"mac_busy_s", "array_underuse_s", "overlap_not_hidden_s", "non_overlapped_s", "auxiliary_s"})
        terms += pc.cost.breakdown.at(k);
      EXPECT_NEAR(terms, pc.cost.total_s, 1e-12 + 1e-9 * pc.cost.total_s);
    }
  }
  EXPECT_EQ(with_passes, 16);  // 13 conv + 3 fc
  EXPECT_NEAR(sum, p.predicted_iteration_s, 1e-9 * p.predicted_iteration_s);
  EXPECT_EQ(p.options, (std::map<std::string, std::string>{{"opt", "all"}}));
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
  const auto& registry = planner::builtin_strategies();
  const std::string text =
      registry.explain("dsm", planner::PlanInputs{in.spec, in.graph, "vgg16", plan::Mode::training, {"opt=all"}}, "fc7");
  EXPECT_NE(text.find("layer fc7"), std::string::npos);
  for (const char* pass : {"\nfwd\n", "\nbwd\n", "\nupd\n"}) EXPECT_NE(text.find(pass), std::string::npos);
  EXPECT_NE(text.find("data_x_model_y"), std::string::npos);
  // A member of the group (the relu after fc7) explains the same group.
  EXPECT_THROW(registry.explain("dsm", planner::PlanInputs{in.spec, in.graph, "vgg16", plan::Mode::training, {}}, "nope"),
               UnknownNameError);
  // A strategy without an explanation says so, naming those with one.
  EXPECT_THROW(registry.explain("dp", planner::PlanInputs{in.spec, in.graph, "vgg16", plan::Mode::training, {}}, "fc7"),
               InputError);
}

TEST(DsmSimplan, WritesAPlanAndRejectsBadOptionsWithExitCode2) {
  const std::string bin = PARTSIM_BIN_DIR "/simplan";
  const std::string out = ::testing::TempDir() + "dsm_plan.json";
  const std::string base = bin + " --config " PARTSIM_TEST_DATA_DIR "/platforms/torus_8pf.yaml --workload vgg16 --batch 64 "
                           "--strategy dsm";
  ASSERT_EQ(std::system((base + " --opt hybrid,memreuse -o " + out + " > /dev/null").c_str()), 0);
  std::ifstream f(out);
  EXPECT_TRUE(f.good());
  const int bad = std::system((base + " --opt warp -o " + out + ".bad 2> /dev/null").c_str());
  EXPECT_EQ(WEXITSTATUS(bad), 2);
  EXPECT_FALSE(std::ifstream(out + ".bad").good());  // no half-written output
}

// External-memory footprint per chip (footprint.hpp) by hand on the tiny system (2 x 2 torus, fp16):
// conv (1 -> 2 channels, 3x3, 4x4 image, no bias) -> flatten -> fc (32 -> 64, no bias), batch 8;
// conv data-parallel, fc model-parallel over the 4 chips.
//   weights: conv 1*2*9 = 18 el (replicated) = 36 B; fc 32*64 / 4 = 512 el = 1024 B: 1060 B;
//   gradients: as much again, 1060 B;
//   activations: conv input 1*8*16 / 4 = 32 el = 64 B; fc input 32*8 / 4 = 64 el = 128 B: 192 B;
//   working: the largest output per chip, fc 64*8 / 4 = 128 el = 256 B (conv 256 / 4 el = 128 B).
//   Training 1060 + 1060 + 192 + 256 = 2568 B.
// Inference: weights 1060 B + the largest input + output: fc 128 + 256 = 384 B: 1444 B.
TEST(DsmFootprint, WeightsGradientsActivationsByHand) {
  NetBuilder b("conv_fc", "");
  std::string x = b.input("x", {1, 4, 4});
  x = b.conv("conv", x, 2, 3, 1, 1, false);
  x = b.flatten("flat", x);
  b.fc("fc", x, 64, false);
  const GroupChain net = build_group_chain(b.build(8));
  ASSERT_EQ(net.groups.size(), 2u);
  DsmSystem s = testing::tiny_system();
  const std::vector<GroupPlacement> placement{{ChipSplit::data, 4}, {ChipSplit::model, 4}};
  const plan::MemoryUse t = memory_footprint(net, placement, s, true);
  EXPECT_DOUBLE_EQ(t.weights_bytes, 1060);
  EXPECT_DOUBLE_EQ(t.gradients_bytes, 1060);
  EXPECT_DOUBLE_EQ(t.activations_bytes, 192);
  EXPECT_DOUBLE_EQ(t.working_bytes, 256);
  EXPECT_DOUBLE_EQ(t.per_device_bytes, 2568);
  EXPECT_TRUE(t.fits());  // 1 GB
  const plan::MemoryUse i = memory_footprint(net, placement, s, false);
  EXPECT_DOUBLE_EQ(i.gradients_bytes + i.activations_bytes, 0);
  EXPECT_DOUBLE_EQ(i.per_device_bytes, 1444);
  s.chip.memory_bytes = 2000;
  EXPECT_FALSE(memory_footprint(net, placement, s, true).fits());
  EXPECT_TRUE(memory_footprint(net, placement, s, false).fits());
  EXPECT_THROW(memory_footprint(net, {placement[0]}, s, true), Error);
}

// simplan writes the footprint into plan.json; a plan that does not fit is refused (exit 2, one line
// naming the chips, their capacity and the footprint by kind, no plan written) unless
// --allow-over-memory, which writes it with a warning (issue 39).
TEST(DsmSimplan, PlanCarriesItsMemoryAndIsRefusedWhenOverCapacity) {
  const std::string bin = PARTSIM_BIN_DIR "/simplan";
  const std::string out = ::testing::TempDir() + "dsm_memory.json";
  const std::string err = ::testing::TempDir() + "dsm_memory.err";
  const std::string base = bin + " --config " PARTSIM_TEST_DATA_DIR "/platforms/torus_8pf.yaml --workload vgg16 --batch 512 "
                           "--strategy dsm -o " + out;
  ASSERT_EQ(std::system((base + " > /dev/null 2> " + err).c_str()), 0);
  auto j = nlohmann::json::parse(std::ifstream(out));
  const double used = j["memory"]["per_device_bytes"].get<double>();
  EXPECT_DOUBLE_EQ(j["memory"]["capacity_bytes"].get<double>(), 8.0 * (1ull << 30));  // 8 GB read as binary
  EXPECT_GT(used, 0);
  EXPECT_LT(used, j["memory"]["capacity_bytes"].get<double>());
  EXPECT_DOUBLE_EQ(used, j["memory"]["weights_bytes"].get<double>() + j["memory"]["gradients_bytes"].get<double>() +
                             j["memory"]["activations_bytes"].get<double>() + j["memory"]["working_bytes"].get<double>());
  EXPECT_EQ(j["memory"]["optimizer_bytes"].get<double>(), 0.0);  // dsm's own model: plain SGD, no states
  EXPECT_FALSE(j["memory"].contains("settings"));
  std::ifstream e1(err);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(e1), {}), "");
  // 64 MB (decimal, 61.04 MiB) of HBM per chip is too little for vgg16 at batch 512.
  std::filesystem::remove(out);
  const std::string small = base + " --set system.device_types.dsm_chip.chip.memory=64MB";
  const int refused = std::system((small + " > /dev/null 2> " + err).c_str());
  ASSERT_TRUE(WIFEXITED(refused));
  EXPECT_EQ(WEXITSTATUS(refused), 2);
  std::ifstream e2(err);
  const std::string error(std::istreambuf_iterator<char>(e2), {});
  EXPECT_EQ(error.rfind("simplan: error: the plan does not fit: every device (dsm_chip) has 61.04 MiB of memory", 0), 0u)
      << error;
  EXPECT_NE(error.find("--allow-over-memory"), std::string::npos) << error;
  EXPECT_FALSE(std::ifstream(out).good());
  ASSERT_EQ(std::system((small + " --allow-over-memory > /dev/null 2> " + err).c_str()), 0);
  std::ifstream e3(err);
  const std::string warning(std::istreambuf_iterator<char>(e3), {});
  EXPECT_EQ(warning.rfind("simplan: warning: the plan does not fit, written as --allow-over-memory asks: every device "
                          "needs ",
                          0),
            0u)
      << warning;
  EXPECT_EQ(nlohmann::json::parse(std::ifstream(out))["memory"]["fits"], false);
}

}  // namespace
}  // namespace partsim::dsm
