// Workload YAML files: the examples load with hand-checked numbers; every malformed file in
// tests/data/bad/workload_*.yaml gives exactly the message on its first line ("# expect: ...").
#include <nlohmann/json.hpp>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "workloads/describe.hpp"
#include "sim/common/yaml_reader.hpp"
#include "workloads/workload_file.hpp"

using namespace partsim::workloads;
namespace fs = std::filesystem;

TEST(WorkloadFile, EveryBadFileGivesItsMessage) {
  const fs::path dir = fs::path(PARTSIM_TEST_DATA_DIR) / "bad";
  int files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string file = entry.path().filename().string();
    if (!file.starts_with("workload_") || entry.path().extension() != ".yaml") continue;
    ++files;
    std::ifstream in(entry.path());
    std::string first;
    std::getline(in, first);
    const std::string prefix = "# expect: ";
    ASSERT_TRUE(first.starts_with(prefix)) << file;
    const std::string expected = first.substr(prefix.size());
    try {
      load_workload(entry.path().string(), 4);
      ADD_FAILURE() << file << ": no error";
    } catch (const partsim::InputError& e) {
      std::string what = e.what();
      // Messages name the file as given; compare them relative to the bad/ directory.
      const std::string dir_prefix = (dir / "").string();
      if (what.starts_with(dir_prefix)) what = what.substr(dir_prefix.size());
      EXPECT_EQ(what, expected) << file;
      EXPECT_EQ(what.find('\n'), std::string::npos) << file << ": one line";
    }
  }
  EXPECT_GE(files, 10);
}

TEST(WorkloadFile, TinyResnetExample) {
  const Graph g = load_workload(std::string(PARTSIM_SOURCE_DIR) + "/workloads/examples/tiny_resnet.yaml", 2);
  EXPECT_EQ(g.name(), "tiny_resnet");
  EXPECT_EQ(g.layer("b2_add").output_shape, (Shape{64, 16, 16}));
  EXPECT_EQ(g.layer("b2_proj").input_shapes[0], (Shape{32, 32, 32}));
  EXPECT_EQ(g.layer("classifier").input_shapes[0], (Shape{64, 1, 1}));
  // stem: 3*9*32 = 864 weights, no bias; b2_conv1: 32*9*64 + 64 = 18,496.
  EXPECT_EQ(g.layer("stem").q.params, 864);
  EXPECT_EQ(g.layer("b2_conv1").q.params, 18'496);
  EXPECT_EQ(g.layer("gap").q.kernel_positions, 256);  // global pool over 16x16
}

TEST(WorkloadFile, LstmTaggerExample) {
  const Graph g = load_workload(std::string(PARTSIM_SOURCE_DIR) + "/workloads/examples/lstm_tagger.yaml", 1);
  // Bidirectional, 300 inputs, hidden 512: 2 * (4*512*(300+512) + 4*512) = 3,330,048.
  EXPECT_EQ(g.layer("bilstm").q.params, 3'330'048);
  EXPECT_EQ(g.layer("bilstm").output_shape, (Shape{1024, 50, 1}));
  EXPECT_EQ(g.layer("prob").output_shape, (Shape{40, 50, 1}));
}

TEST(WorkloadFile, TransformerExampleAndOverrides) {
  const std::string file = std::string(PARTSIM_SOURCE_DIR) + "/workloads/examples/tiny_transformer.yaml";
  const Graph g = load_workload(file, 1);
  EXPECT_EQ(g.layer("l2_norm2").output_shape, (Shape{256, 64, 1}));
  // --set works on workload files as on platform files.
  const Graph wide = load_workload_file(file, 1, {"layers[4].out_features=2048"});
  EXPECT_EQ(wide.layer("l1_ffn1").output_shape, (Shape{2048, 64, 1}));
}

TEST(WorkloadFile, UnknownNameOrMissingFile) {
  EXPECT_THROW(load_workload("no_such_model", 1), partsim::UnknownNameError);
  EXPECT_THROW(load_workload("missing/file.yaml", 1), partsim::InputError);
}

// Issue 21: hostile files are refused fast and at their place; what is accepted reaches the JSON
// writer intact (it throws on invalid UTF-8, so names are checked when the file is read).
TEST(WorkloadFile, AliasBombAndCycleAreRefusedFast) {
  const fs::path dir = fs::path(PARTSIM_TEST_DATA_DIR) / "bad";
  for (const char* file : {"workload_alias_bomb.yaml", "workload_alias_cycle.yaml"}) {
    const auto start = std::chrono::steady_clock::now();
    EXPECT_THROW(load_workload((dir / file).string(), 4), partsim::ParseError) << file;
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1.0) << file;
  }
}

TEST(WorkloadFile, Utf8NamesReachTheJsonDescription) {
  const std::string text =
      "name: \"r\xc3\xa9seau\"\n"
      "inputs:\n  - {name: image, shape: [3, 8, 8]}\n"
      "layers:\n  - {name: \"conv_\xc2\xb5\", kind: conv, input: image, out_channels: 4, kernel: 3}\n";
  const Graph g = parse_workload(partsim::yaml::load_string(text, "u.yaml"), 2, "u");
  const std::string json = describe_json(g).dump();
  EXPECT_NE(json.find("conv_\xc2\xb5"), std::string::npos);
  EXPECT_NE(json.find("r\xc3\xa9seau"), std::string::npos);
  // The same name in Latin-1 is refused where it is written, before any output.
  try {
    parse_workload(partsim::yaml::load_string(text.substr(0, 7) + "\xe9seau\"\n" + text.substr(15), "l.yaml"), 2, "l");
    ADD_FAILURE() << "a Latin-1 name was accepted";
  } catch (const partsim::ParseError& e) {
    EXPECT_EQ(std::string(e.what()),
              "l.yaml:1:8: name: not valid UTF-8 (byte 0xE9); YAML files and --set values must be UTF-8 text");
  }
}

TEST(WorkloadFile, CountsAreNeverClamped) {
  const std::string text =
      "inputs:\n  - {name: image, shape: [3, 8, 8]}\n"
      "layers:\n  - {name: c, kind: conv, input: image, out_channels: 4, kernel: 3, padding: PAD}\n";
  auto error = [&](const std::string& pad) -> std::string {
    std::string t = text;
    t.replace(t.find("PAD"), 3, pad);
    try {
      parse_workload(partsim::yaml::load_string(t, "c.yaml"), 1, "c");
    } catch (const partsim::InputError& e) {
      return e.what();
    }
    return "<no error>";
  };
  EXPECT_EQ(error("9223372036854775808"), "c.yaml:4:78: layers[0].padding: is too large (got 9223372036854775808, at most 1000000000)");
  EXPECT_EQ(error("-1"), "c.yaml:4:78: layers[0].padding: must be >= 0 (got -1)");
  EXPECT_EQ(error("[1, 99999999999999999999]"),
            "c.yaml:4:82: layers[0].padding[1]: is too large (got 99999999999999999999, at most 1000000000)");
  EXPECT_EQ(error("1"), "<no error>");
}
