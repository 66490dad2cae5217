// simplan --strategy megatron end to end: a plan with its family fields and memory; an over-memory
// configuration refused with exit 2; simrun replays the plan.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;

namespace {

struct Outcome {
  int code = -1;
  std::string err;
};

Outcome run(const std::string& command, const fs::path& dir) {
  const fs::path err = dir / "stderr.txt";
  const int status = std::system((command + " >/dev/null 2>" + err.string()).c_str());
  Outcome r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(err);
  std::stringstream s;
  s << in.rdbuf();
  r.err = s.str();
  return r;
}

fs::path star_file(const fs::path& dir, const std::string& memory) {
  const fs::path f = dir / ("star_" + memory + ".yaml");
  std::ofstream(f) << "system:\n  name: star\n  precision: bf16\n  device_types:\n"
                      "    dev: {kind: roofline, peak: 1TFLOP/s, memory: " << memory
                   << ", memory_bandwidth: 1000GB/s, network_bandwidth: 1GB/s}\n"
                      "  devices:\n    - {type: dev, count: 2}\n  star:\n    latency: 0s\n";
  return f;
}

class MegatronCli : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("partsim_megatron_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string simplan(const fs::path& config, const std::string& rest) const {
    return std::string(PARTSIM_BIN_DIR) + "/simplan --config " + config.string() +
           " --workload gpt:layers=2,width=64,heads=2,sequence=16,vocab=128 --strategy megatron " + rest;
  }
  fs::path dir_;
};

TEST_F(MegatronCli, WritesThePlanWithItsConfigurationAndMemory) {
  const fs::path plan = dir_ / "plan.json";
  const Outcome r = run(simplan(star_file(dir_, "16GiB"), "--batch 4 --option tp=2 --option microbatch=4 -o " + plan.string()), dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(std::ifstream(plan));
  EXPECT_EQ(j.at("family").at("tp").get<int>(), 2);
  EXPECT_EQ(j.at("family").at("dp").get<int>(), 1);
  EXPECT_EQ(j.at("family").at("micro_batches").get<int>(), 1);
  // 117,504 parameters / tp 2 = 58,752 per device at 2 B (tests/megatron/test_planner.cpp).
  EXPECT_DOUBLE_EQ(j.at("memory").at("weights_bytes").get<double>(), 117504.0);
  EXPECT_GT(j.at("predicted").at("iteration_s").get<double>(), 0);
  // simrun replays it (sim/planners/megatron/lowering.hpp) and writes results.json with the iteration.
  const Outcome replay = run(std::string(PARTSIM_BIN_DIR) + "/simrun --plan " + plan.string() + " --config " +
                             star_file(dir_, "16GiB").string() + " --out " + (dir_ / "results.json").string(), dir_);
  ASSERT_EQ(replay.code, 0) << replay.err;
  const nlohmann::json results = nlohmann::json::parse(std::ifstream(dir_ / "results.json"));
  EXPECT_EQ(results.at("strategy").get<std::string>(), "megatron");
  EXPECT_GT(results.at("closed_form_iteration_s").get<double>(), 0);
  EXPECT_GT(results.at("simulated_iteration_s").get<double>(), 0);
  // The memory the lowering declares, in time (docs/model.md "The megatron lowering", Memory): per
  // device 58,752 parameters x 18 B = 1,057,536 B resident; one micro-batch of 4 (s b h = 16 x 4 x
  // 64 = 4,096), t = 2, no recomputation: a layer sbh (10 + 24/2 + 5 x 2 x 16/(64 x 2)) = 4,096 x
  // 23.25 = 95,232, two 190,464; the embedding mask sbh 4,096; the output layer 4sbh 16,384 +
  // 4sbV/t = 4 x 16 x 4 x 128 / 2 = 16,384: 227,328 B. Peak 1,057,536 + 227,328 = 1,284,864 B on
  // both devices, the plan's per-device memory (one stage, one micro-batch).
  const nlohmann::json& m = results.at("memory_timeline");
  ASSERT_TRUE(m.at("available").get<bool>()) << m.dump();
  EXPECT_DOUBLE_EQ(m.at("peak_bytes").get<double>(), 1284864.0);
  EXPECT_DOUBLE_EQ(m.at("peak_bytes").get<double>(), j.at("memory").at("per_device_bytes").get<double>());
  ASSERT_EQ(m.at("devices").size(), 2u);
  for (const auto& d : m.at("devices")) {
    EXPECT_DOUBLE_EQ(d.at("peak_bytes").get<double>(), 1284864.0);
    EXPECT_DOUBLE_EQ(d.at("resident_bytes").get<double>(), 1057536.0);
  }
}

TEST_F(MegatronCli, RefusesAPlanOverMemoryWithExitTwo) {
  const fs::path plan = dir_ / "plan.json";
  const Outcome r = run(simplan(star_file(dir_, "1MiB"), "--batch 4 -o " + plan.string()), dir_);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("the plan does not fit"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(plan));
}

TEST_F(MegatronCli, SearchReportsItsCandidates) {
  const fs::path plan = dir_ / "plan.json";
  const Outcome r = run(simplan(star_file(dir_, "16GiB"), "--batch 4 --option search=true -o " + plan.string()), dir_);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("megatron: search tried"), std::string::npos) << r.err;
  const nlohmann::json j = nlohmann::json::parse(std::ifstream(plan));
  EXPECT_GT(j.at("family").at("search").at("candidates").get<int>(), 0);
}

// fold_replicas=true (dp 2 on the 2-device star, microbatch 2, one micro-batch each): recorded in
// the plan, kept by search=true, and simrun's results.json notes that the replay was folded; the
// closed form equals the unfolded plan's (sim/planners/megatron/lowering.hpp), and the unfolded results have
// no notes.
TEST_F(MegatronCli, FoldedReplayIsNotedAndKeepsTheClosedForm) {
  const fs::path star = star_file(dir_, "16GiB");
  const auto replay = [&](const std::string& options, const std::string& name) {
    const fs::path plan = dir_ / (name + ".json"), results = dir_ / (name + "_results.json");
    const Outcome r = run(simplan(star, "--batch 4 --option microbatch=2 " + options + " -o " + plan.string()), dir_);
    EXPECT_EQ(r.code, 0) << r.err;
    const Outcome s = run(std::string(PARTSIM_BIN_DIR) + "/simrun --plan " + plan.string() + " --config " + star.string() +
                              " --out " + results.string(), dir_);
    EXPECT_EQ(s.code, 0) << s.err;
    return std::make_pair(nlohmann::json::parse(std::ifstream(plan)), nlohmann::json::parse(std::ifstream(results)));
  };
  const auto [folded_plan, folded] = replay("--option fold_replicas=true", "folded");
  const auto [unfolded_plan, unfolded] = replay("", "unfolded");
  EXPECT_EQ(folded_plan.at("family").at("dp").get<int>(), 2);
  EXPECT_TRUE(folded_plan.at("family").at("fold_replicas").get<bool>());
  EXPECT_FALSE(unfolded_plan.at("family").at("fold_replicas").get<bool>());
  ASSERT_TRUE(folded.contains("notes"));
  EXPECT_NE(folded.at("notes").at(0).get<std::string>().find("folded replay"), std::string::npos);
  EXPECT_FALSE(unfolded.contains("notes"));
  const double t = unfolded.at("closed_form_iteration_s").get<double>();
  EXPECT_NEAR(folded.at("closed_form_iteration_s").get<double>(), t, 1e-12 * t);
  const auto [searched_plan, searched] = replay("--option search=true --option fold_replicas=true", "searched");
  EXPECT_TRUE(searched_plan.at("family").at("fold_replicas").get<bool>());
}
}  // namespace
