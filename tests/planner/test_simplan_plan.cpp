// simplan's planning mode end to end: the plan.json fields of issue 4, and bad input.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace {

std::string bin() { return std::string(PARTSIM_BIN_DIR) + "/simplan"; }
std::string config(const std::string& name) { return std::string(PARTSIM_TEST_DATA_DIR) + "/platforms/" + name; }
std::string tmp(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("partsim_h4_" + std::to_string(::getpid()) + "_" + name)).string();
}
int run(const std::string& args) {
  const int rc = std::system((bin() + " " + args + " > /dev/null 2>&1").c_str());
  return WEXITSTATUS(rc);
}

}  // namespace

TEST(SimplanPlan, WritesTheDocumentedFields) {
  const std::string out = tmp("plan.json");
  ASSERT_EQ(run("--config " + config("tpu_v2v3_256.yaml") + " --workload alexnet --batch 512 --strategy accpar -o " + out), 0);
  std::ifstream in(out);
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["schema"], 2);
  EXPECT_EQ(j["strategy"], "accpar");
  EXPECT_EQ(j["config"]["name"], "tpu_v2v3_256");
  EXPECT_EQ(j["config"]["hash"].get<std::string>().size(), 16u);
  EXPECT_EQ(j["workload"]["name"], "alexnet");
  EXPECT_EQ(j["workload"]["batch"], 512);
  EXPECT_EQ(j["workload"]["mode"], "training");
  EXPECT_GT(j["predicted"]["iteration_s"].get<double>(), 0);
  double sum = 0;
  for (const auto& l : j["layers"]) {
    ASSERT_TRUE(l.contains("name"));
    for (const char* k : {"total_s", "compute_s", "comm_s"}) ASSERT_TRUE(l["predicted"].contains(k));
    ASSERT_EQ(l["family"]["levels"].size(), 8u);  // 1 (v2 | v3) + 7
    ASSERT_EQ(l["sharding"]["splits"].size(), 8u);
    const std::string t = l["family"]["levels"][0]["type"];
    EXPECT_TRUE(t == "I" || t == "II" || t == "III");
    sum += l["predicted"]["total_s"].get<double>();
  }
  EXPECT_NEAR(j["predicted"]["iteration_s"].get<double>(), sum, 1e-9 * sum);
  std::filesystem::remove(out);
}

TEST(SimplanPlan, LevelsOptionAndListing) {
  const std::string out = tmp("plan2.json");
  ASSERT_EQ(run("--config " + config("tpu_v3_128.yaml") + " --workload vgg11 --batch 64 --strategy hypar --levels 2 -o " + out), 0);
  std::ifstream in(out);
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["options"]["levels"], "2");
  EXPECT_EQ(run("--list-strategies"), 0);
  std::filesystem::remove(out);
}

TEST(SimplanPlan, BadInputExitsTwoAndWritesNothing) {
  const std::string out = tmp("bad.json");
  EXPECT_EQ(run("--config " + config("tpu_v3_128.yaml") + " --workload alexnet --strategy nope -o " + out), 2);
  EXPECT_EQ(run("--config " + config("tpu_v3_128.yaml") + " --workload alexnet --strategy dp --levels 8 -o " + out), 2);
  EXPECT_EQ(run("--config " + config("tpu_v3_128.yaml") + " --workload nonet --strategy dp -o " + out), 2);
  EXPECT_EQ(run("--workload alexnet --strategy dp -o " + out), 2);  // no --config
  EXPECT_FALSE(std::filesystem::exists(out));
}
