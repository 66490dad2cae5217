// simrun --plan end to end: refusing plans made for another platform, byte-identical reruns,
// results.json fields and their relations. The numbers of the lowering itself are tested by hand in
// tests/lowering_*; here the programs are run as a user runs them.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cctype>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include "tests/support/run_command.hpp"

#include "tests/support/text_file.hpp"
#include "tests/support/program_paths.hpp"

using partsim::test::run_command;

namespace {

using partsim::test::kBin;
const std::string kConfigs = std::string(PARTSIM_TEST_DATA_DIR) + "/platforms/";

// A plan of `workload` at batch 256 on torus_8pf by `strategy`, in the tests' temporary folder.
std::string torus_plan(const std::string& strategy, const std::string& workload) {
  const std::string file = testing::TempDir() + "simrun_plan_" + strategy + "_" + workload + ".json";
  std::string out;
  EXPECT_EQ(run_command(kBin + "simplan --config " + kConfigs + "torus_8pf.yaml --workload " + workload +
                            " --batch 256 --strategy " + strategy + " -q -o " + file,
                        &out),
            0)
      << out;
  return file;
}

// The results.json of a quiet, reproducible replay of `plan` on torus_8pf with `options`. The file is
// named after the running test, the plan and the options: ctest runs tests in parallel processes that
// share the temporary folder, and two replays writing one name read each other's results.
nlohmann::json replay_on_torus(const std::string& plan, const std::string& options) {
  std::string tag = plan.substr(plan.find_last_of('/') + 1) + options;
  for (char& c : tag) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  const std::string results = testing::TempDir() + "simrun_replay_" +
                              testing::UnitTest::GetInstance()->current_test_info()->name() + "_" + tag + ".json";
  std::string out;
  EXPECT_EQ(run_command(kBin + "simrun --config " + kConfigs + "torus_8pf.yaml --plan " + plan +
                            " --reproducible -q " + options + " --out " + results,
                        &out),
            0)
      << out;
  return nlohmann::json::parse(partsim::test::read_text_file(results));
}

}  // namespace

TEST(SimrunPlan, PlanForAnotherPlatformIsRefusedWithItsName) {
  const std::string plan = torus_plan("dsm", "alexnet");
  std::string out;
  EXPECT_EQ(run_command(kBin + "simrun --config " + kConfigs + "torus_8pf_asym.yaml --plan " + plan, &out), 2);
  EXPECT_NE(out.find("made for platform 'torus_8pf' but the platform is 'torus_8pf_asym'"), std::string::npos) << out;
  EXPECT_EQ(out.find('\n'), out.size() - 1) << "one line: " << out;
}

TEST(SimrunPlan, ChangedPlatformNeedsAllowConfigChange) {
  const std::string plan = torus_plan("dsm", "alexnet");
  const std::string base = kBin + "simrun --config " + kConfigs + "torus_8pf.yaml --plan " + plan +
                           " --set system.torus.bandwidth=40GB/s";
  std::string out;
  EXPECT_EQ(run_command(base, &out), 2);
  EXPECT_NE(out.find("made for a different version of platform 'torus_8pf'"), std::string::npos) << out;
  EXPECT_NE(out.find("--allow-config-change"), std::string::npos) << out;
  const std::string results = testing::TempDir() + "simrun_changed.json";
  ASSERT_EQ(run_command(base + " --allow-config-change --out " + results, &out), 0) << out;
  // The prediction reported is the plan's own (made for 80 GB/s), kept as written.
  const auto j = nlohmann::json::parse(partsim::test::read_text_file(results));
  const auto p = nlohmann::json::parse(partsim::test::read_text_file(plan));
  EXPECT_DOUBLE_EQ(j["predicted_iteration_s"].get<double>(), p["predicted"]["iteration_s"].get<double>());
}

// The replay is evidence, not an echo (DESIGN.md principle 1): multiplying every predicted time in a
// plan.json by 7 changes the prediction simrun reports and nothing else: the closed form and the
// simulation come from the sharding and the device models alone.
TEST(SimrunPlan, PredictedTimesDoNotReachTheReplay) {
  for (const std::string strategy : {"dsm", "accpar"}) {
    const std::string plan = torus_plan(strategy, "alexnet");
    std::string out;
    auto j = nlohmann::json::parse(partsim::test::read_text_file(plan));
    const std::function<void(nlohmann::json&)> scale = [&](nlohmann::json& v) {
      if (!v.is_object()) return;
      for (auto& [key, value] : v.items()) {
        if (value.is_number() && (key.size() > 2 && key.substr(key.size() - 2) == "_s")) value = value.get<double>() * 7;
        else if (value.is_object() || value.is_array()) scale(value);
      }
    };
    scale(j["predicted"]);
    for (auto& layer : j["layers"]) {
      scale(layer["predicted"]);
      if (layer.contains("passes"))
        for (auto& [pass, cost] : layer["passes"].items()) scale(cost);
    }
    const std::string scaled = testing::TempDir() + "simrun_x7_" + strategy + "_scaled.json";
    std::ofstream(scaled) << j.dump(2);
    const std::string a = testing::TempDir() + "simrun_x7_a.json", b = testing::TempDir() + "simrun_x7_b.json";
    const std::string base = kBin + "simrun --config " + kConfigs + "torus_8pf.yaml --reproducible --plan ";
    ASSERT_EQ(run_command(base + plan + " --out " + a, &out), 0) << out;
    ASSERT_EQ(run_command(base + scaled + " --out " + b, &out), 0) << out;
    const auto ra = nlohmann::json::parse(partsim::test::read_text_file(a)), rb = nlohmann::json::parse(partsim::test::read_text_file(b));
    EXPECT_DOUBLE_EQ(rb["predicted_iteration_s"].get<double>(), 7 * ra["predicted_iteration_s"].get<double>());
    EXPECT_EQ(ra["closed_form_iteration_s"], rb["closed_form_iteration_s"]) << strategy;
    EXPECT_EQ(ra["simulated_iteration_s"], rb["simulated_iteration_s"]) << strategy;
    EXPECT_EQ(ra["activities"], rb["activities"]) << strategy;
  }
}

TEST(SimrunPlan, ReproducibleRunsWriteByteIdenticalResults) {
  const std::string plan = torus_plan("dsm", "alexnet");
  const std::string a = testing::TempDir() + "simrun_a.json", b = testing::TempDir() + "simrun_b.json";
  const std::string base = kBin + "simrun --config " + kConfigs + "torus_8pf.yaml --plan " + plan + " --reproducible";
  std::string out;
  ASSERT_EQ(run_command(base + " --out " + a, &out), 0) << out;
  ASSERT_EQ(run_command(base + " --out " + b, &out), 0) << out;
  const std::string first = partsim::test::read_text_file(a);
  EXPECT_GT(first.size(), 1000u);
  EXPECT_EQ(first, partsim::test::read_text_file(b));
}

// --lone-transfers timed (the default) against simgrid on plans whose transfers both share links and
// run alone: the same times per row. These plans' replays are insensitive to SimGrid's numerical
// settings; heavily contended ones (owt and accpar on the TPU tori) move by up to a few per cent
// when a link bandwidth changes by 1e-10 of itself, in SimGrid alone, and timing the lone transfers
// moves them as much (docs/model.md, "Programs and their two evaluators").
TEST(SimrunPlan, LoneTransfersTimedGiveSimGridsTimes) {
  struct Case {
    std::string strategy, workload, granularity;
  };
  for (const Case& c : {Case{"dp", "resnet50", "chip"}, Case{"dsm", "vgg16", "chip"}, Case{"dsm", "alexnet", "core"}}) {
    const std::string plan = torus_plan(c.strategy, c.workload);
    const std::string base = "--granularity " + c.granularity + " --lone-transfers ";
    const auto t = replay_on_torus(plan, base + "timed");
    const auto s = replay_on_torus(plan, base + "simgrid");
    const std::string what = c.strategy + " " + c.workload + " " + c.granularity;
    // Both paths taken: some transfers met others, some ran alone; with simgrid, none is timed.
    EXPECT_GT(t["simgrid_comms"].get<long long>(), 0) << what;
    EXPECT_GT(t["lone_transfers"].get<long long>(), 0) << what;
    EXPECT_EQ(s["lone_transfers"].get<long long>(), 0) << what;
    EXPECT_EQ(s["simgrid_comms"].get<long long>(),
              t["simgrid_comms"].get<long long>() + t["lone_transfers"].get<long long>()) << what;
    EXPECT_EQ(t["activities"], s["activities"]) << what;
    const double iteration = s["simulated_iteration_s"].get<double>();
    EXPECT_NEAR(t["simulated_iteration_s"].get<double>(), iteration, 1e-9 * iteration) << what;
    ASSERT_EQ(t["layers"].size(), s["layers"].size());
    for (std::size_t i = 0; i < s["layers"].size(); ++i) {
      const double expected = s["layers"][i]["simulated_s"].get<double>();
      EXPECT_NEAR(t["layers"][i]["simulated_s"].get<double>(), expected, 1e-6 * expected + 1e-15)
          << what << " " << s["layers"][i]["name"] << " " << s["layers"][i]["pass"];
    }
  }
}

// network/optim:Full changes how SimGrid solves the sharing, not the rate a flow gets: the same plan
// replays to the same time as under Lazy (the default), up to the time precision the two solvers
// round to (docs/model.md, "The SimGrid platform": -0.55 to +0.81 % on five cross-check plans), and
// transfers that meet no other keep being timed rather than sent through SimGrid.
TEST(SimrunPlan, FullSolverReplaysToLazysTimes) {
  struct Case {
    std::string strategy, workload;
    double tolerance;  // relative
  };
  // dsm's vgg16 moves every transfer in fixed groups (both solvers give the same rates); accpar's
  // alexnet has flows joining and leaving shared links, where the rounding differs.
  for (const Case& c : {Case{"dsm", "vgg16", 1e-9}, Case{"accpar", "alexnet", 1e-2}}) {
    const std::string plan = torus_plan(c.strategy, c.workload);
    const auto l = replay_on_torus(plan, "--granularity chip --simgrid-cfg network/optim:Lazy");
    const auto f = replay_on_torus(plan, "--granularity chip --simgrid-cfg network/optim:Full");
    const std::string what = c.strategy + " " + c.workload;
    EXPECT_GT(f["lone_transfers"].get<long long>(), 0) << what;
    EXPECT_GT(f["simgrid_comms"].get<long long>(), 0) << what;
    EXPECT_EQ(l["activities"], f["activities"]) << what;
    const double iteration = l["simulated_iteration_s"].get<double>();
    EXPECT_NEAR(f["simulated_iteration_s"].get<double>(), iteration, c.tolerance * iteration) << what;
  }
}

TEST(SimrunPlan, ResultsJsonHasTheDocumentedFieldsAndConsistentTimes) {
  const std::string plan = torus_plan("dsm", "alexnet");
  const std::string results = testing::TempDir() + "simrun_fields.json";
  const std::string csv = testing::TempDir() + "simrun_fields.csv";
  std::string out;
  ASSERT_EQ(run_command(kBin + "simrun --config " + kConfigs + "torus_8pf.yaml --plan " + plan + " --out " + results +
                            " --csv " + csv,
                        &out),
            0)
      << out;
  EXPECT_NE(out.find("iteration: predicted"), std::string::npos) << out;
  const auto j = nlohmann::json::parse(partsim::test::read_text_file(results));
  for (const char* key : {"schema", "predicted_iteration_s", "closed_form_iteration_s", "simulated_iteration_s",
                          "utilization", "activities", "simgrid_comms", "lone_transfers", "wall_s", "layers", "links",
                          "cross_check"})
    EXPECT_TRUE(j.contains(key)) << key;
  for (const char* key : {"mean_abs_rel_error", "max_abs_rel_error", "pearson_r"})
    EXPECT_TRUE(j["cross_check"].contains(key)) << key;
  const double closed = j["closed_form_iteration_s"].get<double>();
  const double simulated = j["simulated_iteration_s"].get<double>();
  // Contention can only slow the replay down: simulated >= closed form (SimGrid's clock rounding aside).
  EXPECT_GE(simulated, closed * (1 - 1e-9));
  EXPECT_GT(j["activities"].get<long long>(), 0);
  EXPECT_GT(j["utilization"].get<double>(), 0);
  EXPECT_LE(j["utilization"].get<double>(), 1);
  ASSERT_GT(j["layers"].size(), 10u);
  // The rows' critical-path shares and the rest add up to the iteration (issue 41 item 4); their
  // spans do not have to.
  double critical = j["critical_path_other_s"].get<double>();
  for (const auto& row : j["layers"]) {
    EXPECT_TRUE(row.contains("name") && row.contains("pass") && row.contains("predicted_s") &&
                row.contains("closed_form_s") && row.contains("simulated_s"));
    EXPECT_GE(row["simulated_s"].get<double>(), 0);
    EXPECT_GE(row["critical_path_s"].get<double>(), 0);
    EXPECT_LE(row["critical_path_s"].get<double>(), row["simulated_s"].get<double>() * (1 + 1e-12) + 1e-15);
    critical += row["critical_path_s"].get<double>();
  }
  EXPECT_NEAR(critical, simulated, 1e-12 * simulated);
  // The CSV has a header and one line per row of results.json.
  const std::string table = partsim::test::read_text_file(csv);
  size_t lines = 0;
  for (char c : table) lines += c == '\n';
  EXPECT_EQ(lines, j["layers"].size() + 1);
}

TEST(SimrunPlan, PlanAndCollectiveAreSeparateModes) {
  const std::string plan = torus_plan("dsm", "alexnet");
  std::string out;
  EXPECT_EQ(run_command(kBin + "simrun --config " + kConfigs + "torus_8pf.yaml --plan " + plan +
                            " --collective all_reduce --bytes 1MB",
                        &out),
            2);
  EXPECT_NE(out.find("separate modes"), std::string::npos) << out;
}

TEST(SimrunPlan, MissingPlanFileIsOneLineAndExitTwo) {
  std::string out;
  EXPECT_EQ(run_command(kBin + "simrun --config " + kConfigs + "torus_8pf.yaml --plan /nonexistent/plan.json", &out), 2);
  EXPECT_NE(out.find("/nonexistent/plan.json"), std::string::npos) << out;
}

// simplan --gradient-sync-order / --gradient-bucket write the plan's schedule and simrun replays it:
// with one stream per device the all-reduces can only end later in the uncontended closed form (they
// wait for each other), and one 1 GB bucket holds all of alexnet's gradients (61 M parameters x 2 B
// = 122 MB per device): they go as one all-reduce after back-propagation, a different replay.
TEST(SimrunPlan, GradientSyncOptionsReachTheReplay) {
  const std::string base = kBin + "simplan --config " + kConfigs + "torus_8pf.yaml --workload alexnet --batch 256 --strategy dp";
  const std::string dir = testing::TempDir();
  std::string out;
  ASSERT_EQ(run_command(base + " -o " + dir + "gs_concurrent.json", &out), 0) << out;
  ASSERT_EQ(run_command(base + " --gradient-sync-order in_order -o " + dir + "gs_in_order.json", &out), 0) << out;
  ASSERT_EQ(run_command(base + " --gradient-bucket 1GB -o " + dir + "gs_bucket.json", &out), 0) << out;
  ASSERT_EQ(run_command(base + " --gradient-sync-algorithm parameter_server -o " + dir + "gs_server.json", &out), 0) << out;
  const auto schedule = [&](const std::string& name) {
    return nlohmann::json::parse(partsim::test::read_text_file(dir + name)).value("schedule", nlohmann::json::object());
  };
  EXPECT_TRUE(schedule("gs_concurrent.json").empty());
  EXPECT_EQ(schedule("gs_in_order.json").at("gradient_sync_order"), "in_order");
  EXPECT_EQ(schedule("gs_bucket.json").at("gradient_bucket_bytes"), 1e9);
  EXPECT_EQ(schedule("gs_server.json").at("gradient_sync_algorithm"), "parameter_server");
  const auto replay = [&](const std::string& name) {
    const std::string results = dir + name + ".results.json";
    EXPECT_EQ(run_command(kBin + "simrun --config " + kConfigs + "torus_8pf.yaml --plan " + dir + name + " --out " + results, &out), 0) << out;
    return nlohmann::json::parse(partsim::test::read_text_file(results));
  };
  const auto concurrent = replay("gs_concurrent.json");
  const auto in_order = replay("gs_in_order.json");
  const auto bucket = replay("gs_bucket.json");
  EXPECT_GT(in_order["closed_form_iteration_s"].get<double>(), concurrent["closed_form_iteration_s"].get<double>());
  EXPECT_DOUBLE_EQ(in_order["predicted_iteration_s"].get<double>(), concurrent["predicted_iteration_s"].get<double>());
  EXPECT_NE(bucket["simulated_iteration_s"].get<double>(), concurrent["simulated_iteration_s"].get<double>());
  // One server receiving 7 replicas' gradients through its links is slower than the torus all-reduce.
  EXPECT_GT(replay("gs_server.json")["simulated_iteration_s"].get<double>(), concurrent["simulated_iteration_s"].get<double>());
}

TEST(SimrunPlan, GradientSyncOptionsRefuseWhatTheyCannotMean) {
  const std::string base = kBin + "simplan --config " + kConfigs + "torus_8pf.yaml --workload alexnet --batch 256";
  const std::string plan = testing::TempDir() + "gs_refused.json";
  std::string out;
  EXPECT_EQ(run_command(base + " --strategy dp --gradient-sync-order fifo -o " + plan, &out), 2);
  EXPECT_NE(out.find("--gradient-sync-order: fifo not in {concurrent,in_order}"), std::string::npos) << out;
  EXPECT_EQ(run_command(base + " --strategy dp --gradient-bucket 25parsecs -o " + plan, &out), 2);
  EXPECT_NE(out.find("--gradient-bucket"), std::string::npos) << out;
  EXPECT_EQ(run_command(base + " --strategy dsm --gradient-sync-order in_order -o " + plan, &out), 2);
  EXPECT_NE(out.find("strategy 'dsm' has a lowering of its own"), std::string::npos) << out;
  EXPECT_EQ(run_command(base + " --strategy dp --mode inference --gradient-bucket 1MB -o " + plan, &out), 2);
  EXPECT_NE(out.find("an inference plan has no gradient synchronisation"), std::string::npos) << out;
  EXPECT_EQ(run_command(base + " --strategy dp --gradient-sync-algorithm tree -o " + plan, &out), 2);
  EXPECT_NE(out.find("--gradient-sync-algorithm: tree not in {all_reduce,parameter_server}"), std::string::npos) << out;
  EXPECT_EQ(run_command(base + " --strategy deepa --gradient-sync-algorithm parameter_server -o " + plan, &out), 2);
  EXPECT_NE(out.find("strategy 'deepa' models the gradient synchronisation itself: give --option update="), std::string::npos)
      << out;
  EXPECT_EQ(run_command(base + " --strategy dp --redistribution all_to_all -o " + plan, &out), 2);
  EXPECT_NE(out.find("--redistribution: all_to_all not in {point_to_point,collective}"), std::string::npos) << out;
  EXPECT_EQ(run_command(base + " --strategy dsm --redistribution collective -o " + plan, &out), 2);
  EXPECT_NE(out.find("--redistribution: strategy 'dsm' has a lowering of its own"), std::string::npos) << out;
  EXPECT_FALSE(std::ifstream(plan).good()) << "no plan written";
  // An inference plan takes it (it is not about gradients) and records it.
  const std::string inference = testing::TempDir() + "gs_inference_collective.json";
  EXPECT_EQ(run_command(base + " --strategy owt --mode inference --redistribution collective -o " + inference, &out), 0)
      << out;
  EXPECT_EQ(nlohmann::json::parse(partsim::test::read_text_file(inference)).at("schedule").at("redistribution"),
            "collective");
}

// A replay that may take minutes is announced (issue 41 item 4, docs/sweeps.md "Replays that take
// minutes"): owt's bert_base at batch 128 on tpu_v3_128 lowers to 585,597 point-to-point
// redistribution transfers, over the 200,000 of kRedistributionWarningTransfers: simplan and simrun
// (before its replay, --quiet too) each say so once and name --redistribution collective. Planned
// collective, the count falls under the threshold and neither says anything of it.
TEST(SimrunPlan, ManyPointToPointRedistributionTransfersAreWarnedOf) {
  const std::string base = kBin + "simplan --config " + kConfigs +
                           "tpu_v3_128.yaml --workload bert_base --batch 128 --strategy owt -q -o ";
  const std::string point = testing::TempDir() + "simrun_plan_owt_point.json";
  const std::string collective = testing::TempDir() + "simrun_plan_owt_collective.json";
  const std::string warning = "585,597 point-to-point redistribution transfers";
  const auto count = [](const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  std::string out;
  ASSERT_EQ(run_command(base + point, &out), 0) << out;
  EXPECT_EQ(count(out, "simplan: warning: the plan lowers to " + warning), 1u) << out;
  EXPECT_NE(out.find("plan with --redistribution collective"), std::string::npos) << out;
  ASSERT_EQ(run_command(kBin + "simrun --config " + kConfigs + "tpu_v3_128.yaml -q --plan " + point, &out), 0) << out;
  EXPECT_EQ(count(out, "simrun: warning: the plan lowers to " + warning), 1u) << out;
  ASSERT_EQ(run_command(base + collective + " --redistribution collective", &out), 0) << out;
  EXPECT_EQ(out.find("point-to-point redistribution transfers"), std::string::npos) << out;
  ASSERT_EQ(run_command(kBin + "simrun --config " + kConfigs + "tpu_v3_128.yaml -q --plan " + collective, &out), 0) << out;
  EXPECT_EQ(out.find("point-to-point redistribution transfers"), std::string::npos) << out;
}
