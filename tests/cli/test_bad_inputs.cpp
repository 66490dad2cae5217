// Every malformed file under tests/data/bad/ through the real programs: one line on stderr, exactly
// the message its first line expects ("# expect: ..."), exit code 2, and no output file written.
//   platform_*.yaml: simrun --config bad/F --dump-config OUT    (run from tests/data)
//   workload_*.yaml: simplan --workload F --describe --json OUT (run from tests/data/bad)
#include <gtest/gtest.h>

#include "tests/support/bad_files.hpp"
#include "tests/support/text_file.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace {

using partsim::test::bad_files;
using partsim::test::expected_message;


class BadInput : public testing::TestWithParam<std::string> {};

TEST_P(BadInput, OneLineExitTwoNothingWritten) {
  const std::string name = GetParam();
  const fs::path data(PARTSIM_TEST_DATA_DIR);
  const fs::path tmp = fs::temp_directory_path() / ("partsim_bad_" + std::to_string(::getpid()));
  fs::create_directories(tmp);
  const fs::path out = tmp / "out";
  const fs::path err = tmp / "stderr.txt";
  std::string program, command;
  if (name.rfind("platform_", 0) == 0) {
    program = "simrun";
    command = "cd " + data.string() + " && " + PARTSIM_BIN_DIR + "/simrun --config bad/" + name + " --dump-config " +
              out.string();
  } else if (name.rfind("workload_", 0) == 0) {
    program = "simplan";
    command = "cd " + (data / "bad").string() + " && " + PARTSIM_BIN_DIR + "/simplan --workload " + name +
              " --describe --json " + out.string();
  } else {
    FAIL() << name << ": bad files are named platform_*.yaml or workload_*.yaml";
  }
  const int status = std::system((command + " >/dev/null 2>" + err.string()).c_str());
  ASSERT_TRUE(WIFEXITED(status)) << command;
  EXPECT_EQ(WEXITSTATUS(status), 2) << command;
  EXPECT_EQ(partsim::test::read_text_file(err), program + ": error: " + expected_message(data / "bad" / name) + "\n") << command;
  EXPECT_FALSE(fs::exists(out)) << "an output file was written for " << name;
  fs::remove_all(tmp);
}

std::string test_name(const testing::TestParamInfo<std::string>& info) {
  std::string n = info.param.substr(0, info.param.size() - 5);  // without .yaml
  std::replace_if(n.begin(), n.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
  return n;
}

INSTANTIATE_TEST_SUITE_P(Files, BadInput, testing::ValuesIn(bad_files()), test_name);

}  // namespace
