// AccPar-family strategies on the paper's two TPU arrays and the zoo CNNs (seed 000 §6).
// Acceptance (issue 4): accpar is never predicted slower than dp, owt or hypar, since its search
// space contains theirs.

#include <gtest/gtest.h>

#include <cstdio>

#include "sim/accpar/accpar_planner.hpp"
#include "topology/system_parser.hpp"
#include "workloads/zoo.hpp"

using namespace partsim;
using namespace partsim::accpar;

namespace {

const char* kModels[] = {"lenet", "alexnet", "vgg11", "vgg13", "vgg16", "vgg19", "resnet18", "resnet34", "resnet50"};

void check_config(const std::string& config) {
  const auto spec = topology::load_system(std::string(PARTSIM_SOURCE_DIR) + "/configs/" + config);
  const Hierarchy h = build_hierarchy(spec);
  for (const char* model : kModels) {
    const auto graph = workloads::build_zoo(model, 512);
    const Problem p = make_problem(graph, Mode::training, topology::bytes_per_element(spec.precision));
    const double dp = plan_layers(p, h, Strategy::dp).iteration_s;
    const double owt = plan_layers(p, h, Strategy::owt).iteration_s;
    const double hypar = plan_layers(p, h, Strategy::hypar).iteration_s;
    const double acc = plan_layers(p, h, Strategy::accpar).iteration_s;
    std::printf("%-14s %-9s dp %.4g s  speedup owt %.2f hypar %.2f accpar %.2f\n", config.c_str(), model, dp,
                dp / owt, dp / hypar, dp / acc);
    // Relative tolerance 1e-9: equal plans may differ in the last bits of the sums.
    EXPECT_LE(acc, dp * (1 + 1e-9)) << model;
    EXPECT_LE(acc, owt * (1 + 1e-9)) << model;
    EXPECT_LE(acc, hypar * (1 + 1e-9)) << model;
  }
}

}  // namespace

TEST(AccParZoo, HeterogeneousTpuV2V3NeverSlower) { check_config("tpu_v2v3_256.yaml"); }
TEST(AccParZoo, HomogeneousTpuV3NeverSlower) { check_config("tpu_v3_128.yaml"); }
