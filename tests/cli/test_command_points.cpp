// What every program's command line offers beyond its modes (issue 20): --version, --quiet,
// simplan's required --batch, simrun's header when a plan meets changed platform parameters, and
// the timeline options end to end (.json.gz, filters, cap warning).
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "tests/support/run_command.hpp"
#include "tests/support/text_file.hpp"
#include "tests/support/program_paths.hpp"

using partsim::test::run_command;

namespace {

using partsim::test::kBin;
using partsim::test::kConfig;

// A dsm plan of vgg16 at batch 16 on torus_8pf (a second to make and replay at chip granularity).
std::string make_plan(const std::string& name) {
  const std::string plan = ::testing::TempDir() + name;
  std::string out;
  EXPECT_EQ(run_command(kBin + "simplan --config " + kConfig + " --workload vgg16 --batch 16 --strategy dsm -o " + plan,
                        &out),
            0)
      << out;
  return plan;
}

// Runs `command`; its stdout alone goes to `out`, stderr to `err`.
int run_split(const std::string& command, std::string& out, std::string& err) {
  // One file per test process: ctest -j runs these tests side by side, and a shared stderr.txt let
  // one test read what another had just written (QuietPrintsNothingButErrors's empty stderr).
  const std::string err_file = ::testing::TempDir() + "stderr_" + std::to_string(::getpid()) + ".txt";
  const int code = run_command("(" + command + " 2>" + err_file + ")", &out);  // the subshell keeps stderr apart
  err = partsim::test::read_text_file(err_file);
  return code;
}

}  // namespace

TEST(CommandPoints, VersionOnEveryProgram) {
  for (const std::string program : {"simrun", "simplan", "simsweep"}) {
    std::string out;
    EXPECT_EQ(run_command(kBin + program + " --version", &out), 0) << program;
    // "<program> 0.1.0" (the CMake project version), then " (git ...)" when configured in a git tree.
    EXPECT_TRUE(std::regex_match(out, std::regex(program + " [0-9]+\\.[0-9]+\\.[0-9]+( \\(git [^)]+\\))?\n"))) << out;
  }
}

TEST(CommandPoints, SimplanPlanningRequiresBatch) {
  std::string out;
  const std::string plan = ::testing::TempDir() + "no_batch.json";
  std::filesystem::remove(plan);
  EXPECT_EQ(run_command(kBin + "simplan --config " + kConfig + " --workload vgg16 --strategy dsm -o " + plan, &out), 2);
  EXPECT_EQ(out, "simplan: error: --strategy needs --batch N (the minibatch the plan is for; 1 to 1000000000)\n");
  EXPECT_FALSE(std::filesystem::exists(plan));
  // --describe without --batch describes one sample and says so on stderr.
  std::string table, err;
  EXPECT_EQ(run_split(kBin + "simplan --workload alexnet --describe", table, err), 0);
  EXPECT_EQ(err, "simplan: note: no --batch given: describing one sample (batch 1)\n");
  EXPECT_EQ(run_split(kBin + "simplan --workload alexnet --describe --quiet", table, err), 0);
  EXPECT_EQ(err, "");
  EXPECT_FALSE(table.empty());  // --quiet keeps what was asked for
}

TEST(CommandPoints, QuietPrintsNothingButErrors) {
  const std::string plan = ::testing::TempDir() + "quiet_plan.json";
  std::string out, err;
  EXPECT_EQ(run_split(kBin + "simplan --quiet --config " + kConfig + " --workload vgg16 --batch 16 --strategy dsm -o " + plan,
                      out, err),
            0);
  EXPECT_EQ(out + err, "");
  const std::string results = ::testing::TempDir() + "quiet_results.json";
  EXPECT_EQ(run_split(kBin + "simrun -q --config " + kConfig + " --plan " + plan + " --out " + results, out, err), 0);
  EXPECT_EQ(out + err, "");
  EXPECT_TRUE(std::filesystem::exists(results));
  // Errors are still printed.
  EXPECT_EQ(run_split(kBin + "simrun --quiet --config " + kConfig + " --plan /nonexistent.json", out, err), 2);
  EXPECT_NE(err.find("simrun: error:"), std::string::npos) << err;
}

TEST(CommandPoints, HeaderNamesChangedKeysAndSummaryLeadsWithWeightedError) {
  const std::string plan = make_plan("changed_plan.json");
  const std::string results = ::testing::TempDir() + "changed_results.json";
  std::string out;
  ASSERT_EQ(run_command(kBin + "simrun --config " + kConfig + " --set 'system.torus.bandwidth[0]=40GB/s' --plan " + plan +
                            " --allow-config-change --worst 3 --out " + results,
                        &out),
            0)
      << out;
  const auto json = nlohmann::json::parse(partsim::test::read_text_file(results));
  EXPECT_EQ(json["platform_changes"], nlohmann::json::array({"system.torus.bandwidth[0]: 80GB/s -> 40GB/s"}));
  // torus_8pf.yaml has 80 GB/s in x.
  EXPECT_NE(out.find("plan made for other platform parameters (--allow-config-change), its predictions are for those:\n"
                     "  system.torus.bandwidth[0]: 80GB/s -> 40GB/s\n"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("cause: overlap"), std::string::npos) << out;
  EXPECT_NE(out.find("cause: platform changed since planning (system.torus.bandwidth[0]: 80GB/s -> 40GB/s)"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("rows: |error| weighted by predicted time "), std::string::npos) << out;
  // Same platform: no such header, no platform_changes.
  ASSERT_EQ(run_command(kBin + "simrun --config " + kConfig + " --plan " + plan + " --out " + results, &out), 0) << out;
  EXPECT_EQ(out.find("plan made for other platform parameters"), std::string::npos);
  EXPECT_FALSE(nlohmann::json::parse(partsim::test::read_text_file(results)).contains("platform_changes"));
}

TEST(CommandPoints, TimelineGzipFiltersAndCapWarning) {
  const std::string plan = make_plan("timeline_plan.json");
  const std::string gz = ::testing::TempDir() + "trace.json.gz";
  const std::string plain = ::testing::TempDir() + "trace.json";
  std::string out, err;
  ASSERT_EQ(run_split(kBin + "simrun -q --config " + kConfig + " --plan " + plan + " --timeline " + gz, out, err), 0) << err;
  ASSERT_EQ(run_split(kBin + "simrun -q --config " + kConfig + " --plan " + plan + " --timeline " + plain, out, err), 0);
  const std::string packed = partsim::test::read_text_file(gz);
  ASSERT_GT(packed.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(packed[0]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>(packed[1]), 0x8b);
  EXPECT_LT(packed.size(), partsim::test::read_text_file(plain).size() / 4);  // JSON compresses well
  std::string unpacked;
  ASSERT_EQ(run_command("gzip -dc " + gz, &unpacked), 0);
  EXPECT_EQ(unpacked, partsim::test::read_text_file(plain));

  // Filters: conv1_1 on d0, no link tracks: every event is conv1_1's, on d0's process (pid 0).
  ASSERT_EQ(run_split(kBin + "simrun -q --config " + kConfig + " --plan " + plan + " --timeline " + plain +
                          " --timeline-layers conv1_1 --timeline-devices d0 --timeline-links none",
                      out, err),
            0)
      << err;
  const auto trace = nlohmann::json::parse(partsim::test::read_text_file(plain));
  size_t events = 0;
  for (const auto& ev : trace["traceEvents"]) {
    if (ev["ph"] != "X") continue;
    ++events;
    EXPECT_EQ(ev["name"].get<std::string>().rfind("conv1_1/", 0), 0u) << ev.dump();
    EXPECT_EQ(ev["pid"], 0) << ev.dump();
  }
  EXPECT_GT(events, 0u);
  // A cap: one warning line, also with --quiet.
  ASSERT_EQ(run_split(kBin + "simrun -q --config " + kConfig + " --plan " + plan + " --timeline " + plain +
                          " --timeline-max-events 10",
                      out, err),
            0);
  EXPECT_EQ(err.rfind("simrun: warning: timeline capped at 10 events: ", 0), 0u) << err;
  EXPECT_EQ(err.find('\n'), err.size() - 1) << err;
  // Unknown names: exit 2 before the replay, no file.
  std::filesystem::remove(plain);
  EXPECT_EQ(run_split(kBin + "simrun --config " + kConfig + " --plan " + plan + " --timeline " + plain +
                          " --timeline-layers conv9",
                      out, err),
            2);
  EXPECT_EQ(err.rfind("simrun: error: --timeline-layers: no layer 'conv9' in the plan (first of ", 0), 0u) << err;
  EXPECT_FALSE(std::filesystem::exists(plain));
  EXPECT_EQ(run_split(kBin + "simrun --config " + kConfig + " --plan " + plan + " --timeline " + plain +
                          " --timeline-links pcie",
                      out, err),
            2);
  EXPECT_NE(err.find("--timeline-links"), std::string::npos) << err;
  // The timeline's options without --timeline: refused, not ignored.
  EXPECT_EQ(run_split(kBin + "simrun --config " + kConfig + " --plan " + plan + " --timeline-layers conv1_1", out, err),
            2);
  EXPECT_NE(err.find("--timeline-layers requires --timeline"), std::string::npos) << err;
}
