// simsweep end to end with stand-in simplan/simrun scripts, so the sweep driver (points, parallel
// processes, CSV, failures) is tested apart from the planners and the replay.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <vector>

#include "tests/support/run_command.hpp"
#include "tests/support/text_file.hpp"
#include "tests/support/program_paths.hpp"

namespace fs = std::filesystem;
using partsim::test::run_command;

namespace {
std::string read(const fs::path& p) { return partsim::test::read_text_file(p); }
void write_script(const fs::path& p, const std::string& body) {
  std::ofstream(p) << "#!/bin/sh\n" << body;
  fs::permissions(p, fs::perms::owner_all);
}
using partsim::test::kConfig;
const std::string kSimsweep = std::string(PARTSIM_BIN_DIR) + "/simsweep";

// A fresh folder for one test.
fs::path test_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("partsim_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "bin");
  return dir;
}

// Stand-in programs: simplan writes an empty plan; simrun writes results.json whose predicted time
// is the batch (--record batch=B, else 1) and appends one line to DIR/runs.txt per point it runs.
void write_stand_ins(const fs::path& dir) {
  write_script(dir / "bin" / "simplan", "out=''; while [ $# -gt 0 ]; do [ \"$1\" = -o ] && out=$2; shift; done; echo '{}' > \"$out\"\n");
  write_script(dir / "bin" / "simrun",
               "out=''; b=1\n"
               "while [ $# -gt 0 ]; do case \"$1\" in --out) out=$2;; --record) case \"$2\" in batch=*) b=${2#*=};; esac;; "
               "esac; shift; done\n"
               "echo \"$out\" >> " + (dir / "runs.txt").string() + "\n"
               "printf '{\"predicted_iteration_s\": %s, \"closed_form_iteration_s\": 1, \"simulated_iteration_s\": 2, "
               "\"utilization\": 0.5}' $b > \"$out\"\n");
}

// A simsweep command line of lenet on the test platform with the stand-ins of `dir`, varying `vary`.
std::string stand_in_sweep(const fs::path& dir, const std::string& vary) {
  return kSimsweep + " --config " + kConfig + " --workload lenet --batch 4 --strategy dsm " + vary +
         " -j 2 --bin-dir " + (dir / "bin").string();
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
               "echo 'simplan: warning: the device model says 2 ms' >&2; echo 'simplan: warning: over memory' >&2\n");
  write_script(dir / "bin" / "simrun",
               "out=''; bw=''; sp=''\n"
               "while [ $# -gt 0 ]; do case \"$1\" in --out) out=$2;; --set) case \"$2\" in system.torus.bandwidth=*) "
               "bw=${2#*=};; *.scratchpad=*) sp=${2#*=};; esac;; esac; shift; done\n"
               "[ \"$sp\" = 2MiB ] && { echo 'simrun: error: scratchpad too small'; exit 2; }\n"
               "n=${bw%GB/s}\n"
               "printf '{\"predicted_iteration_s\": %s, \"closed_form_iteration_s\": %s, \"simulated_iteration_s\": %s, "
               "\"utilization\": 0.5}' $n $n $((n*2)) > \"$out\"\n");
  const std::string cmd = kSimsweep + " --config " + kConfig +
                          " --workload vgg16 --batch 8 --strategy dsm --vary system.torus.bandwidth=10GB/s..40GB/s*2" +
                          " --vary system.device_types.dsm_chip.core.scratchpad=1MiB,2MiB" +
                          " --bin-dir " + (dir / "bin").string() + " --out " + (dir / "sweep.csv").string() +
                          " -j 2 2>" + (dir / "stderr.txt").string();
  const int rc = std::system(cmd.c_str());
  EXPECT_NE(rc, 0);  // some points failed
  const std::string csv = read(dir / "sweep.csv");
  // 10, 20, 40 GB/s = 1e10, 2e10, 4e10 B/s; 1 MiB = 1048576 B, 2 MiB = 2097152 B. Every point
  // printed simplan's warning: status `warning` where it ran, `failed` where simrun failed.
  const std::string warned = "simplan: warning: the device model says 2 ms; simplan: warning: over memory";
  EXPECT_EQ(csv,
            "system.torus.bandwidth,system.torus.bandwidth_si,system.device_types.dsm_chip.core.scratchpad,"
            "system.device_types.dsm_chip.core.scratchpad_si,status,predicted_s,closed_form_s,simulated_s,utilization,memory_peak_bytes,error,warnings\n"
            "10GB/s,10000000000,1MiB,1048576,warning,10,10,20,0.5,,," + warned + "\n"
            "10GB/s,10000000000,2MiB,2097152,failed,,,,,,simrun: error: scratchpad too small," + warned + "\n"
            "20GB/s,20000000000,1MiB,1048576,warning,20,20,40,0.5,,," + warned + "\n"
            "20GB/s,20000000000,2MiB,2097152,failed,,,,,,simrun: error: scratchpad too small," + warned + "\n"
            "40GB/s,40000000000,1MiB,1048576,warning,40,40,80,0.5,,," + warned + "\n"
            "40GB/s,40000000000,2MiB,2097152,failed,,,,,,simrun: error: scratchpad too small," + warned + "\n");
  EXPECT_TRUE(fs::exists(dir / "sweep.csv.d" / "point-0" / "plan.json"));
  fs::remove_all(dir);
}

TEST(Simsweep, BadVaryIsOneLineAndExitTwo) {
  const fs::path out = fs::temp_directory_path() / ("partsim_bad_sweep_" + std::to_string(::getpid()) + ".csv");
  const std::string cmd = kSimsweep + " --config " + kConfig +
                          " --workload vgg16 --batch 8 --strategy dsm --vary system.torus.bandwidth=8..1*2 --out " + out.string() +
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
  const std::string& config = kConfig;
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
      // Every kind of axis, checked value by value (issue 20).
      {"--config " + config + good + " --vary nosuchkey=1,2", "--vary nosuchkey: unknown axis (allowed: batch, workload"},
      {"--config " + config + good + " --vary batch=8,0", "--vary batch=0: '0' is not a whole number"},
      {"--config " + config + good + " --vary workload=lenet,no_such_net", "--vary workload=no_such_net: "},
      {"--config " + config + good + " --vary strategy=dsm,no_such_strategy", "--vary strategy=no_such_strategy: "},
      {"--config " + config + good + " --vary option.levels=1,2", "--vary option.levels=1: strategy dsm: unknown option 'levels'"},
      {"--config " + config + good + " --vary option.opt=all,bogus", "--vary option.opt=bogus: "},
      {"--config " + config + " --workload vgg16 --strategy dsm" + vary, "--workload, --batch and --strategy are required"},
      {"--config " + config + good + vary + " --shard 2/2", "--shard 2/2: I must be below N"},
      {"--config " + config + good + " --vary batch=8 --vary batch=16", "--vary batch is given twice"},
      // --simplan-arg goes through simplan's own parser, up front (issue 21).
      {"--config " + config + good + vary + " --simplan-arg=--mode=bogus",
       "--simplan-arg --mode=bogus: --mode: bogus not in {training,inference}"},
      {"--config " + config + good + vary + " --simplan-arg=--mode=inference --simplan-arg=--levels=99",
       "--simplan-arg --mode=inference --levels=99: --levels: Value 99 not in range 0 to 64"},
      {"--config " + config + good + vary + " --simplan-arg=--no-such-flag", "--simplan-arg --no-such-flag: "},
      {"--config " + config + good + vary + " --simplan-arg=--batch=4",
       "--simplan-arg --batch=4: --batch is set by simsweep at every point"},
      {"--config " + config + good + vary + " --simplan-arg=-o --simplan-arg=x.json",
       "--simplan-arg -o x.json: --output is set by simsweep"},
      {"--config " + config + good + vary + " --simplan-arg=--option=bogus=1",
       "point 0 (system.torus.bandwidth=10GB/s): strategy dsm: unknown option 'bogus'"},
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
  cases.push_back({"--config " + config + " --fixed-plan " + plan + vary + " --simplan-arg=--mode=inference",
                   "--simplan-arg has no effect with --fixed-plan"});
  cases.push_back({"--config " + config + " --fixed-plan " + plan + " --vary batch=8,16",
                   "--vary batch: only platform keys can be varied with --fixed-plan"});
  for (const auto& c : cases) {
    const std::string cmd = kSimsweep + " " + c.args + " --bin-dir " +
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

// A batch axis re-plans at every batch, and each point's results.json records what it ran with in
// `overrides`: the fixed --set, the varied platform key, then the batch (real simplan and simrun on
// lenet, milliseconds of replay per point).
TEST(Simsweep, EveryPointsResultsRecordItsOverrides) {
  const fs::path dir = test_dir("simsweep_overrides");
  const std::string cmd = kSimsweep + " --config " + kConfig + " --workload lenet --batch 4 --strategy dsm" +
                          " --set system.torus.latency=1us --vary batch=8,16 --vary system.torus.bandwidth=20GB/s" +
                          " -j 2 --out " + (dir / "sweep.csv").string();
  std::string output;
  ASSERT_EQ(run_command(cmd, &output), 0) << output;
  const long long batches[] = {8, 16};
  for (int i = 0; i < 2; ++i) {
    const auto results = nlohmann::ordered_json::parse(read(dir / "sweep.csv.d" / ("point-" + std::to_string(i)) / "results.json"));
    EXPECT_EQ(results.at("batch").get<long long>(), batches[i]);
    nlohmann::ordered_json expected;
    expected["system.torus.latency"] = "1us";
    expected["system.torus.bandwidth"] = "20GB/s";
    expected["batch"] = std::to_string(batches[i]);
    EXPECT_EQ(results.at("overrides"), expected) << results.at("overrides").dump();
  }
  const std::string csv = read(dir / "sweep.csv");
  EXPECT_NE(csv.find("\n8,8,20GB/s,20000000000,ok,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\n16,16,20GB/s,20000000000,ok,"), std::string::npos) << csv;
  // simrun refuses a record the plan does not hold (the plan of point 0 was made at batch 8).
  const fs::path point = dir / "sweep.csv.d" / "point-0";
  EXPECT_EQ(run_command(std::string(PARTSIM_BIN_DIR) + "/simrun --config " + kConfig + " --plan " +
                            (point / "plan.json").string() +
                            " --set system.torus.latency=1us --set system.torus.bandwidth=20GB/s --record batch=16 --out " + (dir / "r.json").string(),
                        &output),
            2);
  EXPECT_NE(output.find("--record batch=16: " + (point / "plan.json").string() + " was made with batch 8"), std::string::npos)
      << output;
  EXPECT_FALSE(fs::exists(dir / "r.json"));
  fs::remove_all(dir);
}

// An interrupted sweep (point 2's results missing) resumed re-runs point 2 only and writes the same
// CSV; a sweep whose definition changed (another --set) re-runs every point.
TEST(Simsweep, ResumeRerunsOnlyMissingPoints) {
  const fs::path dir = test_dir("simsweep_resume");
  write_stand_ins(dir);
  const std::string cmd = stand_in_sweep(dir, "--vary batch=1,2,3,4") + " --out " + (dir / "sweep.csv").string();
  std::string output;
  ASSERT_EQ(run_command(cmd, &output), 0) << output;
  const std::string first = read(dir / "sweep.csv");
  EXPECT_EQ(first,
            "batch,batch_si,status,predicted_s,closed_form_s,simulated_s,utilization,memory_peak_bytes,error,warnings\n"
            "1,1,ok,1,1,2,0.5,,,\n2,2,ok,2,1,2,0.5,,,\n3,3,ok,3,1,2,0.5,,,\n4,4,ok,4,1,2,0.5,,,\n");
  const std::string all_runs = read(dir / "runs.txt");
  EXPECT_EQ(std::count(all_runs.begin(), all_runs.end(), '\n'), 4);

  fs::remove(dir / "sweep.csv.d" / "point-2" / "results.json");
  fs::remove(dir / "runs.txt");
  ASSERT_EQ(run_command(cmd + " --resume", &output), 0) << output;
  EXPECT_EQ(read(dir / "runs.txt"), (dir / "sweep.csv.d" / "point-2" / "results.json").string() + "\n");
  EXPECT_EQ(read(dir / "sweep.csv"), first);

  fs::remove(dir / "runs.txt");
  ASSERT_EQ(run_command(cmd + " --resume --set system.torus.latency=1us", &output), 0) << output;
  const std::string runs = read(dir / "runs.txt");
  EXPECT_EQ(std::count(runs.begin(), runs.end(), '\n'), 4) << runs;
  fs::remove_all(dir);
}

// --quiet: the CSV as without it, and nothing on stdout or stderr (no progress, no "wrote" line).
TEST(Simsweep, QuietPrintsNothing) {
  const fs::path dir = test_dir("simsweep_quiet");
  write_stand_ins(dir);
  std::string output;
  ASSERT_EQ(run_command(stand_in_sweep(dir, "--vary batch=1,2") + " --quiet --out " + (dir / "sweep.csv").string(), &output), 0)
      << output;
  EXPECT_EQ(output, "");
  EXPECT_EQ(read(dir / "sweep.csv"),
            "batch,batch_si,status,predicted_s,closed_form_s,simulated_s,utilization,memory_peak_bytes,error,warnings\n"
            "1,1,ok,1,1,2,0.5,,,\n2,2,ok,2,1,2,0.5,,,\n");
  fs::remove_all(dir);
}

// --list-points prints the points (of a shard) and runs nothing.
TEST(Simsweep, ListPoints) {
  const fs::path dir = test_dir("simsweep_list");
  write_stand_ins(dir);
  const std::string cmd =
      stand_in_sweep(dir, "--vary system.device_types.dsm_chip.core.scratchpad=512KiB,1MiB,2MiB --vary strategy=dsm,dp") +
      " --out " + (dir / "sweep.csv").string() + " --list-points";
  std::string output;
  ASSERT_EQ(run_command(cmd, &output), 0) << output;
  const std::string header =
      "point,system.device_types.dsm_chip.core.scratchpad,system.device_types.dsm_chip.core.scratchpad_si,strategy,"
      "strategy_si\n";
  EXPECT_EQ(output, header +
                        "0,512KiB,524288,dsm,\n1,512KiB,524288,dp,\n2,1MiB,1048576,dsm,\n3,1MiB,1048576,dp,\n"
                        "4,2MiB,2097152,dsm,\n5,2MiB,2097152,dp,\n");
  // Shard 1 of 2: floor(6/2) = 3 to 6.
  ASSERT_EQ(run_command(cmd + " --shard 1/2", &output), 0) << output;
  EXPECT_EQ(output, header + "3,1MiB,1048576,dp,\n4,2MiB,2097152,dsm,\n5,2MiB,2097152,dp,\n");
  EXPECT_FALSE(fs::exists(dir / "runs.txt"));
  EXPECT_FALSE(fs::exists(dir / "sweep.csv"));
  EXPECT_FALSE(fs::exists(dir / "sweep.csv.d"));
  fs::remove_all(dir);
}

// Shards of a job array (5 points in 2 shards: points 0-1 and 2-4), merged by --merge or by the
// documented cat rule, give the local run's CSV byte for byte.
TEST(Simsweep, ShardsMergeIntoTheLocalCsv) {
  const fs::path dir = test_dir("simsweep_shards");
  write_stand_ins(dir);
  const std::string sweep = stand_in_sweep(dir, "--vary batch=1..5+1");
  std::string output;
  ASSERT_EQ(run_command(sweep + " --out " + (dir / "local.csv").string(), &output), 0) << output;
  for (int s = 0; s < 2; ++s)
    ASSERT_EQ(run_command(sweep + " --shard " + std::to_string(s) + "/2 --out " + (dir / ("part" + std::to_string(s) + ".csv")).string(), &output), 0)
        << output;
  EXPECT_EQ(read(dir / "part0.csv"), "batch,batch_si,status,predicted_s,closed_form_s,simulated_s,utilization,memory_peak_bytes,error,warnings\n"
                                     "1,1,ok,1,1,2,0.5,,,\n2,2,ok,2,1,2,0.5,,,\n");
  ASSERT_EQ(run_command(sweep + " --merge " + (dir / "part0.csv").string() + " " + (dir / "part1.csv").string() +
                            " --out " + (dir / "merged.csv").string(),
                        &output),
            0)
      << output;
  EXPECT_EQ(read(dir / "merged.csv"), read(dir / "local.csv"));
  ASSERT_EQ(run_command("cd " + dir.string() + " && { cat part0.csv; tail -n +2 part1.csv; } > cat.csv"), 0);
  EXPECT_EQ(read(dir / "cat.csv"), read(dir / "local.csv"));
  // Out of order: refused, nothing written.
  EXPECT_EQ(run_command(sweep + " --merge " + (dir / "part1.csv").string() + " " + (dir / "part0.csv").string() +
                            " --out " + (dir / "wrong.csv").string(),
                        &output),
            2);
  EXPECT_NE(output.find("part1.csv: 3 rows, but its shard of this sweep has 2 points"), std::string::npos) << output;
  EXPECT_FALSE(fs::exists(dir / "wrong.csv"));
  EXPECT_EQ(run_command(sweep + " --merge " + (dir / "part0.csv").string() + " " + (dir / "part9.csv").string() +
                            " --out " + (dir / "wrong.csv").string(),
                        &output),
            2);
  EXPECT_NE(output.find("--merge " + (dir / "part9.csv").string() + ": no such file"), std::string::npos) << output;
  EXPECT_FALSE(fs::exists(dir / "wrong.csv"));
  fs::remove_all(dir);
}

namespace {
// `mpirun -n ranks EXTRA ` for a test: as root, Open MPI needs the two OMPI_ALLOW_RUN_AS_ROOT
// variables (the commands give stdin /dev/null: CI has none). Open MPI's own allocations at
// MPI_Init are not freed by MPI_Finalize, so LeakSanitizer (sanitizer build) is off for the ranks.
std::string mpirun_command(int ranks, const std::string& extra) {
  return "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
         "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 mpirun -n " +
         std::to_string(ranks) + " " + extra + " ";
}

// The same sweep (4 lenet points, real simplan and simrun) locally and under `mpirun -n ranks`:
// the CSVs must be byte-identical.
void expect_mpi_csv_matches_local(int ranks, const std::string& extra) {
  const fs::path dir = test_dir("simsweep_mpi" + std::to_string(ranks));
  const std::string sweep = kSimsweep + " --config " + kConfig + " --workload lenet --batch 4 --strategy dsm" +
                            " --vary batch=8,16 --vary system.torus.bandwidth=20GB/s,40GB/s -j 1";
  std::string output;
  ASSERT_EQ(run_command(sweep + " --out " + (dir / "local.csv").string(), &output), 0) << output;
  const std::string mpirun = mpirun_command(ranks, extra);
  ASSERT_EQ(run_command(mpirun + sweep + " --out " + (dir / "mpi.csv").string() + " </dev/null", &output), 0) << output;
  const std::string local = read(dir / "local.csv");
  EXPECT_EQ(std::count(local.begin(), local.end(), '\n'), 5) << local;  // header + 4 points
  EXPECT_EQ(read(dir / "mpi.csv"), local);
  // Every point ran (each on one rank) and left its results.
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(fs::exists(dir / "mpi.csv.d" / ("point-" + std::to_string(i)) / "results.json"));
  fs::remove_all(dir);
}
}  // namespace

TEST(Simsweep, MpiTwoRanksGiveTheLocalCsv) { expect_mpi_csv_matches_local(2, ""); }
TEST(Simsweep, MpiFourRanksOversubscribedGiveTheLocalCsv) { expect_mpi_csv_matches_local(4, "--oversubscribe"); }

// A fixed plan replayed on a platform with less memory than it needs: simrun warns as simplan
// would, and the sweep's status says `over_memory` instead of `ok`, with simrun's line in the error
// column and the times of the replay. lenet's 61.7 k weights in fp16 alone are 123 kB per chip (the
// plan keeps them whole), far over 1 KiB and far under 8 GiB.
TEST(Simsweep, FixedPlanOverMemoryIsMarked) {
  const fs::path dir = test_dir("simsweep_memory");
  const std::string plan = (dir / "lenet.json").string();
  std::string output;
  ASSERT_EQ(run_command(std::string(PARTSIM_BIN_DIR) + "/simplan --config " + kConfig +
                            " --workload lenet --batch 8 --strategy dsm -o " + plan,
                        &output),
            0)
      << output;
  ASSERT_EQ(run_command(kSimsweep + " --config " + kConfig + " --fixed-plan " + plan +
                            " --vary system.device_types.dsm_chip.chip.memory=1KiB,8GiB --out " +
                            (dir / "sweep.csv").string(),
                        &output),
            0)
      << output;
  const std::string csv = read(dir / "sweep.csv");
  const std::string over = "\n1KiB,1024,over_memory,";
  ASSERT_NE(csv.find(over), std::string::npos) << csv;
  EXPECT_NE(csv[csv.find(over) + over.size()], ',') << csv;  // timed: its predicted time follows
  EXPECT_NE(csv.find(",simrun: warning: the plan does not fit on "), std::string::npos) << csv;
  EXPECT_NE(csv.find("\n8GiB,8589934592,ok,"), std::string::npos) << csv;
  fs::remove_all(dir);
}

// Re-planned at every point, a plan that does not fit is refused by simplan: the point is
// `over_memory` with simplan's line and no times, not `failed`, and the sweep succeeds. The chain's
// 786,432 parameters need 14.2 MB per device in data parallelism (18 B each,
// tests/memory/test_memory_timeline.cpp), over 1 MiB and under 16 GiB.
TEST(Simsweep, PlansOverMemoryAreListedAsSuchNotTimed) {
  const fs::path dir = test_dir("simsweep_refused");
  const fs::path data = fs::path(PARTSIM_TEST_DATA_DIR) / "memory";
  std::string output;
  ASSERT_EQ(run_command(kSimsweep + " --config " + (data / "four_bf16.yaml").string() + " --workload " +
                            (data / "chain4.yaml").string() + " --batch 32 --strategy dp" +
                            " --vary system.device_types.dev.memory=1MiB,16GiB --out " + (dir / "sweep.csv").string(),
                        &output),
            0)
      << output;
  EXPECT_NE(output.find("1 over memory"), std::string::npos) << output;
  const std::string csv = read(dir / "sweep.csv");
  EXPECT_NE(csv.find("\n1MiB,1048576,over_memory,,,,,,\"simplan: error: the plan does not fit: "), std::string::npos) << csv;
  EXPECT_NE(csv.find("\n16GiB,17179869184,ok,"), std::string::npos) << csv;
  fs::remove_all(dir);
}

// Bad input under mpirun: every rank refuses it before any point runs, the error is printed once
// (by rank 0, the lowest that found it), the job exits 2 and writes nothing.
TEST(Simsweep, MpiBadInputIsOneLineAndExitTwo) {
  const fs::path dir = test_dir("simsweep_mpi_bad");
  write_stand_ins(dir);
  std::string output;
  EXPECT_EQ(run_command(mpirun_command(2, "") + stand_in_sweep(dir, "--vary batch=8,0") + " --out " +
                            (dir / "sweep.csv").string() + " </dev/null",
                        &output),
            2)
      << output;
  size_t errors = 0;
  for (size_t at = output.find("simsweep: error: "); at != std::string::npos; at = output.find("simsweep: error: ", at + 1))
    ++errors;
  EXPECT_EQ(errors, 1u) << output;
  EXPECT_NE(output.find("simsweep: error: --vary batch=0: '0' is not a whole number"), std::string::npos) << output;
  EXPECT_FALSE(fs::exists(dir / "sweep.csv"));
  EXPECT_FALSE(fs::exists(dir / "sweep.csv.d"));
  EXPECT_FALSE(fs::exists(dir / "runs.txt"));
  fs::remove_all(dir);
}

// Issue 41 item 2: a wildcard over list elements, filtered by a field, varies every matching link in
// lock-step (one point per value): a=fpga0 picks fpga0's ring link and its uplink to the host
// (links 0 and 8 of the file). Beside it, a lock-step pair with one value per key.
TEST(Simsweep, WildcardOverListElementsAndLockStepKeys) {
  const fs::path dir = test_dir("simsweep_wildcard");
  write_stand_ins(dir);
  const std::string f1 = (fs::path(PARTSIM_TEST_DATA_DIR) / "platforms" / "f1_16xlarge.yaml").string();
  const std::string cmd = kSimsweep + " --config " + f1 + " --workload lenet --strategy h2h" +
                          " --vary 'system.graph.links[a=fpga0].bandwidth=1GB/s,2GB/s'" +
                          " --vary 'batch,option.max_moves=1|0,2|10' --bin-dir " + (dir / "bin").string() +
                          " --out " + (dir / "sweep.csv").string() + " --list-points";
  std::string output;
  ASSERT_EQ(run_command(cmd, &output), 0) << output;
  EXPECT_EQ(output,
            "point,system.graph.links[0].bandwidth,system.graph.links[0].bandwidth_si,system.graph.links[8].bandwidth,"
            "system.graph.links[8].bandwidth_si,batch,batch_si,option.max_moves,option.max_moves_si\n"
            "0,1GB/s,1000000000,1GB/s,1000000000,1,1,0,0\n1,1GB/s,1000000000,1GB/s,1000000000,2,2,10,10\n"
            "2,2GB/s,2000000000,2GB/s,2000000000,1,1,0,0\n3,2GB/s,2000000000,2GB/s,2000000000,2,2,10,10\n");
  ASSERT_EQ(run_command(kSimsweep + " --config " + f1 + " --workload lenet --batch 1 --strategy h2h" +
                            " --vary 'system.graph.links[a=nosuch*].bandwidth=1GB/s' --out " +
                            (dir / "sweep.csv").string() + " --list-points",
                        &output),
            2)
      << output;
  EXPECT_NE(output.find("no element of system.graph.links in"), std::string::npos) << output;
  fs::remove_all(dir);
}

// Issue 41 item 3: --timeout kills a point that runs too long. The stand-in simrun sleeps 5 s at
// batch 2 and answers at once at batch 1: with --timeout 1 the batch-2 point is listed as timeout
// (times empty, the limit in its error) and counted as failed, the other point ran.
TEST(Simsweep, TimeoutKillsALongPoint) {
  const fs::path dir = test_dir("simsweep_timeout");
  write_stand_ins(dir);
  write_script(dir / "bin" / "simrun",
               "out=''; b=1\n"
               "while [ $# -gt 0 ]; do case \"$1\" in --out) out=$2;; --record) case \"$2\" in batch=*) b=${2#*=};; esac;; "
               "esac; shift; done\n"
               "[ \"$b\" = 2 ] && exec sleep 5\n"
               "printf '{\"predicted_iteration_s\": 1, \"closed_form_iteration_s\": 1, \"simulated_iteration_s\": 2, "
               "\"utilization\": 0.5}' > \"$out\"\n");
  const auto started = std::chrono::steady_clock::now();
  std::string output;
  EXPECT_EQ(run_command(stand_in_sweep(dir, "--vary batch=1,2 --timeout 1") + " --out " + (dir / "sweep.csv").string(),
                        &output),
            1)
      << output;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), 4.5);
  const std::string csv = read(dir / "sweep.csv");
  EXPECT_NE(csv.find("\n1,1,ok,1,1,2,0.5,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\n2,2,timeout,,,,,,killed after --timeout 1 s (simplan and simrun together)"), std::string::npos)
      << csv;
  fs::remove_all(dir);
}
