#include <gtest/gtest.h>

#include "sim/common/error.hpp"
#include "sim/sweep/point_setup.hpp"

using namespace partsim::sweep;

namespace {
SweepBase base() {
  SweepBase b;
  b.config = "c.yaml";
  b.workload = "lenet";
  b.batch = 8;
  b.strategy = "dsm";
  b.options = {"opt=all"};
  b.sets = {"system.torus.latency=1ns"};
  return b;
}
}  // namespace

// A platform axis becomes a --set; the others change simplan's inputs and are recorded (simrun
// --record) for results.json's overrides.
TEST(PointSetup, AxesBecomeTheProgramsInputs) {
  const std::vector<SweepAxis> axes = {parse_vary("system.torus.bandwidth=10GB/s"), parse_vary("batch=16"),
                                       parse_vary("option.opt=none"), parse_vary("workload=alexnet")};
  const PointInputs in = point_inputs(base(), axes, sweep_points(axes)[0]);
  EXPECT_EQ(in.batch, 16);
  EXPECT_EQ(in.workload, "alexnet");
  EXPECT_EQ(in.strategy, "dsm");
  EXPECT_EQ(in.options, (std::vector<std::string>{"opt=all", "opt=none"}));  // the last one wins
  EXPECT_EQ(in.sets, (std::vector<std::string>{"system.torus.latency=1ns", "system.torus.bandwidth=10GB/s"}));
  EXPECT_EQ(in.records, (std::vector<std::string>{"batch=16", "option.opt=none", "workload=alexnet"}));

  const auto commands = point_commands(base(), in, "/b", "/w/point-0");
  ASSERT_EQ(commands.size(), 2u);
  EXPECT_EQ(commands[0].argv,
            (std::vector<std::string>{"/b/simplan", "--config", "c.yaml", "--workload", "alexnet", "--batch", "16",
                                      "--strategy", "dsm", "-o", "/w/point-0/plan.json", "--option", "opt=all",
                                      "--option", "opt=none", "--set", "system.torus.latency=1ns", "--set",
                                      "system.torus.bandwidth=10GB/s"}));
  EXPECT_EQ(commands[1].argv,
            (std::vector<std::string>{"/b/simrun", "--config", "c.yaml", "--plan", "/w/point-0/plan.json",
                                      "--granularity", "chip", "--out", "/w/point-0/results.json", "--reproducible",
                                      "--set", "system.torus.latency=1ns", "--set", "system.torus.bandwidth=10GB/s",
                                      "--record", "batch=16", "--record", "option.opt=none", "--record",
                                      "workload=alexnet"}));
  EXPECT_EQ(commands[1].log_file, "/w/point-0/log.txt");
}

TEST(PointSetup, DefinitionChangesWithTheInputs) {
  const std::vector<SweepAxis> axes = {parse_vary("batch=8,16")};
  const auto points = sweep_points(axes);
  const auto a = point_commands(base(), point_inputs(base(), axes, points[0]), "/b", "/w/point-0");
  const auto b = point_commands(base(), point_inputs(base(), axes, points[1]), "/b", "/w/point-0");
  // The build folder is not part of it; the arguments and input fingerprints are.
  EXPECT_EQ(point_definition(a, {"h"}),
            point_definition(point_commands(base(), point_inputs(base(), axes, points[0]), "/elsewhere", "/w/point-0"), {"h"}));
  EXPECT_NE(point_definition(a, {"h"}), point_definition(b, {"h"}));
  EXPECT_NE(point_definition(a, {"h"}), point_definition(a, {"edited"}));
}

TEST(PointSetup, BatchValuesAreWholeNumbers) {
  EXPECT_EQ(parse_batch("512"), 512);
  for (const char* bad : {"0", "-1", "8.5", "1e3", "x", "", "1000000001"})
    EXPECT_THROW(parse_batch(bad), partsim::InputError) << bad;
}
