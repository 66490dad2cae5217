// Every tests/data/bad/platform_*.yaml must fail with exactly the one-line message its first line
// gives ("# expect: <message>"). The message names the file as the test passes it: the fixture
// convention is the path relative to tests/data ("bad/platform_x.yaml:..."), so the test loads
// PARTSIM_TEST_DATA_DIR "/bad/platform_x.yaml" and expects PARTSIM_TEST_DATA_DIR "/" + message.
#include <gtest/gtest.h>

#include "tests/support/bad_files.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sim/common/error.hpp"
#include "topology/system_parser.hpp"

namespace {

namespace fs = std::filesystem;
using partsim::topology::load_system;

std::vector<std::string> bad_platform_files() { return partsim::test::bad_files("platform_"); }
using partsim::test::expected_message;

class BadPlatformFile : public ::testing::TestWithParam<std::string> {};

TEST_P(BadPlatformFile, FailsWithItsExpectedLine) {
  const fs::path file = fs::path(PARTSIM_TEST_DATA_DIR) / "bad" / GetParam();
  const std::string expected = std::string(PARTSIM_TEST_DATA_DIR) + "/" + expected_message(file);
  try {
    load_system(file.string());
    FAIL() << file << " loaded without an error";
  } catch (const partsim::InputError& e) {
    EXPECT_EQ(e.what(), expected);
    EXPECT_EQ(e.exit_code(), 2);
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "message must be one line";
  }
}

// Test names are the file names without ".yaml" (gtest allows letters, digits and '_').
std::string test_name(const ::testing::TestParamInfo<std::string>& param) {
  return param.param.substr(0, param.param.size() - 5);
}

INSTANTIATE_TEST_SUITE_P(Platform, BadPlatformFile, ::testing::ValuesIn(bad_platform_files()), test_name);

TEST(PlatformBadFiles, AtLeastTwentyFour) { EXPECT_GE(bad_platform_files().size(), 24u); }

}  // namespace
