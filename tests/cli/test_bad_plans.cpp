// A plan edited by hand into something wrong is refused by simrun with one line that names the plan
// file and the JSON path of the mistake, exit 2 (issue 21): fields that used to be ignored (an empty
// device list) and the checks the dsm lowering makes itself (passes that do not match the workload's
// mode, passes of one layer that disagree).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/run_command.hpp"
#include "tests/support/program_paths.hpp"

namespace fs = std::filesystem;
using partsim::test::run_command;

namespace {

using partsim::test::kBin;
using partsim::test::kConfig;

nlohmann::json make_plan(const fs::path& dir, const std::string& strategy) {
  const fs::path file = dir / (strategy + ".json");
  std::string out;
  EXPECT_EQ(run_command(kBin + "simplan --config " + kConfig + " --workload alexnet --batch 8 --strategy " + strategy +
                            " -o " + file.string(),
                        &out),
            0)
      << out;
  std::ifstream in(file);
  return nlohmann::json::parse(in);
}

struct Case {
  std::string name;
  std::function<void(nlohmann::json&)> edit;
  std::string expect;  // after "simrun: error: FILE: "
};

void expect_refused(const fs::path& dir, const nlohmann::json& plan, const Case& c) {
  nlohmann::json edited = plan;
  c.edit(edited);
  const fs::path file = dir / (c.name + ".json");
  std::ofstream(file) << edited.dump(1);
  const fs::path results = dir / "results.json";
  std::string out;
  EXPECT_EQ(run_command(kBin + "simrun --config " + kConfig + " --plan " + file.string() + " --out " + results.string(),
                        &out),
            2)
      << c.name << ": " << out;
  const std::string prefix = "simrun: error: " + file.string() + ": ";
  EXPECT_EQ(out.rfind(prefix, 0), 0u) << c.name << ": " << out;
  EXPECT_NE(out.find(c.expect), std::string::npos) << c.name << ": " << out;
  EXPECT_EQ(out.find('\n'), out.size() - 1) << "one line: " << out;
  EXPECT_FALSE(fs::exists(results));
}

}  // namespace

TEST(BadPlans, NameTheFileAndTheJsonPath) {
  const fs::path dir = fs::temp_directory_path() / ("partsim_bad_plans_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const nlohmann::json accpar = make_plan(dir, "accpar");
  expect_refused(dir, accpar,
                 {"accpar_no_devices", [](nlohmann::json& p) { p["layers"][1]["sharding"]["devices"] = nlohmann::json::array(); },
                  "/layers/1/sharding/devices: must list at least one device"});
  expect_refused(dir, accpar,
                 {"accpar_repeated_device", [](nlohmann::json& p) { p["layers"][1]["sharding"]["devices"] = {1, 1, 1}; },
                  "/layers/1/sharding: device 1 is listed twice"});
  const nlohmann::json dsm = make_plan(dir, "dsm");
  auto first_pass = [](nlohmann::json& p) -> nlohmann::json& { return p["layers"][1]["family"]["passes"][0]; };
  const std::vector<Case> cases = {
      {"dsm_inference_with_backward", [](nlohmann::json& p) { p["workload"]["mode"] = "inference"; },
       "/layers/1/family/passes: layer 'conv1': passes [fwd, upd] do not match the workload (inference"},
      {"dsm_split_differs", [&](nlohmann::json& p) { first_pass(p)["chip_split"] = "model"; },
       "/layers/1/family/passes: layer 'conv1': every pass must have the same chip_split"},
      {"dsm_chips_differ", [&](nlohmann::json& p) { first_pass(p)["chips"] = {0, 1, 2}; },
       "/layers/1/family/passes: layer 'conv1': every pass must have the same pipe_group and chips"},
      {"dsm_no_chips", [&](nlohmann::json& p) { first_pass(p)["chips"] = nlohmann::json::array(); },
       "/layers/1/family/passes/0/chips: must list at least one chip"},
      {"dsm_as_accpar", [](nlohmann::json& p) { p["strategy"] = "accpar"; p["options"] = nlohmann::json::object(); },
       "/layers/0/family"},
  };
  for (const auto& c : cases) expect_refused(dir, dsm, c);
  fs::remove_all(dir);
}
