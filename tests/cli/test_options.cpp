// Command-line values out of range are refused with one short line naming the option and the
// allowed range, exit 2, before anything is loaded (issue 21): no negative index meaning "the
// default", no unsigned wrap-around, no 300-character "0.000000 to 1.797e308" range.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/run_command.hpp"
#include "tests/support/program_paths.hpp"

using partsim::test::run_command;

namespace {

using partsim::test::kBin;
using partsim::test::kConfig;

struct OptionCase {
  std::string command;  // program and arguments
  std::string expect;   // part of the one line
};

void expect_refused(const OptionCase& c) {
  std::string out;
  EXPECT_EQ(run_command(kBin + c.command, &out), 2) << c.command << "\n" << out;
  EXPECT_EQ(out.find('\n'), out.size() - 1) << "one line: " << out;
  EXPECT_LT(out.size(), 240u) << "short: " << out;
  EXPECT_NE(out.find(c.expect), std::string::npos) << c.command << "\n" << out;
}

}  // namespace

TEST(Options, OutOfRangeValuesNameTheirRange) {
  const std::string collective = "simrun --config " + kConfig + " --bytes 1MB --collective ";
  const std::vector<OptionCase> cases = {
      {collective + "p2p --dst -7", "--dst: Value -7 not in range 0 to 999999"},
      {collective + "p2p --src -1", "--src: Value -1 not in range 0 to 999999"},
      {collective + "broadcast --root -5", "--root: Value -5 not in range 0 to 999999"},
      {collective + "broadcast --chunks 0", "--chunks: Value 0 not in range 1 to 1000000"},
      {"simrun --config " + kConfig + " --plan plan.json --worst -1", "--worst: Value -1 not in range 0 to 1000000"},
      {"simrun --config " + kConfig + " --collective all_reduce --bytes 1e300B", "a size must be between 1b and 1EB"},
      {"simplan --workload vgg16 --describe --batch 0", "--batch: Value 0 not in range 1 to 1000000000"},
      {"simplan --workload vgg16 --describe --batch 99999999999999999999", "not in range 1 to 1000000000"},
      {"simplan --workload vgg16 --describe --bytes-per-element -1", "--bytes-per-element: Value -1 not in range"},
      {"simsweep --config " + kConfig + " --vary a=1 --out x.csv -j 0", "--jobs: Value 0 not in range 1 to 1024"},
  };
  for (const auto& c : cases) expect_refused(c);
}

// --simgrid-cfg is checked before the plan is even read (the plan file here does not exist): no
// abort inside SimGrid, no list of its 99 keys.
TEST(Options, SimgridSettingsAreCheckedBeforePlanning) {
  const std::string base = "simrun --config " + kConfig + " --plan /nonexistent/plan.json --simgrid-cfg ";
  const std::vector<OptionCase> cases = {
      {base + "network/model", "--simgrid-cfg 'network/model': not KEY:VALUE (allowed form KEY:VALUE"},
      {base + ":CM02", "not KEY:VALUE"},
      {base + "bogus/key:1", "SimGrid has no configuration key 'bogus/key'"},
      {base + "network/crosstraffic:maybe", "bad value for SimGrid key 'network/crosstraffic'"},
      // Model and optimisation values SimGrid would only check (and abort on) when building its models.
      {base + "network/model:nonsense", "bad value for SimGrid key 'network/model' (allowed: LV08, CM02, SMPI, IB)"},
      {base + "network/model:Constant", "(allowed: LV08, CM02, SMPI, IB)"},
      {base + "cpu/optim:bogus", "bad value for SimGrid key 'cpu/optim' (allowed: Lazy, TI, Full)"},
      {base + "host/model:bogus", "bad value for SimGrid key 'host/model' (allowed: default, compound, ptask_L07)"},
      // SimGrid 3.32's tracer aborts on split-duplex links ("container already present"): refused.
      {base + "tracing:yes --simgrid-cfg tracing/platform:yes", "tracing:yes with tracing/platform:yes: not supported"},
      {base + "tracing/actor:yes --simgrid-cfg tracing:yes", "tracing:yes with tracing/actor:yes: not supported"},
  };
  for (const auto& c : cases) expect_refused(c);
  // Valid settings still reach the replay.
  std::string out;
  EXPECT_EQ(run_command(kBin + "simrun --config " + kConfig +
                            " --collective all_reduce --bytes 1MB --simgrid-cfg network/optim:Full",
                        &out),
            0)
      << out;
  EXPECT_EQ(run_command(kBin + "simrun --config " + kConfig +
                            " --collective all_reduce --bytes 1MB --simgrid-cfg network/model:CM02",
                        &out),
            0)
      << out;
  // With a setting every transfer runs in SimGrid's network model: timing lone ones is refused.
  expect_refused({base + "network/model:LV08 --lone-transfers timed",
                  "--lone-transfers timed: not with a --simgrid-cfg setting other than network/optim or cpu/optim"});
  expect_refused({"simrun --config " + kConfig + " --collective all_reduce --bytes 1MB --lone-transfers fast",
                  "--lone-transfers 'fast': allowed values timed, simgrid"});
}
