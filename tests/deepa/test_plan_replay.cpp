// `simplan --strategy deepa` end to end: the plan replays with simrun, its prediction is eq. 1 of
// the layers' terms, --explain prints the Table 2/3 form, the plan's check refuses a sharding that
// contradicts the layer's configuration, and the §5 overlap directive reaches the lowering.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/support/run_command.hpp"
#include "tests/support/program_paths.hpp"

using partsim::test::run_command;

namespace {

using partsim::test::kBin;
const std::string kK80 = std::string(PARTSIM_TEST_DATA_DIR) + "/platforms/k80_16gpu.yaml";

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

std::string plan_file(const std::string& workload, int batch, const std::string& options, const std::string& name) {
  const std::string file = testing::TempDir() + "deepa_" + name + ".json";
  std::string out;
  EXPECT_EQ(run_command(kBin + "simplan --config " + kK80 + " --workload " + workload + " --batch " +
                            std::to_string(batch) + " --strategy deepa " + options + " -o " + file,
                        &out),
            0)
      << out;
  return file;
}

double replay(const std::string& plan_file) {
  const std::string results = plan_file + ".results.json";
  std::string out;
  EXPECT_EQ(run_command(kBin + "simrun --config " + kK80 + " --plan " + plan_file + " --out " + results, &out), 0) << out;
  return read_json(results).at("simulated_iteration_s").get<double>();
}

}  // namespace

TEST(DeepaPlan, LenetPlansAndReplays) {
  const std::string file = plan_file("lenet", 64, "", "lenet");
  const nlohmann::json p = read_json(file);
  double sum = 0;
  for (const auto& layer : p.at("layers")) {
    const auto& f = layer.at("family");
    EXPECT_EQ(f.at("workers").get<int>(), f.at("n").get<int>() * f.at("c").get<int>() * f.at("h").get<int>() * f.at("w").get<int>());
    sum += layer.at("predicted").at("total_s").get<double>();
  }
  // Eq. 1: the iteration is the sum of every layer's compute + update + the transfers into it.
  EXPECT_NEAR(p.at("predicted").at("iteration_s").get<double>(), sum, 1e-9 * sum);
  EXPECT_EQ(p.at("family").at("search").at("nodes_left").get<int>(), 2);  // a chain reduces to 2 nodes
  EXPECT_GT(replay(file), 0);
}

TEST(DeepaPlan, ExplainPrintsEveryConfigurationOfTheLayer) {
  std::string out;
  ASSERT_EQ(run_command(kBin + "simplan --config " + kK80 + " --workload alexnet --batch 512 --strategy deepa --explain fc6", &out), 0)
      << out;
  // fc6 has n and c only: worker counts 1, 2, 4, 8, 16 -> 1 + 2 + 3 + 4 + 5 = 15 rows.
  for (const char* row : {"{n=16, c=1}", "{n=1, c=16}", "{n=1, c=4}", "{n=1, c=2}", "{n=1, c=1}", "image parallelism", "DeePa"})
    EXPECT_NE(out.find(row), std::string::npos) << row << "\n" << out;
  EXPECT_EQ(run_command(kBin + "simplan --config " + kK80 + " --workload alexnet --batch 512 --strategy deepa --explain nope", &out), 2);
}

TEST(DeepaPlan, CheckRefusesAShardingThatIsNotTheConfiguration) {
  const std::string file = plan_file("lenet", 64, "", "lenet_bad");
  nlohmann::json p = read_json(file);
  p["layers"][1]["family"]["n"] = 3;  // workers no longer n x c x h x w
  const std::string bad = testing::TempDir() + "deepa_bad.json";
  std::ofstream(bad) << p.dump();
  std::string out;
  EXPECT_EQ(run_command(kBin + "simrun --config " + kK80 + " --plan " + bad, &out), 2) << out;
  EXPECT_NE(out.find("/layers/1/family"), std::string::npos) << out;
}

TEST(DeepaPlan, WithoutOverlapTheGradientSyncWaitsForBackPropagation) {
  // Image parallelism on 16 GPUs: every weighted layer all-reduces its gradients. Without overlap
  // the all-reduces start after the last backward computation, so the step cannot be shorter.
  const std::string on = plan_file("alexnet", 128, "--option space=image", "overlap_on");
  const std::string off = plan_file("alexnet", 128, "--option space=image --option overlap=false", "overlap_off");
  EXPECT_FALSE(read_json(on).contains("schedule"));  // the default is not written
  EXPECT_EQ(read_json(off).at("schedule").at("overlap_gradient_sync"), false);
  const double with = replay(on), without = replay(off);
  EXPECT_GT(without, with * 1.01) << with << " " << without;
}

TEST(DeepaPlan, BadOptionsAreOneLineErrors) {
  std::string out;
  const std::string base = kBin + "simplan --config " + kK80 + " --workload lenet --batch 64 --strategy deepa -o " +
                           testing::TempDir() + "deepa_never.json ";
  EXPECT_EQ(run_command(base + "--option max_workers=0", &out), 2) << out;
  EXPECT_NE(out.find("max_workers"), std::string::npos) << out;
  EXPECT_EQ(run_command(base + "--option dims=q", &out), 2) << out;
  EXPECT_NE(out.find("n,c,h,w"), std::string::npos) << out;
  EXPECT_EQ(run_command(base + "--option space=hybrid", &out), 2) << out;
}

TEST(DeepaPlan, APrecomputationOverXferLimitIsRefusedWithExitTwoAndNoPlan) {
  const std::string file = testing::TempDir() + "deepa_refused.json";
  std::remove(file.c_str());
  std::string out;
  EXPECT_EQ(run_command(kBin + "simplan --config " + kK80 + " --workload alexnet --batch 512 --strategy deepa --option xfer_limit=1e6 -o " + file,
                        &out),
            2)
      << out;
  EXPECT_NE(out.find("over option xfer_limit=1e+06"), std::string::npos) << out;
  EXPECT_NE(out.find("max_workers"), std::string::npos) << out;
  EXPECT_FALSE(std::ifstream(file).good()) << "a refused plan must not leave a file";
}
