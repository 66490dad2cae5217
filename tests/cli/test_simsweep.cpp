// simsweep end to end with stand-in simplan/simrun scripts, so the sweep driver (points, parallel
// processes, CSV, failures) is tested apart from the planners and the replay.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace fs = std::filesystem;

namespace {
std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
void write_script(const fs::path& p, const std::string& body) {
  std::ofstream(p) << "#!/bin/sh\n" << body;
  fs::permissions(p, fs::perms::owner_all);
}
}  // namespace

TEST(Simsweep, RunsEveryPointAndWritesTheCsv) {
  const fs::path dir = fs::temp_directory_path() / ("partsim_simsweep_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "bin");
  // Real platform keys: simsweep checks every value on the platform before the first point.
  // simplan: writes a plan naming the --set values. simrun: predicted = the bandwidth number,
  // simulated = twice it; it fails (exit 2, one line) when the scratchpad is 2MiB.
  write_script(dir / "bin" / "simplan",
               "out=''; while [ $# -gt 0 ]; do [ \"$1\" = -o ] && out=$2; shift; done; echo '{}' > \"$out\"\n"
               "echo 'simplan: warning: the device model says 2 ms' >&2\n");
  write_script(dir / "bin" / "simrun",
               "out=''; bw=''; sp=''\n"
               "while [ $# -gt 0 ]; do case \"$1\" in --out) out=$2;; --set) case \"$2\" in system.torus.bandwidth=*) "
               "bw=${2#*=};; *.scratchpad=*) sp=${2#*=};; esac;; esac; shift; done\n"
               "[ \"$sp\" = 2MiB ] && { echo 'simrun: error: scratchpad too small'; exit 2; }\n"
               "n=${bw%GB/s}\n"
               "printf '{\"predicted_iteration_s\": %s, \"closed_form_iteration_s\": %s, \"simulated_iteration_s\": %s, "
               "\"utilization\": 0.5}' $n $n $((n*2)) > \"$out\"\n");
  const fs::path config = fs::path(PARTSIM_SOURCE_DIR) / "configs" / "torus_8pf.yaml";
  const std::string cmd = std::string(PARTSIM_BIN_DIR) + "/simsweep --config " + config.string() +
                          " --workload vgg16 --batch 8 --strategy dsm --vary system.torus.bandwidth=10GB/s..40GB/s*2" +
                          " --vary system.device_types.dsm_chip.core.scratchpad=1MiB,2MiB" +
                          " --bin-dir " + (dir / "bin").string() + " --out " + (dir / "sweep.csv").string() +
                          " -j 2 2>" + (dir / "stderr.txt").string();
  const int rc = std::system(cmd.c_str());
  EXPECT_NE(rc, 0);  // some points failed
  const std::string csv = read(dir / "sweep.csv");
  EXPECT_EQ(csv,
            "system.torus.bandwidth,system.device_types.dsm_chip.core.scratchpad,status,predicted_s,closed_form_s,simulated_s,utilization,error,warnings\n"
            "10GB/s,1MiB,ok,10,10,20,0.5,,simplan: warning: the device model says 2 ms\n"
            "10GB/s,2MiB,failed,,,,,simrun: error: scratchpad too small,simplan: warning: the device model says 2 ms\n"
            "20GB/s,1MiB,ok,20,20,40,0.5,,simplan: warning: the device model says 2 ms\n"
            "20GB/s,2MiB,failed,,,,,simrun: error: scratchpad too small,simplan: warning: the device model says 2 ms\n"
            "40GB/s,1MiB,ok,40,40,80,0.5,,simplan: warning: the device model says 2 ms\n"
            "40GB/s,2MiB,failed,,,,,simrun: error: scratchpad too small,simplan: warning: the device model says 2 ms\n");
  EXPECT_TRUE(fs::exists(dir / "sweep.csv.d" / "point-0" / "plan.json"));
  fs::remove_all(dir);
}

TEST(Simsweep, BadVaryIsOneLineAndExitTwo) {
  const fs::path config = fs::path(PARTSIM_SOURCE_DIR) / "configs" / "torus_8pf.yaml";
  const fs::path out = fs::temp_directory_path() / ("partsim_bad_sweep_" + std::to_string(::getpid()) + ".csv");
  const std::string cmd = std::string(PARTSIM_BIN_DIR) + "/simsweep --config " + config.string() +
                          " --workload vgg16 --batch 8 --strategy dsm --vary bw=8..1*2 --out " + out.string() +
                          " 2>/dev/null";
  const int rc = std::system(cmd.c_str());
  EXPECT_TRUE(WIFEXITED(rc));
  EXPECT_EQ(WEXITSTATUS(rc), 2);
  EXPECT_FALSE(fs::exists(out));  // nothing written
}

// Everything a point would refuse is refused before the first point runs and before the work
// folder exists (issue 21): one line, exit 2, no CSV, no folder, the stand-in programs never run.
TEST(Simsweep, BadInputIsRefusedBeforeAnyPoint) {
  const fs::path dir = fs::temp_directory_path() / ("partsim_simsweep_bad_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "bin");
  write_script(dir / "bin" / "simplan", "touch " + (dir / "ran").string() + "\n");
  write_script(dir / "bin" / "simrun", "touch " + (dir / "ran").string() + "\n");
  std::ofstream(dir / "bad_plan.json") << "{\"schema\": 2}";
  const std::string config = (fs::path(PARTSIM_SOURCE_DIR) / "configs" / "torus_8pf.yaml").string();
  const std::string good = " --workload vgg16 --batch 8 --strategy dsm";
  const std::string vary = " --vary system.torus.bandwidth=10GB/s,20GB/s";
  struct Case {
    std::string args, expect;
  };
  std::vector<Case> cases = {
      {"--config " + (dir / "bad_plan.json").string() + good + vary, "bad_plan.json"},
      {"--config " + config + " --workload no_such_net --batch 8 --strategy dsm" + vary, "no_such_net"},
      {"--config " + config + " --workload vgg16 --batch 8 --strategy no_such_strategy" + vary, "no_such_strategy"},
      {"--config " + config + " --fixed-plan " + (dir / "bad_plan.json").string() + vary, "bad_plan.json"},
      {"--config " + config + good + " --vary system.torus.bandwdith=10GB/s,20GB/s", "bandwdith"},
      {"--config " + config + good + " --vary system.torus.bandwidth=10GB/s,20XB/s", "20XB/s"},
      {"--config " + config + good + vary + " --set system.torus.latency=-1ns", "latency"},
  };
  // A dsm plan whose passes the lowering refuses (training passes in an inference plan).
  const std::string plan = (dir / "dsm.json").string();
  ASSERT_EQ(std::system((std::string(PARTSIM_BIN_DIR) + "/simplan --config " + config +
                         " --workload alexnet --batch 8 --strategy dsm -o " + plan + " >/dev/null 2>&1")
                            .c_str()),
            0);
  std::string text = read(plan);
  const auto mode = text.find("\"mode\": \"training\"");
  ASSERT_NE(mode, std::string::npos);
  text.replace(mode, 20, "\"mode\": \"inference\"");
  std::ofstream(dir / "dsm_inference.json") << text;
  cases.push_back({"--config " + config + " --fixed-plan " + (dir / "dsm_inference.json").string() + vary,
                   "dsm_inference.json: /layers/1/family/passes: layer 'conv1': passes [fwd, upd] do not match"});
  for (const auto& c : cases) {
    const std::string cmd = std::string(PARTSIM_BIN_DIR) + "/simsweep " + c.args + " --bin-dir " +
                            (dir / "bin").string() + " --out " + (dir / "sweep.csv").string() + " 2>" +
                            (dir / "stderr.txt").string();
    const int rc = std::system(cmd.c_str());
    EXPECT_TRUE(WIFEXITED(rc) && WEXITSTATUS(rc) == 2) << c.args;
    const std::string err = read(dir / "stderr.txt");
    EXPECT_EQ(err.rfind("simsweep: error: ", 0), 0u) << err;
    EXPECT_EQ(err.find('\n'), err.size() - 1) << "one line: " << err;
    EXPECT_NE(err.find(c.expect), std::string::npos) << err;
    EXPECT_FALSE(fs::exists(dir / "sweep.csv")) << c.args;
    EXPECT_FALSE(fs::exists(dir / "sweep.csv.d")) << c.args;
    EXPECT_FALSE(fs::exists(dir / "ran")) << "a point ran for " << c.args;
  }
  fs::remove_all(dir);
}
