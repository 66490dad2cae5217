// End-to-end: runs the simplan program and checks its JSON with tolerances, its exit codes and its
// one-line errors.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/text_file.hpp"

namespace fs = std::filesystem;

namespace {

struct Result {
  int code;
  std::string out;
  std::string err;
};

fs::path temp_dir() {
  const fs::path dir = fs::temp_directory_path() / ("partsim_simplan_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

// Runs `cd cwd && simplan args`, capturing stdout and stderr.
Result simplan(const std::string& args, const fs::path& cwd = fs::current_path()) {
  const fs::path dir = temp_dir();
  const std::string cmd = "cd '" + cwd.string() + "' && '" + std::string(PARTSIM_BIN_DIR) + "/simplan' " + args + " >'" +
                          (dir / "out").string() + "' 2>'" + (dir / "err").string() + "'";
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, partsim::test::read_text_file(dir / "out"), partsim::test::read_text_file(dir / "err")};
}

}  // namespace

TEST(SimplanDescribe, Vgg16Json) {
  const fs::path json = temp_dir() / "vgg16.json";
  const Result r = simplan("--workload vgg16 --describe --batch 2 --json '" + json.string() + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("conv5_3"), std::string::npos);
  const nlohmann::json j = nlohmann::json::parse(partsim::test::read_text_file(json));
  EXPECT_EQ(j["workload"], "vgg16");
  EXPECT_EQ(j["batch"], 2);
  // Published: 138.36 M parameters (0.5 %); seed 004 Table III: 15.5 G MACs per image (2 %).
  EXPECT_NEAR(j["params"].get<double>(), 138.36e6, 138.36e6 * 0.005);
  EXPECT_NEAR(j["macs_fwd"].get<double>(), 2 * 15.5e9, 2 * 15.5e9 * 0.02);
  ASSERT_TRUE(j["layers"].is_array());
  int convs = 0;
  for (const auto& layer : j["layers"]) convs += layer["kind"] == "conv";
  EXPECT_EQ(convs, 13);
  // The papers' blocks, from the notation views the families register (by hand at batch 2):
  // conv1_1 3 -> 64, 3x3 on 224x224: A(W) = 3*9*64 = 1728 (AccPar); pool1 2x2 max: N_ws = 4 (DSM);
  // its output 64 x 112 x 112: DeePa's h = 112.
  const auto layer = [&](const std::string& name) {
    const auto& layers = j["layers"];
    return *std::find_if(layers.begin(), layers.end(), [&](const nlohmann::json& l) { return l["name"] == name; });
  };
  EXPECT_DOUBLE_EQ(layer("conv1_1")["accpar"]["A_W"].get<double>(), 1728.0);
  EXPECT_EQ(layer("conv1_1")["accpar"]["B"], 2);
  EXPECT_EQ(layer("pool1")["dsm"]["N_ws"], 4);
  EXPECT_EQ(layer("pool1")["deepa"]["h"], 112);
  EXPECT_EQ(layer("pool1")["deepa"]["n"], 2);
  fs::remove(json);
}

TEST(SimplanDescribe, ListNamesEveryWorkload) {
  const Result r = simplan("--list");
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* name : {"lenet", "alexnet", "vgg11", "vgg13", "vgg16", "vgg19", "resnet18", "resnet34", "resnet50",
                           "resnet101", "wrn50_2", "inception_v3", "gnmt", "bert_base", "bert_large", "gpt2_small",
                           "gpt3_175b", "llama_7b", "llama2_70b", "gpt", "llama"})
    EXPECT_NE(("\n" + r.out).find(std::string("\n") + name + " "), std::string::npos) << name;
}

TEST(SimplanDescribe, BadWorkloadFileExitsTwoWithItsLine) {
  const fs::path bad = fs::path(PARTSIM_TEST_DATA_DIR) / "bad";
  const fs::path json = temp_dir() / "never.json";
  const Result r = simplan("--workload workload_channel_mismatch.yaml --describe --json '" + json.string() + "'", bad);
  EXPECT_EQ(r.code, 2);
  std::ifstream in(bad / "workload_channel_mismatch.yaml");
  std::string first;
  std::getline(in, first);
  EXPECT_EQ(r.err, "simplan: error: " + first.substr(std::string("# expect: ").size()) + "\n");
  EXPECT_FALSE(fs::exists(json)) << "no output file on error";
}

TEST(SimplanDescribe, UnknownWorkloadAndBadOption) {
  Result r = simplan("--workload resnet51 --describe");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("unknown workload 'resnet51'; valid values are: lenet"), std::string::npos) << r.err;
  r = simplan("--workload lenet --describe --batch 0");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}
