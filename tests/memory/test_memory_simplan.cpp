// simplan's memory footprint end to end (issue 39's acceptance): Llama 7B data-parallel on 128
// TPU-v3 chips (32 GiB each) is refused with its footprint by kind, and written with
// --allow-over-memory, after which simrun warns that it does not fit.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/run_command.hpp"

using partsim::test::run_command;

namespace {

const std::string kBin = std::string(PARTSIM_BIN_DIR) + "/";
const std::string kConfigs = std::string(PARTSIM_SOURCE_DIR) + "/configs/";
const std::string kLlamaDp = kBin + "simplan --config " + kConfigs +
                             "tpu_v3_128_torus_ici.yaml --workload llama_7b --batch 256 --strategy dp";

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("partsim_memory_" + name)).string();
}

// Llama 7B, 6,738,415,616 parameters, defaults adam, mixed precision (the platform computes in bf16),
// fp32 main gradients: 2 + 4 + 12 = 18 B per parameter. Every replica holds them whole:
// weights 13,476,831,232 B (12.55 GiB), gradients 26,953,662,464 B (25.10 GiB), optimizer
// 80,860,987,392 B (75.31 GiB): 121,291,481,088 B = 112.96 GiB of model states alone against 32 GiB.
constexpr double kWeights = 13476831232.0, kGradients = 26953662464.0, kOptimizer = 80860987392.0;

}  // namespace

TEST(MemorySimplan, Llama7bDataParallelOnTpuV3IsRefusedWithItsFootprint) {
  const std::string plan = temp_path("refused.json");
  std::filesystem::remove(plan);
  std::string out;
  EXPECT_EQ(run_command(kLlamaDp + " -o " + plan, &out), 2) << out;
  EXPECT_FALSE(std::filesystem::exists(plan));
  // One line: the device, its capacity and the footprint by kind.
  EXPECT_EQ(out.find('\n'), out.size() - 1) << out;
  EXPECT_NE(out.find("simplan: error: the plan does not fit: device "), std::string::npos) << out;
  EXPECT_NE(out.find("has 32.00 GiB of memory"), std::string::npos) << out;
  EXPECT_NE(out.find("weights 12.55 GiB, gradients 25.10 GiB, optimizer 75.31 GiB"), std::string::npos) << out;
  EXPECT_NE(out.find("18 B/parameter"), std::string::npos) << out;
  EXPECT_NE(out.find("--allow-over-memory"), std::string::npos) << out;
}

TEST(MemorySimplan, ZerosAccountingGivesSixteenBytesPerParameter) {
  std::string out;
  EXPECT_EQ(run_command(kLlamaDp + " --fp32-main-gradients false -o " + temp_path("zero.json"), &out), 2) << out;
  // 16 B: gradients 2 x 6,738,415,616 = 13,476,831,232 B = 12.55 GiB.
  EXPECT_NE(out.find("weights 12.55 GiB, gradients 12.55 GiB, optimizer 75.31 GiB"), std::string::npos) << out;
  EXPECT_NE(out.find("16 B/parameter"), std::string::npos) << out;
}

TEST(MemorySimplan, AllowedOverMemoryThePlanRecordsItAndSimrunWarns) {
  const std::string plan = temp_path("allowed.json");
  std::string out;
  ASSERT_EQ(run_command(kLlamaDp + " --allow-over-memory -o " + plan, &out), 0) << out;
  EXPECT_NE(out.find("simplan: warning: the plan does not fit"), std::string::npos) << out;
  std::ifstream in(plan);
  const nlohmann::json j = nlohmann::json::parse(in);
  const nlohmann::json& m = j.at("memory");
  EXPECT_EQ(m.at("fits"), false);
  EXPECT_EQ(m.at("capacity_bytes").get<double>(), 34359738368.0);  // 32 GiB
  EXPECT_EQ(m.at("weights_bytes").get<double>(), kWeights);
  EXPECT_EQ(m.at("gradients_bytes").get<double>(), kGradients);
  EXPECT_EQ(m.at("optimizer_bytes").get<double>(), kOptimizer);
  EXPECT_GT(m.at("activations_bytes").get<double>(), 0.0);
  EXPECT_EQ(m.at("settings").at("optimizer"), "adam");
  EXPECT_EQ(m.at("settings").at("precision"), "mixed");
  EXPECT_EQ(m.at("settings").at("fp32_main_gradients"), true);
  EXPECT_FALSE(m.contains("devices"));  // 256 samples over 128 chips: every chip holds the same

  const std::string results = temp_path("allowed_results.json");
  ASSERT_EQ(run_command(kBin + "simrun --config " + kConfigs + "tpu_v3_128_torus_ici.yaml --plan " + plan + " --out " +
                            results,
                        &out),
            0)
      << out;
  EXPECT_NE(out.find("simrun: warning: the plan does not fit (made with simplan --allow-over-memory)"), std::string::npos)
      << out;
}

// --describe-memory without -o prints the table (a row per layer, the total line naming the device
// and its capacity) and writes nothing; a plan that does not fit is then not an error.
TEST(MemorySimplan, DescribeMemoryPrintsPerLayerAndTheTotalLine) {
  std::string out;
  ASSERT_EQ(run_command(kLlamaDp + " --describe-memory --quiet", &out), 0) << out;
  EXPECT_NE(out.find("model states: adam, mixed precision, fp32 main gradients: 18 B/parameter"), std::string::npos)
      << out;
  EXPECT_NE(out.find("weights    gradients    optimizer  activations      working"), std::string::npos) << out;
  EXPECT_NE(out.find("of its 32.00 GiB (34359738368 B): does not fit"), std::string::npos) << out;
}
