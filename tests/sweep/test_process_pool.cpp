#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sim/sweep/process_pool.hpp"

using namespace partsim::sweep;

TEST(ProcessPool, RunsChainsInOrderAndStopsAtTheFirstFailure) {
  const auto dir = std::filesystem::temp_directory_path() / ("partsim_pool_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string log = (dir / "log.txt").string();
  std::vector<std::vector<Command>> chains;
  for (int i = 0; i < 5; ++i)
    chains.push_back({{{"/bin/sh", "-c", "echo first" + std::to_string(i)}, log},
                      {{"/bin/sh", "-c", i == 2 ? "exit 3" : "echo second" + std::to_string(i)}, log},
                      {{"/bin/sh", "-c", "echo third" + std::to_string(i)}, log}});
  chains.push_back({{{"/nonexistent/program"}, log}});
  size_t done = 0;
  auto results = run_chains(chains, 2, [&](size_t, const ChainResult&) { ++done; });
  EXPECT_EQ(done, chains.size());
  EXPECT_EQ(results[0].exit_code, 0);
  EXPECT_EQ(results[2].exit_code, 3);
  EXPECT_EQ(results[2].failed_command, 1);
  EXPECT_EQ(results[5].exit_code, 127);
  std::ifstream in(log);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("third4"), std::string::npos);
  EXPECT_EQ(text.find("third2"), std::string::npos);  // chain 2 stopped after its failure
  std::filesystem::remove_all(dir);
}
