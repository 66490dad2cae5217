// Calibrated devices (kind: calibrated) and their efficiency tables: a good table reads row by row,
// every problem in a table is one line naming file:line:column and the key path, built-in tables are
// found by name (an unknown name lists them), relative table paths start at the platform file's
// directory, and --dump-config writes the table's reference, which reads back to the same spec.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "sim/common/yaml_reader.hpp"
#include "tests/platform_spec/test_tables.hpp"
#include "tests/support/input_errors.hpp"
#include "tests/support/platform_yaml.hpp"
#include "topology/device_presets.hpp"
#include "topology/efficiency_table.hpp"
#include "topology/system_parser.hpp"
#include "topology/system_writer.hpp"

namespace {

using namespace partsim::topology;
using partsim::test::input_error_of;
using partsim::test::platform_from_yaml;

using partsim::test::kTestTable;

std::vector<EfficiencyPoint> table_from_text(const std::string& text) {
  return parse_efficiency_table(partsim::yaml::load_string(text, "table.yaml"));
}

/// A table whose only row is `row` (a flow map), on line 4.
std::string one_row(const std::string& row) {
  return "table: t\ndevice: d\nrows:\n  - " + row + "\n";
}
const std::string kGoodRow = "{op: gemm, precision: bf16, pass: fwd, size: 1e9, efficiency: 0.5, shape: s, source: x}";

std::string row_error(const std::string& row) {
  return input_error_of([&] { table_from_text(one_row(row)); });
}

TEST(EfficiencyTable, GoodFileReadsEveryRowInOrder) {
  const auto rows = parse_efficiency_table(partsim::yaml::load_file(kTestTable));
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0].op, OperatorClass::gemm);
  EXPECT_EQ(rows[0].precision, Precision::bf16);
  EXPECT_EQ(rows[0].pass, KernelPass::fwd);
  EXPECT_DOUBLE_EQ(rows[0].size, 1e9);
  EXPECT_DOUBLE_EQ(rows[0].efficiency, 0.3);
  EXPECT_EQ(rows[0].shape, "m=n=k=1024");
  EXPECT_EQ(rows[0].source, "tests");
  EXPECT_DOUBLE_EQ(rows[1].size, 1.37438953472e11);  // 2 x 4096^3 FLOP
  EXPECT_EQ(rows[2].pass, KernelPass::bwd);
  // A new (op, precision, pass) starts its own size order: 1e9 after 1.37e11 is fine.
  EXPECT_DOUBLE_EQ(rows[2].size, 1e9);
  EXPECT_EQ(rows[3].op, OperatorClass::elementwise);
  EXPECT_EQ(rows[3].precision, Precision::fp32);
  EXPECT_DOUBLE_EQ(rows[4].efficiency, 0.9);
}

TEST(EfficiencyTable, EveryOperatorClassAndPrecisionIsAccepted) {
  std::string text = "table: t\ndevice: d\nrows:\n";
  for (const char* op : {"gemm", "conv", "attention", "flash_attention", "normalization", "softmax", "elementwise",
                         "embedding", "optimizer"})
    for (const char* precision : {"fp32", "fp16", "bf16"})
      text += std::string("  - {op: ") + op + ", precision: " + precision +
              ", pass: bwd, size: 8, efficiency: 1, shape: s, source: x}\n";
  const auto rows = table_from_text(text);
  ASSERT_EQ(rows.size(), 27u);
  EXPECT_EQ(rows.back().op, OperatorClass::optimizer);
  EXPECT_EQ(rows[1].precision, Precision::fp16);
}

TEST(EfficiencyTable, EachBadRowIsOneLineNamingFileLineAndKey) {
  EXPECT_EQ(row_error(kGoodRow), "<no error>");
  EXPECT_EQ(row_error("{op: gem, precision: bf16, pass: fwd, size: 1e9, efficiency: 0.5, shape: s, source: x}"),
            "table.yaml:4:10: rows[0].op: must be one of gemm, conv, attention, flash_attention, normalization, "
            "softmax, elementwise, embedding, optimizer (got gem)");
  EXPECT_EQ(row_error("{op: gemm, precision: int8, pass: fwd, size: 1e9, efficiency: 0.5, shape: s, source: x}"),
            "table.yaml:4:27: rows[0].precision: must be one of fp32, fp16, bf16 (got int8)");
  EXPECT_EQ(row_error("{op: gemm, precision: bf16, pass: forward, size: 1e9, efficiency: 0.5, shape: s, source: x}"),
            "table.yaml:4:39: rows[0].pass: must be one of fwd, bwd (got forward)");
  EXPECT_EQ(row_error("{op: gemm, precision: bf16, pass: fwd, size: 0, efficiency: 0.5, shape: s, source: x}"),
            "table.yaml:4:50: rows[0].size: must be > 0 (got 0)");
  EXPECT_EQ(row_error("{op: gemm, precision: bf16, pass: fwd, size: 1GB, efficiency: 0.5, shape: s, source: x}"),
            "table.yaml:4:50: rows[0].size: expected a number (got 1GB)");
  EXPECT_EQ(row_error("{op: gemm, precision: bf16, pass: fwd, size: 1e9, efficiency: 0, shape: s, source: x}"),
            "table.yaml:4:67: rows[0].efficiency: must be in (0, 1] (got 0)");
  EXPECT_EQ(row_error("{op: gemm, precision: bf16, pass: fwd, size: 1e9, efficiency: 1.2, shape: s, source: x}"),
            "table.yaml:4:67: rows[0].efficiency: must be in (0, 1] (got 1.2)");
  EXPECT_EQ(row_error("{op: gemm, precision: bf16, pass: fwd, size: 1e9, efficiency: 0.5, shape: \"\", source: x}"),
            "table.yaml:4:79: rows[0].shape: must not be empty");
  EXPECT_EQ(row_error("{op: gemm, precision: bf16, pass: fwd, size: 1e9, efficiency: 0.5, shape: s}"),
            "table.yaml:4:5: rows[0].source: missing required key");
  EXPECT_EQ(row_error("{op: gemm, precision: bf16, pass: fwd, size: 1e9, efficiency: 0.5, shape: s, source: x, n: 1}"),
            "table.yaml:4:93: rows[0].n: unknown key (allowed: efficiency, op, pass, precision, shape, size, source)");
}

TEST(EfficiencyTable, SizesStrictlyIncreaseWithinOneOpPrecisionAndPass) {
  const std::string text =
      "table: t\ndevice: d\nrows:\n"
      "  - {op: gemm, precision: bf16, pass: fwd, size: 2e9, efficiency: 0.5, shape: s, source: x}\n"
      "  - {op: gemm, precision: fp16, pass: fwd, size: 1e9, efficiency: 0.5, shape: s, source: x}\n"
      "  - {op: gemm, precision: bf16, pass: fwd, size: 2e9, efficiency: 0.6, shape: s, source: x}\n";
  EXPECT_EQ(input_error_of([&] { table_from_text(text); }),
            "table.yaml:6:50: rows[2].size: sizes of gemm/bf16/fwd must strictly increase in file order (got 2e9 "
            "after 2000000000)");
}

TEST(EfficiencyTable, TopLevelKeys) {
  auto error = [](const std::string& text) { return input_error_of([&] { table_from_text(text); }); };
  EXPECT_EQ(error("device: d\nrows: []\n"), "table.yaml:1:1: table: missing required key");
  EXPECT_EQ(error("table: t\nrows: []\n"), "table.yaml:1:1: device: missing required key");
  EXPECT_EQ(error("table: t\ndevice: d\n"), "table.yaml:1:1: rows: missing required key");
  EXPECT_EQ(error("table: t\ndevice: d\nrows: []\n"), "table.yaml:3:7: rows: must list at least one row");
  EXPECT_EQ(error("table: t\ndevice: d\npeaks: 3\nrows: []\n"),
            "table.yaml:3:8: peaks: expected a map (documentation only)");
  EXPECT_EQ(error("table: t\ndevice: d\nmeasure: {}\nrows: [" + kGoodRow + "]\n"),
            "table.yaml:3:1: measure: unknown key (allowed: device, measured, peaks, rows, table)");
  // peaks and measured are free-form maps.
  EXPECT_EQ(error("table: t\ndevice: d\npeaks: {fp32: 1e12, source: x}\nmeasured: {gpu: g, nested: {a: 1}}\nrows: [" +
                  kGoodRow + "]\n"),
            "<no error>");
}

// ---- Built-in tables --------------------------------------------------------------------------

TEST(EfficiencyTable, EveryFileOfConfigsDevicesIsBuiltInAndValid) {
  std::vector<std::string> stems;
  const std::filesystem::path dir = std::filesystem::path(PARTSIM_SOURCE_DIR) / "configs" / "devices";
  if (std::filesystem::is_directory(dir))
    for (const auto& entry : std::filesystem::directory_iterator(dir))
      if (entry.path().extension() == ".yaml") stems.push_back(entry.path().stem().string());
  std::sort(stems.begin(), stems.end());
  std::vector<std::string> built_in;
  for (const auto& table : builtin_efficiency_tables()) {
    built_in.emplace_back(table.name);
    SCOPED_TRACE(table.file);
    EXPECT_EQ(std::string(table.file), "configs/devices/" + std::string(table.name) + ".yaml");
    // Each reads, by name, through the same path a platform takes.
    const auto at = partsim::yaml::load_string("x: 1", "at.yaml");
    EXPECT_FALSE(load_efficiency_table(std::string(table.name), "", at).empty());
  }
  EXPECT_EQ(built_in, stems) << "the build embeds configs/devices/*.yaml (rerun cmake --build after adding one)";
}

TEST(EfficiencyTable, UnknownBuiltInNameListsTheValidOnes) {
  const std::string text =
      "system:\n  name: c\n  device_types:\n"
      "    g: {kind: calibrated, peak_fp32: 1TFLOP/s, peak_fp16: 2TFLOP/s, peak_vector: 1TFLOP/s, memory: 1GiB,\n"
      "        memory_bandwidth: 1TB/s, efficiency_table: no_such_gpu}\n"
      "  devices: [{type: g}]\n  star: {latency: 0s, bandwidth: 1GB/s}\n";
  EXPECT_EQ(input_error_of([&] { platform_from_yaml(text); }),
            "platform.yaml:5:52: system.device_types.g.efficiency_table: unknown built-in efficiency table "
            "'no_such_gpu' (valid: " +
                builtin_efficiency_table_names() + "; a file path contains '/' or ends in .yaml)");
  EXPECT_TRUE(is_efficiency_table_path("tables/x.yaml"));
  EXPECT_TRUE(is_efficiency_table_path("x.yaml"));
  EXPECT_TRUE(is_efficiency_table_path("/abs/x"));
  EXPECT_FALSE(is_efficiency_table_path("h100_sxm5_80gb"));
}

TEST(EfficiencyTable, AFileThatIsNotThereIsNamedAtTheKey) {
  const std::string text =
      "system:\n  name: c\n  device_types:\n"
      "    g: {preset: h100_sxm5_80gb, efficiency_table: nowhere/x.yaml}\n"
      "  devices: [{type: g}]\n  star: {latency: 0s, bandwidth: 1GB/s}\n";
  EXPECT_EQ(input_error_of([&] { platform_from_yaml(text); }),
            "platform.yaml:4:51: system.device_types.g.efficiency_table: cannot read efficiency table file "
            "'nowhere/x.yaml'");
}

// ---- Calibrated device types ------------------------------------------------------------------

std::string calibrated_platform(const std::string& table) {
  return "system:\n  name: c\n  precision: bf16\n  device_types:\n"
         "    g: {kind: calibrated, peak_fp32: 100TFLOP/s, peak_fp16: 200TFLOP/s, peak_vector: 20TFLOP/s,\n"
         "        memory: 16GiB, memory_bandwidth: 2TB/s, memory_efficiency: 0.8, efficiency_table: " +
         table + "}\n  devices: [{type: g, count: 2}]\n  star: {latency: 1us, bandwidth: 100GB/s}\n";
}

TEST(CalibratedDevice, ReadsPeaksDefaultsAndTheTable) {
  const SystemSpec s = platform_from_yaml(calibrated_platform(kTestTable));
  const auto& d = std::get<CalibratedDevice>(s.device_type(0).model);
  EXPECT_DOUBLE_EQ(d.peak_fp32, 100e12);
  EXPECT_DOUBLE_EQ(d.peak_fp16, 200e12);
  EXPECT_DOUBLE_EQ(d.peak_vector, 20e12);
  EXPECT_DOUBLE_EQ(d.memory_bytes, 16.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(d.memory_bandwidth, 2e12);
  EXPECT_DOUBLE_EQ(d.network_bandwidth, 0.0);  // not given
  EXPECT_DOUBLE_EQ(d.memory_efficiency, 0.8);
  EXPECT_DOUBLE_EQ(d.compute_efficiency, 1.0);  // the default
  EXPECT_EQ(d.efficiency_table, kTestTable);
  EXPECT_EQ(d.efficiency.size(), 5u);
  // Peak per precision: bf16 and fp16 share the fp16 peak; 2 devices x 200e12 at the system's bf16.
  EXPECT_DOUBLE_EQ(s.device_type(0).peak_flops(Precision::fp32), 100e12);
  EXPECT_DOUBLE_EQ(s.device_type(0).peak_flops(Precision::bf16), 200e12);
  EXPECT_DOUBLE_EQ(s.peak_flops(), 400e12);
}

TEST(CalibratedDevice, RoundTripsThroughDumpConfigWithTheTableAsGiven) {
  const SystemSpec s = platform_from_yaml(calibrated_platform(kTestTable));
  const std::string text = system_to_yaml(s);
  EXPECT_NE(text.find("kind: calibrated"), std::string::npos) << text;
  EXPECT_NE(text.find("efficiency_table: " + kTestTable), std::string::npos) << text;
  EXPECT_EQ(text.find("rows"), std::string::npos) << "the rows stay in their table";
  const SystemSpec back = platform_from_yaml(text);
  EXPECT_EQ(back, s) << text;
  EXPECT_EQ(system_to_yaml(back), text);
}

TEST(CalibratedDevice, RelativeTablePathsStartAtThePlatformFilesDirectory) {
  // tests/data/platforms/calibrated_relative.yaml names ../tables/test_gpu.yaml.
  const SystemSpec s = load_system(std::string(PARTSIM_TEST_DATA_DIR) + "/platforms/calibrated_relative.yaml");
  const auto& d = std::get<CalibratedDevice>(s.device_type(0).model);
  EXPECT_EQ(d.efficiency_table, "../tables/test_gpu.yaml");
  EXPECT_EQ(d.efficiency, parse_efficiency_table(partsim::yaml::load_file(kTestTable)));
}

TEST(CalibratedDevice, ProblemsInATableFileNameThatFile) {
  // bad/tables/wrong_op.yaml has 'gem' on its line 5.
  const std::string table = std::string(PARTSIM_TEST_DATA_DIR) + "/bad/tables/wrong_op.yaml";
  EXPECT_EQ(input_error_of([&] { platform_from_yaml(calibrated_platform(table)); }),
            table + ":5:10: rows[0].op: must be one of gemm, conv, attention, flash_attention, normalization, softmax, "
                    "elementwise, embedding, optimizer (got gem)");
}

TEST(CalibratedDevice, PresetsCarryDatasheetPeaksAndNameTheirTables) {
  const auto& a100 = std::get<CalibratedDevice>(find_device_preset("a100_sxm4_80gb")->model);
  EXPECT_DOUBLE_EQ(a100.peak_fp32, 156e12);   // TF32 dense
  EXPECT_DOUBLE_EQ(a100.peak_fp16, 312e12);   // FP16/BF16 dense
  EXPECT_DOUBLE_EQ(a100.peak_vector, 19.5e12);
  EXPECT_DOUBLE_EQ(a100.memory_bytes, 80.0 * 1024 * 1024 * 1024);  // 81920 MiB
  EXPECT_DOUBLE_EQ(a100.memory_bandwidth, 2039e9);
  EXPECT_EQ(a100.efficiency_table, "a100_sxm4_80gb");
  const auto& h100 = std::get<CalibratedDevice>(find_device_preset("h100_sxm5_80gb")->model);
  EXPECT_DOUBLE_EQ(h100.peak_fp32, 494.7e12);
  EXPECT_DOUBLE_EQ(h100.peak_fp16, 989.4e12);
  EXPECT_DOUBLE_EQ(h100.peak_vector, 66.9e12);
  EXPECT_DOUBLE_EQ(h100.memory_bytes, 81559.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(h100.memory_bandwidth, 3.35e12);
  EXPECT_EQ(h100.efficiency_table, "h100_sxm5_80gb");
  // The rows are read where a platform uses the preset, not when the presets are made.
  EXPECT_TRUE(h100.efficiency.empty());
}

TEST(CalibratedDevice, APresetWithAnotherTableKeepsItsPeaks) {
  const std::string text = "system:\n  name: c\n  device_types:\n    g: {preset: h100_sxm5_80gb, efficiency_table: " +
                           kTestTable + "}\n  devices: [{type: g}]\n  star: {latency: 0s, bandwidth: 1GB/s}\n";
  const SystemSpec s = platform_from_yaml(text);
  const auto& d = std::get<CalibratedDevice>(s.device_type(0).model);
  EXPECT_DOUBLE_EQ(d.peak_fp16, 989.4e12);
  EXPECT_EQ(d.efficiency.size(), 5u);
  EXPECT_EQ(platform_from_yaml(system_to_yaml(s)), s);
}

TEST(CalibratedDevice, APresetWhoseTableIsNotBuiltInSaysSoAtItsLine) {
  if (find_builtin_efficiency_table("h100_sxm5_80gb")) GTEST_SKIP() << "h100_sxm5_80gb is built in";
  const std::string text =
      "system:\n  name: c\n  device_types:\n    g: {preset: h100_sxm5_80gb}\n  devices: [{type: g}]\n"
      "  star: {latency: 0s, bandwidth: 1GB/s}\n";
  EXPECT_EQ(input_error_of([&] { platform_from_yaml(text); }),
            "platform.yaml:4:8: system.device_types.g.efficiency_table: unknown built-in efficiency table "
            "'h100_sxm5_80gb' (valid: " +
                builtin_efficiency_table_names() + "; a file path contains '/' or ends in .yaml)");
}

TEST(CalibratedDevice, KindMustMatchAndRequiredKeysAreNamed) {
  const std::string text =
      "system:\n  name: c\n  device_types:\n    g: {kind: calibrated, peak_fp32: 1TFLOP/s}\n"
      "  devices: [{type: g}]\n  star: {latency: 0s, bandwidth: 1GB/s}\n";
  EXPECT_EQ(input_error_of([&] { platform_from_yaml(text); }),
            "platform.yaml:4:8: system.device_types.g.peak_fp16: missing required key");
  const std::string wrong_kind =
      "system:\n  name: c\n  device_types:\n    g: {preset: a100_sxm4_80gb, kind: roofline}\n"
      "  devices: [{type: g}]\n  star: {latency: 0s, bandwidth: 1GB/s}\n";
  EXPECT_EQ(input_error_of([&] { platform_from_yaml(wrong_kind); }),
            "platform.yaml:4:39: system.device_types.g.kind: preset 'a100_sxm4_80gb' is a calibrated device (got kind "
            "roofline)");
}

}  // namespace
