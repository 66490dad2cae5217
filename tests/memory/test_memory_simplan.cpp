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

// The replay's memory timeline through simplan and simrun (issue 39 item 4): the 4-layer chain of
// tests/memory/test_memory_timeline.cpp (x -> fc1 -> fc2 -> fc3, 512 wide, batch 32, data parallel
// over 4 bf16 devices, 18 B per parameter), replayed on SimGrid. By hand: resident 786,432 x 18 =
// 14,155,776 B; four output boxes of 8 x 512 x 2 = 8,192 B held at the end of the forward pass
// (14,188,544 B) and fc3's BWD working set dY + dX = 16,384 B from that instant: peak 14,204,928 B
// on every device (d0 reported, the lowest index). The table's row peaks (the resident bytes plus):
// fc1's spans reach 32,768 B in its UPD (x and fc1's outputs, 16,384, + its working set, 16,384; the
// other layers' outputs freed by then); fc2's 40,960 B in its BWD (x, fc1, fc2 outputs 24,576 + its
// working 16,384, fc3's output freed by fc3's backward); fc3's the peak.
TEST(MemorySimplan, SimrunReportsTheMemoryTimelinePeak) {
  const std::string data = std::string(PARTSIM_SOURCE_DIR) + "/tests/data/memory/";
  const std::string plan = temp_path("chain4_plan.json"), results = temp_path("chain4_results.json"),
                    csv = temp_path("chain4_layers.csv"), trace = temp_path("chain4_trace.json");
  const std::string platform = " --config " + data + "four_bf16.yaml";
  std::string out;
  ASSERT_EQ(run_command(kBin + "simplan" + platform + " --workload " + data + "chain4.yaml --batch 32 --strategy dp -o " +
                            plan + " --quiet",
                        &out),
            0)
      << out;
  ASSERT_EQ(run_command(kBin + "simrun" + platform + " --plan " + plan + " --out " + results + " --csv " + csv +
                            " --timeline " + trace,
                        &out),
            0)
      << out;
  EXPECT_NE(out.find("memory peak 0.013 GiB on d0"), std::string::npos) << out;
  std::ifstream in(results);
  const nlohmann::json j = nlohmann::json::parse(in);
  const nlohmann::json& m = j.at("memory_timeline");
  EXPECT_EQ(m.at("available"), true);
  EXPECT_EQ(m.at("evaluation"), "simulated");
  EXPECT_EQ(m.at("peak_bytes").get<double>(), 14204928.0);
  EXPECT_EQ(m.at("peak_device"), "d0");
  EXPECT_GT(m.at("peak_time_s").get<double>(), 0.0);  // when fc3's FWD ends, after three layers' compute
  EXPECT_LT(m.at("peak_time_s").get<double>(), j.at("simulated_iteration_s").get<double>());
  EXPECT_EQ(m.at("capacity_bytes").get<double>(), 17179869184.0);  // 16 GiB
  ASSERT_EQ(m.at("devices").size(), 4u);
  for (const auto& d : m.at("devices")) {
    EXPECT_EQ(d.at("peak_bytes").get<double>(), 14204928.0);
    EXPECT_EQ(d.at("resident_bytes").get<double>(), 14155776.0);
  }
  const nlohmann::json& rows = j.at("layers");
  ASSERT_EQ(rows.size(), 3u);  // fc1, fc2, fc3 (x has no tasks)
  EXPECT_EQ(rows[0].at("memory_peak_bytes").get<double>(), 14188544.0);
  EXPECT_EQ(rows[1].at("memory_peak_bytes").get<double>(), 14196736.0);
  EXPECT_EQ(rows[2].at("memory_peak_bytes").get<double>(), 14204928.0);

  std::ifstream csv_in(csv);
  std::string header, fc1;
  std::getline(csv_in, header);
  std::getline(csv_in, fc1);
  EXPECT_TRUE(header.ends_with(",rel_error,memory_peak_bytes,critical_path_s")) << header;
  EXPECT_NE(fc1.find(",14188544,"), std::string::npos) << fc1;  // critical_path_s follows

  // A counter track per device: Perfetto's "C" events, the first at 0 with the model states, the
  // samples and fc1's output (its FWD starts at 0): 14,155,776 + 2 x 8,192 = 14,172,160 B.
  std::ifstream trace_in(trace);
  const nlohmann::json t = nlohmann::json::parse(trace_in);
  std::size_t counters = 0;
  bool first_on_d0 = true;
  for (const auto& e : t.at("traceEvents")) {
    if (e.at("ph") != "C") continue;
    ++counters;
    EXPECT_EQ(e.at("name"), "memory in use");
    if (e.at("pid") == 0 && first_on_d0) {
      EXPECT_EQ(e.at("ts").get<double>(), 0.0);
      EXPECT_EQ(e.at("args").at("bytes").get<double>(), 14172160.0);
      first_on_d0 = false;
    }
  }
  EXPECT_EQ(counters, t.at("otherData").at("counter_events").get<std::size_t>());
  EXPECT_GE(counters, 4u);
}

// A strategy with its own lowering (dsm) has no timeline, and says so instead of printing zeros.
TEST(MemorySimplan, DsmPlansSayTheyHaveNoMemoryTimeline) {
  const std::string plan = temp_path("dsm_plan.json"), results = temp_path("dsm_results.json");
  const std::string platform = " --config " + kConfigs + "torus_8pf.yaml";
  std::string out;
  ASSERT_EQ(run_command(kBin + "simplan" + platform + " --workload alexnet --batch 64 --strategy dsm --quiet -o " + plan, &out), 0)
      << out;
  ASSERT_EQ(run_command(kBin + "simrun" + platform + " --plan " + plan + " --out " + results, &out), 0) << out;
  EXPECT_NE(out.find("memory timeline: none (strategy dsm lowers its plans itself"), std::string::npos) << out;
  std::ifstream in(results);
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_EQ(j.at("memory_timeline").at("available"), false);
  EXPECT_NE(j.at("memory_timeline").at("reason").get<std::string>().find("dsm"), std::string::npos);
  EXPECT_TRUE(j.at("layers").at(0).at("memory_peak_bytes").is_null());
}
