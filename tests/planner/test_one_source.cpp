// Issue 41 item 1: one description of the machine. Every registered strategy's prediction must
// move when the platform's links do: a sweep of `system.torus.bandwidth` once left the AccPar
// family's plans byte-identical, because they read each device's network_bandwidth while the replay
// read the torus links (topology/link_bandwidth.hpp is now the one source).
//
// Each strategy plans a small case on a torus at 10 GB/s and again at 100 MB/s per link; the
// prediction at the slower links must be larger. A strategy added to the registry without a case
// here fails the test, so that the rule is checked for it too.

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/planners/builtin_strategies.hpp"
#include "tests/support/platform_yaml.hpp"
#include "workloads/workload_file.hpp"

using namespace partsim;

namespace {

// A 2 x 4 torus of roofline chips (1 TFLOP/s, 16 GiB: every small plan fits).
const char* kRoofline =
    "system:\n  name: roofline_torus\n  precision: bf16\n  device_types:\n"
    "    chip: {kind: roofline, peak: 1TFLOP/s, memory: 16GiB, memory_bandwidth: 1000GB/s}\n"
    "  devices: [{type: chip, count: 8}]\n"
    "  torus: {dims: [2, 4], bandwidth: 100GB/s, latency: 100ns}\n";
// seed 003's chip (DeepSpatialMatrix needs template devices), 2 x 4.
const char* kTemplate =
    "system:\n  name: dsm_torus\n  precision: fp16\n  device_types:\n    chip: {preset: dsm_chip_8pf}\n"
    "  devices: [{type: chip, count: 8}]\n"
    "  torus: {dims: [2, 4], bandwidth: 100GB/s, latency: 100ns}\n";
// The three F1 designs of seed 004 on a ring (MARS and H2H map layers onto accelerator designs).
const char* kDesigns =
    "system:\n  name: f1_ring\n  precision: fp16\n  device_types:\n    a: {preset: f1_superlip}\n"
    "    b: {preset: f1_systolic}\n    c: {preset: f1_winograd}\n"
    "  devices: [{type: a, count: 2}, {type: b, count: 2}, {type: c, count: 2}]\n"
    "  torus: {dims: [6], bandwidth: 100GB/s, latency: 1us}\n";
// A unidirectional ring of 8 int8 chiplets, as configs/mcm_ring36.yaml (seed 002).
const char* kChiplets =
    "system:\n  name: mcm_ring8\n  precision: int8\n  device_types:\n"
    "    chiplet: {kind: roofline, peak: 4TFLOP/s, memory: 32MiB, memory_bandwidth: 512GB/s}\n"
    "  devices: [{type: chiplet, count: 8}]\n"
    "  torus: {dims: [8], bandwidth: 100GB/s, latency: 100ns, bidirectional: false}\n";

struct Case {
  const char* platform;
  const char* workload;
  long long batch;
  plan::Mode mode;
  std::vector<std::string> options;
};

const std::map<std::string, Case>& cases() {
  static const std::map<std::string, Case> c{
      {"dp", {kRoofline, "alexnet", 16, plan::Mode::training, {}}},
      {"owt", {kRoofline, "alexnet", 16, plan::Mode::training, {}}},
      {"hypar", {kRoofline, "alexnet", 16, plan::Mode::training, {}}},
      {"accpar", {kRoofline, "alexnet", 16, plan::Mode::training, {}}},
      {"deepa", {kRoofline, "alexnet", 16, plan::Mode::training, {}}},
      {"megatron",
       {kRoofline, "gpt:layers=4,width=256,heads=4,sequence=64,vocab=512", 8, plan::Mode::training, {"tp=2", "pp=2"}}},
      {"dsm", {kTemplate, "alexnet", 2, plan::Mode::training, {}}},
      {"mars",
       {kDesigns, "vgg16", 1, plan::Mode::inference,
        {"population=4", "generations=2", "inner_population=4", "inner_generations=2"}}},
      {"h2h", {kDesigns, "vgg16", 1, plan::Mode::inference, {}}},
      {"mcm_greedy", {kChiplets, "resnet18", 1, plan::Mode::inference, {}}},
      {"mcm_random", {kChiplets, "resnet18", 1, plan::Mode::inference, {"samples=4"}}},
      {"mcm_sa", {kChiplets, "resnet18", 1, plan::Mode::inference, {"samples=4"}}},
      {"search", {kRoofline, "alexnet", 16, plan::Mode::training, {"families=accpar", "candidates=30", "budget_s=0"}}},
      {"mcm_rl", {kChiplets, "resnet18", 1, plan::Mode::inference, {"samples=4", "rollouts=2", "minibatches=1", "epochs=1"}}},
  };
  return c;
}

double predicted(const std::string& strategy, const Case& c, const std::string& bandwidth) {
  const topology::SystemSpec spec = test::platform_from_yaml(c.platform, {"system.torus.bandwidth=" + bandwidth});
  const workloads::Graph graph = workloads::load_workload(c.workload, c.batch);
  const bool stochastic = planner::builtin_strategies().find(strategy).stochastic;
  const planner::PlanInputs in(spec, graph, c.workload, c.mode, c.options,
                               stochastic ? std::optional<std::uint64_t>(1) : std::nullopt);
  return planner::builtin_strategies().make_plan(strategy, in).predicted_iteration_s;
}

}  // namespace

TEST(OneSourcePerParameter, EveryStrategysPredictionMovesWithTheTorusBandwidth) {
  for (const planner::StrategyInfo& s : planner::builtin_strategies().strategies()) {
    SCOPED_TRACE(s.name);
    const auto found = cases().find(s.name);
    ASSERT_NE(found, cases().end()) << "strategy " << s.name << " has no case in this test: add one";
    const double fast = predicted(s.name, found->second, "10GB/s");
    const double slow = predicted(s.name, found->second, "100MB/s");
    EXPECT_GT(fast, 0);
    EXPECT_GT(slow, fast) << "the prediction did not move with the links (10 GB/s: " << fast << " s, 100 MB/s: "
                          << slow << " s)";
  }
}
