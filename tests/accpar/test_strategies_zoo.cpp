// AccPar-family strategies on the paper's two TPU arrays and the zoo CNNs (seed 000 §6).
// Acceptance (issue 4): accpar is never predicted slower than dp, owt or hypar, since its search
// space contains theirs.

#include <gtest/gtest.h>

#include <cstdio>

#include "sim/planners/accpar/accpar_planner.hpp"
#include "topology/system_parser.hpp"
#include "workloads/zoo.hpp"

using namespace partsim;
using namespace partsim::accpar;

namespace {

const char* kModels[] = {"lenet", "alexnet", "vgg11", "vgg13", "vgg16", "vgg19", "resnet18", "resnet34", "resnet50"};

void check_config(const std::string& config, BandwidthReading reading) {
  const auto spec = topology::load_system(std::string(PARTSIM_TEST_DATA_DIR) + "/platforms/" + config);
  const Hierarchy h = build_hierarchy(spec, reading);
  for (const char* model : kModels) {
    const auto graph = workloads::build_zoo(model, 512);
    const Problem p = make_problem(graph, Mode::training, topology::bytes_per_element(spec.precision));
    const double dp = plan_layers(p, h, Strategy::dp).iteration_s;
    const double owt = plan_layers(p, h, Strategy::owt).iteration_s;
    const double hypar = plan_layers(p, h, Strategy::hypar).iteration_s;
    const double acc = plan_layers(p, h, Strategy::accpar).iteration_s;
    std::printf("%-14s %-6s %-9s dp %.4g s  speedup owt %.2f hypar %.2f accpar %.2f\n", config.c_str(),
                reading == BandwidthReading::cut ? "cut" : "device", model, dp, dp / owt, dp / hypar, dp / acc);
    // Relative tolerance 1e-9: equal plans may differ in the last bits of the sums.
    EXPECT_LE(acc, dp * (1 + 1e-9)) << model;
    EXPECT_LE(acc, owt * (1 + 1e-9)) << model;
    EXPECT_LE(acc, hypar * (1 + 1e-9)) << model;
  }
}

}  // namespace

TEST(AccParZoo, Table6MatchesTheWorkloadsFlops) {
  // The cost model's Table 6 (with §4.3's 2-D sizes) on the whole layer must equal the FLOPs the
  // workload derives for its primary products (workloads/layer.cpp, same 2P-1 convention).
  for (const char* model : {"alexnet", "vgg16", "resnet50", "lenet"}) {
    const auto graph = workloads::build_zoo(model, 32);
    const Problem p = make_problem(graph, Mode::training, 2);
    for (size_t i = 0; i < graph.size(); ++i) {
      if (!p.nodes[i].weighted) continue;
      const auto& q = graph.layer(i).q;
      const auto f = table6_flops(p.nodes[i].dims);
      EXPECT_NEAR(f.forward, q.primary_flops.fwd, 1e-9 * q.primary_flops.fwd) << model << " " << p.nodes[i].name;
      EXPECT_NEAR(f.backward, q.primary_flops.bwd, 1e-9 * q.primary_flops.bwd) << model << " " << p.nodes[i].name;
      EXPECT_NEAR(f.gradient, q.primary_flops.upd, 1e-9 * q.primary_flops.upd) << model << " " << p.nodes[i].name;
    }
  }
}

TEST(AccParZoo, Vgg19AtEveryHierarchyLevelNeverSlower) {
  // The Fig. 8 sweep: every number of searched levels, on the heterogeneous array, both readings.
  const auto spec = topology::load_system(std::string(PARTSIM_TEST_DATA_DIR) + "/platforms/tpu_v2v3_256.yaml");
  const Problem p = make_problem(workloads::build_zoo("vgg19", 512), Mode::training, 2);
  for (BandwidthReading reading : {BandwidthReading::cut, BandwidthReading::device}) {
    const Hierarchy h = build_hierarchy(spec, reading);
    for (int levels = 0; levels <= h.depth; ++levels) {
      PlanOptions o;
      o.levels = levels;
      const double acc = plan_layers(p, h, Strategy::accpar, o).iteration_s;
      for (Strategy s : {Strategy::dp, Strategy::owt, Strategy::hypar})
        EXPECT_LE(acc, plan_layers(p, h, s, o).iteration_s * (1 + 1e-9))
            << "levels " << levels << " vs " << to_string(s) << (reading == BandwidthReading::cut ? " (cut)" : " (device)");
    }
  }
}

TEST(AccParZoo, HeterogeneousTpuV2V3NeverSlower) {
  check_config("tpu_v2v3_256.yaml", BandwidthReading::cut);
  check_config("tpu_v2v3_256.yaml", BandwidthReading::device);
}
TEST(AccParZoo, HomogeneousTpuV3NeverSlower) {
  check_config("tpu_v3_128.yaml", BandwidthReading::cut);
  check_config("tpu_v3_128.yaml", BandwidthReading::device);
}
