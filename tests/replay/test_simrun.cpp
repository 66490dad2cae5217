// simrun end to end: JSON fields compared with tolerances, bad input -> one line and exit code 2.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <string>

#include "tests/support/run_command.hpp"

namespace {

const std::string kSimrun = std::string(PARTSIM_BIN_DIR) + "/simrun";
const std::string kConfigs = std::string(PARTSIM_TEST_DATA_DIR) + "/platforms/";

int run(const std::string& command, std::string* output) { return partsim::test::run_command(command, output); }

}  // namespace

TEST(Simrun, AllReduceOnAsymmetricTorusJson) {
  const std::string json_file = testing::TempDir() + "simrun_all_reduce.json";
  std::string out;
  ASSERT_EQ(run(kSimrun + " --config " + kConfigs + "torus_8pf_asym.yaml --collective all_reduce --bytes 100MB --json " +
                    json_file,
                &out),
            0)
      << out;
  std::ifstream in(json_file);
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["collective"], "all_reduce");
  EXPECT_EQ(j["granularity"], "chip");
  EXPECT_EQ(j["config"], "torus_8pf_asym");
  EXPECT_DOUBLE_EQ(j["bytes"].get<double>(), 1e8);
  // Seed 003 §II-D by hand, unidirectional rings (torus_8pf_asym: bidirectional false, 160 GB/s
  // out of each chip): RS_X = 3 x (5e-7 + 1e8/(4 x 1.2e11)) = 6.265e-4; AR_Y of the 25 MB shard =
  // 30 x (5e-7 + 2.5e7/(16 x 4e10)) = 1.186875e-3; AG_X = 6.265e-4: total 2.439875e-3 s.
  EXPECT_NEAR(j["closed_form_s"].get<double>(), 2.439875e-3, 1e-12);
  EXPECT_NEAR(j["simulated_s"].get<double>(), 2.439875e-3, 2.439875e-6);
  EXPECT_LT(std::abs(j["rel_diff"].get<double>()), 1e-3);
  EXPECT_EQ(j["hosts"], 64);
  EXPECT_EQ(j["activities"], 2304);  // 64 chips x 1 direction x 36 steps
}

TEST(Simrun, OverrideChangesTheClosedForm) {
  // --set system.torus.bandwidth[1]=80GB/s on the asymmetric torus: the Y all-reduce of the 25 MB
  // shard takes 30 x (5e-7 + 2.5e7/(16 x 8e10)) = 30 x 2.003125e-5 = 6.009375e-4 s instead of
  // 1.186875e-3; the X phases stay 2 x 6.265e-4: total 1.8539375e-3 s.
  std::string out;
  ASSERT_EQ(run(kSimrun + " --config " + kConfigs +
                    "torus_8pf_asym.yaml --collective all_reduce --bytes 100MB --json - --set "
                    "system.torus.bandwidth[1]=80GB/s",
                &out),
            0)
      << out;
  const auto j = nlohmann::json::parse(out);
  EXPECT_NEAR(j["closed_form_s"].get<double>(), 1.8539375e-3, 1e-12);
}

TEST(Simrun, ZeroBytesTakeTheLatencyOnly) {
  // 2-D all-reduce on torus_8pf: 36 steps (3 + 30 + 3) of one 500 ns hop each = 1.8e-5 s.
  std::string out;
  ASSERT_EQ(run(kSimrun + " --config " + kConfigs + "torus_8pf.yaml --collective all_reduce --bytes 0B --json -", &out), 0)
      << out;
  const auto j = nlohmann::json::parse(out);
  EXPECT_NEAR(j["closed_form_s"].get<double>(), 1.8e-5, 1e-15);
  EXPECT_NEAR(j["simulated_s"].get<double>(), 1.8e-5, 1e-12);
}

TEST(Simrun, ListCollectives) {
  std::string out;
  ASSERT_EQ(run(kSimrun + " --list-collectives", &out), 0);
  for (const char* name : {"p2p", "reduce_scatter", "all_gather", "all_reduce", "broadcast", "all_to_all", "rotate"})
    EXPECT_NE(out.find(name), std::string::npos) << name;
}

TEST(Simrun, BadInputIsOneLineAndExitCode2) {
  for (const std::string args : {"--collective allreduce --bytes 1MB", "--collective all_reduce --bytes 1XB",
                                 "--collective rotate --bytes 1MB --axis all", "--collective all_reduce --bytes 1MB --granularity cores",
                                 "--collective all_reduce --bytes 1MB --group nope", "--collective p2p --bytes 1MB --dst 64",
                                 "--collective all_reduce", "--bytes 1MB",
                                 "--collective all_reduce --bytes 1MB --algorithm nope",
                                 "--collective all_reduce --bytes 1MB --axis x --algorithm ring",
                                 "--collective broadcast --bytes 1MB --algorithm ring"}) {
    std::string out;
    EXPECT_EQ(run(kSimrun + " --config " + kConfigs + "torus_8pf.yaml " + args, &out), 2) << args;
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << args << ": " << out;
  }
}
