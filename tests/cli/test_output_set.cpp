// The outputs of one run are written together or not at all (cli::OutputSet, issue 21): a later
// output that fails leaves no earlier one behind, --dump-config waits for the plan and workload,
// devices and FIFOs are written in place, symbolic links are followed.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "sim/cli/command_line.hpp"
#include "sim/common/error.hpp"
#include "tests/support/run_command.hpp"

#include "tests/support/text_file.hpp"
#include "tests/support/program_paths.hpp"

namespace fs = std::filesystem;
using partsim::test::run_command;

namespace {

using partsim::test::kBin;
using partsim::test::kConfig;

// A fresh, empty directory for one test.
fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("partsim_outputs_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

size_t entries(const fs::path& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

}  // namespace

TEST(OutputSet, ALaterOutputThatFailsLeavesNothingBehind) {
  const fs::path dir = scratch("later_fails");
  {
    partsim::cli::OutputSet outputs;
    outputs.add((dir / "results.json").string(), std::string("{}\n"));
    EXPECT_THROW(outputs.add((dir / "trace.json").string(),
                             [](std::ostream& out) {
                               out << "[";
                               throw std::runtime_error("timeline failed half-way");
                             }),
                 std::runtime_error);
  }
  EXPECT_EQ(entries(dir), 0u) << "neither output nor a temporary file may stay";
  fs::remove_all(dir);
}

TEST(OutputSet, NothingIsInPlaceBeforeCommitAndNoTemporaryFileAfter) {
  const fs::path dir = scratch("commit");
  partsim::cli::OutputSet outputs;
  outputs.add((dir / "a.json").string(), std::string("a"));
  outputs.add((dir / "b.csv").string(), [](std::ostream& out) { out << "b"; });
  EXPECT_FALSE(fs::exists(dir / "a.json"));
  EXPECT_FALSE(fs::exists(dir / "b.csv"));
  outputs.commit();
  EXPECT_EQ(partsim::test::read_text_file(dir / "a.json"), "a");
  EXPECT_EQ(partsim::test::read_text_file(dir / "b.csv"), "b");
  EXPECT_EQ(entries(dir), 2u);
  fs::remove_all(dir);
}

TEST(OutputSet, UnwritablePathsAreRefusedBeforeAnyWork) {
  const fs::path dir = scratch("check");
  partsim::cli::OutputSet outputs;
  EXPECT_THROW(outputs.check({(dir / "missing" / "x.json").string()}), partsim::InputError);
  EXPECT_THROW(outputs.check({dir.string()}), partsim::InputError);  // a directory
  EXPECT_THROW(outputs.check({(dir / "x").string(), (dir / "." / "x").string()}), partsim::InputError);  // twice
  EXPECT_NO_THROW(outputs.check({(dir / "x").string(), "-", "/dev/null", "/dev/null"}));
  EXPECT_EQ(entries(dir), 0u);
  fs::remove_all(dir);
}

TEST(OutputSet, ASymbolicLinkIsFollowed) {
  const fs::path dir = scratch("symlink");
  fs::create_directories(dir / "real");
  fs::create_symlink("real/plan.json", dir / "link.json");  // dangling until written
  partsim::cli::OutputSet outputs;
  outputs.add((dir / "link.json").string(), std::string("plan"));
  outputs.commit();
  EXPECT_TRUE(fs::is_symlink(dir / "link.json"));
  EXPECT_EQ(partsim::test::read_text_file(dir / "real" / "plan.json"), "plan");
  EXPECT_EQ(entries(dir / "real"), 1u);
  fs::remove_all(dir);
}

TEST(OutputSet, AFifoIsWrittenInPlaceNotReplaced) {
  const fs::path dir = scratch("fifo");
  const fs::path fifo = dir / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // simrun --dump-config onto the FIFO while a reader drains it.
  std::string out;
  const std::string command = "cat " + fifo.string() + " > " + (dir / "read.yaml").string() + " & " + kBin +
                              "simrun --config " + kConfig + " --dump-config " + fifo.string() + "; wait";
  ASSERT_EQ(run_command(command, &out), 0) << out;
  EXPECT_EQ(fs::status(fifo).type(), fs::file_type::fifo) << "the FIFO was replaced by a regular file";
  EXPECT_NE(partsim::test::read_text_file(dir / "read.yaml").find("system:"), std::string::npos);
  fs::remove_all(dir);
}

TEST(OutputSet, DumpConfigWaitsForTheWorkloadAndThePlan) {
  const fs::path dir = scratch("dump_waits");
  std::string out;
  EXPECT_EQ(run_command(kBin + "simplan --config " + kConfig + " --dump-config " + (dir / "platform.yaml").string() +
                            " --workload no_such_workload --batch 8 --strategy dsm -o " + (dir / "plan.json").string(),
                        &out),
            2)
      << out;
  EXPECT_EQ(run_command(kBin + "simrun --config " + kConfig + " --dump-config " + (dir / "platform.yaml").string() +
                            " --plan " + (dir / "no_plan.json").string(),
                        &out),
            2)
      << out;
  EXPECT_EQ(entries(dir), 0u) << "--dump-config was written although the run failed";
  fs::remove_all(dir);
}

TEST(OutputSet, SimrunChecksEveryOutputBeforeTheReplay) {
  const fs::path dir = scratch("simrun_outputs");
  const std::string plan = (dir / "plan.json").string();
  std::string out;
  ASSERT_EQ(run_command(kBin + "simplan --config " + kConfig + " --workload alexnet --batch 8 --strategy dsm -o " + plan,
                        &out),
            0)
      << out;
  const std::string base = kBin + "simrun --config " + kConfig + " --plan " + plan + " --out " +
                           (dir / "results.json").string();
  EXPECT_EQ(run_command(base + " --csv " + (dir / "no_dir" / "layers.csv").string(), &out), 2) << out;
  EXPECT_NE(out.find("no_dir' does not exist"), std::string::npos) << out;
  EXPECT_EQ(run_command(base + " --timeline " + dir.string(), &out), 2) << out;
  EXPECT_NE(out.find("it is a directory"), std::string::npos) << out;
  EXPECT_EQ(run_command(base + " --csv " + (dir / "results.json").string(), &out), 2) << out;
  EXPECT_NE(out.find("the same file is given for two outputs"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(dir / "results.json"));
  EXPECT_EQ(entries(dir), 1u);  // the plan only
  fs::remove_all(dir);
}
