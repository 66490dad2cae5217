// simrun --plan P --export-chakra DIR end to end: one trace per device, readable with protobuf's
// delimited reader, every send with its receive; bad uses exit 2 and leave nothing behind.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "tests/export/chakra_reader.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/text_file.hpp"

using partsim::test::attributes;
using partsim::test::read_chakra;
using partsim::test::run_command;
namespace fs = std::filesystem;

namespace {

const std::string kBin = std::string(PARTSIM_BIN_DIR) + "/";
const std::string kPlatform = std::string(PARTSIM_TEST_DATA_DIR) + "/platforms/p100_1node.yaml";

// A data-parallel plan of a 2-block GPT (the gpt preset) on the 4 P100s of p100_1node.
std::string gpt_plan() {
  const std::string file = testing::TempDir() + "chakra_gpt_plan.json";
  std::string out;
  EXPECT_EQ(run_command(kBin + "simplan --config " + kPlatform +
                            " --workload gpt:layers=2,width=64,heads=4,sequence=16,vocab=100 --batch 8 --strategy dp -o " +
                            file,
                        &out),
            0)
      << out;
  return file;
}

std::string fresh_dir(const std::string& name) {
  const std::string dir = testing::TempDir() + name;
  fs::remove_all(dir);
  return dir;
}

}  // namespace

TEST(SimrunChakra, OneTracePerDeviceWithMatchedSendsAndReceives) {
  const std::string dir = fresh_dir("chakra_traces");
  std::string out;
  ASSERT_EQ(run_command(kBin + "simrun --config " + kPlatform + " --plan " + gpt_plan() + " --export-chakra " + dir, &out), 0)
      << out;
  EXPECT_NE(out.find("chakra: 4 traces"), std::string::npos) << out;
  std::map<std::int32_t, std::int64_t> sent, received;  // by tag: bytes
  std::size_t compute = 0;
  for (int rank = 0; rank < 4; ++rank) {
    const fs::path file = fs::path(dir) / ("gpt." + std::to_string(rank) + ".et");
    ASSERT_TRUE(fs::exists(file)) << file;
    const auto trace = read_chakra(partsim::test::read_text_file(file.string()));
    EXPECT_EQ(trace.metadata.version(), "0.0.4");
    for (const auto& node : trace.nodes) {
      for (auto d : node.data_deps()) EXPECT_LT(d, node.id());
      const auto a = attributes(node);
      if (node.type() == ChakraProtoMsg::COMM_SEND_NODE) sent[a.i32("comm_tag")] = a.i64("comm_size");
      if (node.type() == ChakraProtoMsg::COMM_RECV_NODE) received[a.i32("comm_tag")] = a.i64("comm_size");
      compute += node.type() == ChakraProtoMsg::COMP_NODE;
    }
  }
  EXPECT_FALSE(fs::exists(fs::path(dir) / "gpt.4.et"));
  EXPECT_GT(compute, 0u);
  EXPECT_FALSE(sent.empty());  // data parallelism all-reduces the gradients
  EXPECT_EQ(sent, received);
}

TEST(SimrunChakra, PrefixOption) {
  const std::string dir = fresh_dir("chakra_prefix");
  std::string out;
  ASSERT_EQ(run_command(kBin + "simrun --config " + kPlatform + " --plan " + gpt_plan() + " --export-chakra " + dir +
                            " --chakra-prefix run1",
                        &out),
            0)
      << out;
  EXPECT_TRUE(fs::exists(fs::path(dir) / "run1.3.et"));
}

TEST(SimrunChakra, BadUsesExitTwoAndLeaveNothing) {
  const std::string dir = fresh_dir("chakra_bad");
  std::string out;
  EXPECT_EQ(run_command(kBin + "simrun --config " + kPlatform + " --export-chakra " + dir, &out), 2);
  EXPECT_NE(out.find("--export-chakra and --chakra-prefix need --plan P"), std::string::npos) << out;
  EXPECT_EQ(run_command(kBin + "simrun --config " + kPlatform + " --plan " + gpt_plan() + " --granularity core --export-chakra " + dir,
                        &out),
            2);
  EXPECT_NE(out.find("Chakra ranks are devices"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(dir));
  // A plan that does not load: the directory made for the traces is removed again.
  EXPECT_EQ(run_command(kBin + "simrun --config " + kPlatform + " --plan /nonexistent/plan.json --export-chakra " + dir, &out), 2);
  EXPECT_FALSE(fs::exists(dir));
  EXPECT_EQ(run_command(kBin + "simrun --config " + kPlatform + " --plan " + gpt_plan() + " --export-chakra " + kPlatform, &out), 2);
  EXPECT_NE(out.find("not a directory"), std::string::npos) << out;
}
