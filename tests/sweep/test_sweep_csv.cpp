#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sim/common/error.hpp"
#include "sim/sweep/sweep_csv.hpp"
#include "tests/support/input_errors.hpp"

using namespace partsim::sweep;

namespace {
std::vector<SweepAxis> two_axes() {
  return {parse_vary("system.device_types.c.core.scratchpad=512KiB,1MiB"), parse_vary("strategy=dsm,dp")};
}
}  // namespace

// The contract the plots rely on: <axis>, <axis>_si for every axis, then the fixed columns.
TEST(SweepCsv, HeaderAndRows) {
  const auto axes = two_axes();
  EXPECT_EQ(csv_header(axes),
            "system.device_types.c.core.scratchpad,system.device_types.c.core.scratchpad_si,strategy,strategy_si,"
            "status,predicted_s,closed_form_s,simulated_s,utilization,memory_peak_bytes,error,warnings\n");
  const auto points = sweep_points(axes);
  // The memory peak in whole bytes (121,291,481,088 has 12 digits: not cut to 9); empty without one.
  PointOutcome ok{"ok", 0.5, 0.25, 0.125, 0.75, 121291481088.0, "", {}, true};
  EXPECT_EQ(csv_row(axes, points[0], ok), "512KiB,524288,dsm,,ok,0.5,0.25,0.125,0.75,121291481088,,\n");
  // Warnings: status warning, "; "-separated; a comma in them quotes the field (RFC 4180).
  PointOutcome warned{"warning", 1, 1, 2, 0.5, std::nullopt, "", {"simplan: warning: a", "simplan: warning: b, c"}, true};
  EXPECT_EQ(csv_row(axes, points[3], warned),
            "1MiB,1048576,dp,,warning,1,1,2,0.5,,,\"simplan: warning: a; simplan: warning: b, c\"\n");
  PointOutcome failed{"failed", 0, 0, 0, 0, std::nullopt, "simrun: error: \"x\"", {}, false};
  EXPECT_EQ(csv_row(axes, points[1], failed), "512KiB,524288,dp,,failed,,,,,,\"simrun: error: \"\"x\"\"\",\n");
}

// The memory column comes from results.json's memory_timeline: its peak when there is a timeline,
// nothing when the strategy has none (dsm: "available": false).
TEST(SweepCsv, MemoryPeakFromResults) {
  const auto file = std::filesystem::temp_directory_path() / "partsim_sweep_csv_results.json";
  const std::string totals = R"("predicted_iteration_s": 1, "closed_form_iteration_s": 2, "simulated_iteration_s": 3, "utilization": 0.5)";
  std::ofstream(file) << "{" << totals << R"(, "memory_timeline": {"available": true, "peak_bytes": 14204928}})";
  auto read = results_totals(file);
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->memory_peak_bytes, 14204928.0);
  std::ofstream(file) << "{" << totals << R"(, "memory_timeline": {"available": false, "reason": "dsm"}})";
  read = results_totals(file);
  ASSERT_TRUE(read.has_value());
  EXPECT_FALSE(read->memory_peak_bytes.has_value());
  std::filesystem::remove(file);
}

TEST(SweepCsv, WarningLinesOfALog) {
  const std::string log =
      "dsm on torus_8pf: predicted 1 s\n"
      "simplan: warning: the plan needs 9 GB\n"
      "[0.000000] [xbt_cfg/WARNING] option x is deprecated\n"
      "simrun: error: nothing\n";
  EXPECT_EQ(warning_lines(log), (std::vector<std::string>{"simplan: warning: the plan needs 9 GB",
                                                          "[0.000000] [xbt_cfg/WARNING] option x is deprecated"}));
}

// Shards 0 and 1 of the 4 points (2 each) merge into the header and the four rows in order; a
// shard that did not finish or files out of order are refused naming the file.
TEST(SweepCsv, MergesShardsInOrderAndChecksThem) {
  const auto axes = two_axes();
  const auto points = sweep_points(axes);
  const PointOutcome ok{"ok", 1, 1, 1, 1, std::nullopt, "", {}, true};
  std::string rows[4];
  for (int i = 0; i < 4; ++i) rows[i] = csv_row(axes, points[static_cast<size_t>(i)], ok);
  const std::string header = csv_header(axes);
  const std::vector<SweepPoint> first(points.begin(), points.begin() + 2), second(points.begin() + 2, points.end());
  EXPECT_EQ(merge_shards({{"a.csv", header + rows[0] + rows[1], first}, {"b.csv", header + rows[2] + rows[3], second}}, axes),
            header + rows[0] + rows[1] + rows[2] + rows[3]);
  using partsim::test::input_error_of;
  EXPECT_NE(input_error_of([&] { merge_shards({{"a.csv", header + rows[0], first}}, axes); })
                .find("a.csv: 1 rows, but its shard of this sweep has 2 points"),
            std::string::npos);
  EXPECT_NE(input_error_of([&] { merge_shards({{"b.csv", header + rows[2] + rows[3], first}}, axes); })
                .find("b.csv: row 2 is not the shard's point 1"),
            std::string::npos);
  EXPECT_NE(input_error_of([&] { merge_shards({{"c.csv", "x,y\n" + rows[0] + rows[1], first}}, axes); })
                .find("c.csv: not a shard of this sweep"),
            std::string::npos);
}

// A point whose plan does not fit memory is `over_memory`, not `failed` nor timed as if it could run
// (issue 39 item 5): refused by simplan (no times), or replayed all the same (times, and the line
// that says it does not fit in the error column).
TEST(SweepCsv, PointsOverMemory) {
  const auto dir = std::filesystem::temp_directory_path() / "partsim_sweep_csv_over_memory";
  std::filesystem::create_directories(dir);
  const std::string refusal =
      "simplan: the plan does not fit: every device (t) has 32 GiB of memory but the plan needs 130.3 GiB on it (...)";
  std::ofstream(dir / "log.txt") << "dp on t, llama_7b batch 256\n" << refusal << "\n";
  PointOutcome refused = read_outcome(dir, 2);
  EXPECT_EQ(refused.status, "over_memory");
  EXPECT_EQ(refused.error, refusal);
  EXPECT_FALSE(refused.timed);
  const auto axes = two_axes();
  const auto points = sweep_points(axes);
  EXPECT_EQ(csv_row(axes, points[0], refused), "512KiB,524288,dsm,,over_memory,,,,,," + refusal + ",\n");

  // Another refusal that mentions nothing of memory stays a failure.
  std::ofstream(dir / "log.txt") << "simplan: --option tp: unknown option\n";
  EXPECT_EQ(read_outcome(dir, 2).status, "failed");

  const std::string warning = "simplan: warning: the plan does not fit, written as --allow-over-memory asks: x";
  std::ofstream(dir / "log.txt") << warning << "\nsimrun: warning: the plan does not fit (made with ...)\n";
  std::ofstream(dir / "results.json")
      << R"({"predicted_iteration_s": 1, "closed_form_iteration_s": 2, "simulated_iteration_s": 3, "utilization": 0.5})";
  const PointOutcome replayed = read_outcome(dir, 0);
  EXPECT_EQ(replayed.status, "over_memory");
  EXPECT_EQ(replayed.error, warning);
  EXPECT_TRUE(replayed.timed);
  EXPECT_EQ(replayed.simulated_s, 3.0);
  EXPECT_EQ(replayed.warnings.size(), 2u);
  std::filesystem::remove_all(dir);
}
