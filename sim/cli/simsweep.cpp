// simsweep: re-plans and replays a workload at every point of a parameter sweep, in parallel
// processes, and writes one CSV row per point (varied values, predicted, closed form, simulated,
// utilization). Every point's plan.json, results.json and log stay in the work directory.

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "sim/cli/command_line.hpp"
#include "sim/cli/inputs.hpp"
#include "sim/common/error.hpp"
#include "sim/sweep/process_pool.hpp"
#include "sim/sweep/sweep_axis.hpp"

namespace fs = std::filesystem;
using namespace partsim;

namespace {

struct Options {
  std::string config;
  std::string workload;
  long long batch = 0;
  std::string strategy;
  std::vector<std::string> vary;
  std::vector<std::string> fixed_sets;  // --set applied at every point
  std::string fixed_plan;
  std::string granularity = "chip";
  std::vector<std::string> simplan_args;
  std::string out;
  std::string work_dir;
  std::string bin_dir;
  int jobs = 0;
};

fs::path self_dir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path(".") : exe.parent_path();
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string number(double v) {
  std::ostringstream os;
  os.precision(9);
  os << v;
  return os.str();
}

// The last non-empty line of a point's log: the one-line error the program printed.
std::string last_log_line(const fs::path& log) {
  std::ifstream in(log);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  return last;
}

// The warnings a point's programs printed (simplan's "prediction cannot hold", a plan over the
// chip's memory, ...), one CSV field: "program: warning: ..." lines joined by " | ".
std::string warnings_in(const fs::path& log) {
  std::ifstream in(log);
  std::string line, all;
  while (std::getline(in, line))
    if (line.find(": warning: ") != std::string::npos) all += (all.empty() ? "" : " | ") + line;
  return all;
}

class Progress {
 public:
  explicit Progress(size_t total) : total_(total), tty_(::isatty(STDERR_FILENO) != 0) {}
  void step(bool failed) {
    ++done_;
    failed_ += failed ? 1 : 0;
    if (tty_) {
      const size_t width = 30, filled = total_ ? done_ * width / total_ : width;
      std::cerr << "\r[" << std::string(filled, '#') << std::string(width - filled, '.') << "] " << done_ << "/"
                << total_ << " points" << (failed_ ? ", " + std::to_string(failed_) + " failed" : "") << std::flush;
      if (done_ == total_) std::cerr << "\n";
    } else {
      std::cerr << "simsweep: " << done_ << "/" << total_ << " points done" << (failed ? " (this one failed)" : "") << "\n";
    }
  }

 private:
  size_t total_, done_ = 0, failed_ = 0;
  bool tty_;
};

// Everything a point's simplan and simrun would refuse, checked once up front with the same
// loaders they use (cli/inputs.hpp): the platform with the fixed --set overrides and with every
// value of every axis, the workload and strategy (or the fixed plan against the platform).
void check_inputs(const Options& o, const std::vector<sweep::SweepAxis>& axes) {
  cli::OutputSet unused;  // nothing is written: --dump-config is not a simsweep option
  cli::PlatformOptions platform{o.config, o.fixed_sets, ""};
  if (o.fixed_plan.empty())
    cli::load_planning_inputs(platform, o.workload, o.batch, o.strategy, {}, unused);
  else {
    // The lowering makes the strategy's own checks of the plan (dsm passes against the chip).
    const cli::ReplayInputs fixed = cli::load_replay_inputs(platform, o.fixed_plan, /*allow_config_change=*/true, unused);
    const topology::TopologyGraph graph(fixed.spec, topology::parse_granularity(o.granularity));
    cli::lower_replay_inputs(fixed, graph, o.fixed_plan);
  }
  for (const auto& axis : axes)
    for (const auto& value : axis.values) {
      cli::PlatformOptions point = platform;
      point.overrides.push_back(axis.key + "=" + value);
      try {
        cli::load_platform(point, unused);
      } catch (const InputError& e) {
        // The platform names the assignment ("--set KEY=VALUE: ..."): here it came from --vary.
        const std::string message = e.what();
        throw InputError(message.rfind("--set ", 0) == 0 ? "--vary " + message.substr(6) : "--vary " + axis.key + ": " + message);
      }
    }
}

int run(int argc, char** argv) {
  Options o;
  CLI::App app{"simsweep: plan and replay a workload at every point of a parameter sweep (CSV out)", "simsweep"};
  app.add_option("--config", o.config, "Platform YAML file")->required()->check(CLI::ExistingFile);
  app.add_option("--workload", o.workload, "Zoo name, workload YAML file or ONNX model (simplan --list)");
  app.add_option("--batch", o.batch, "Minibatch size (1 to 1000000000)")->check(CLI::Range(1LL, 1'000'000'000LL));
  app.add_option("--strategy", o.strategy, "Partitioning strategy (simplan --list-strategies)");
  app.add_option("--vary", o.vary,
                 "KEY=V1,V2,... or KEY=A..B*FACTOR or KEY=A..B+STEP, e.g. "
                 "system.torus.bandwidth[0]=30GB/s..240GB/s*2 (repeatable: the cartesian product is swept)")
      ->required();
  app.add_option("--set", o.fixed_sets, "Platform override applied at every point (repeatable)");
  app.add_option("--fixed-plan", o.fixed_plan, "Replay this plan at every point instead of re-planning")
      ->check(CLI::ExistingFile);
  app.add_option("--granularity", o.granularity, "Replay granularity")->check(CLI::IsMember({"chip", "core"}));
  app.add_option("--simplan-arg", o.simplan_args, "Extra argument passed to simplan, e.g. --simplan-arg=--opt=none");
  app.add_option("--jobs,-j", o.jobs, "Points run at once (default: the number of cores; 1 to 1024)")
      ->check(CLI::Range(1, 1024));
  app.add_option("--out", o.out, "CSV file to write")->required();
  app.add_option("--work-dir", o.work_dir, "Where each point's plan, results and log go (default: OUT.d)");
  app.add_option("--bin-dir", o.bin_dir, "Where simplan and simrun are (default: beside simsweep)");
  cli::parse(app, argc, argv);

  if (o.fixed_plan.empty() && (o.workload.empty() || o.strategy.empty() || o.batch == 0))
    throw InputError("--workload, --batch and --strategy are required unless --fixed-plan is given");

  std::vector<sweep::SweepAxis> axes;
  for (const auto& v : o.vary) axes.push_back(sweep::parse_vary(v));
  const auto points = sweep::sweep_points(axes);
  cli::OutputSet outputs;
  outputs.check({o.out});
  check_inputs(o, axes);  // before the work folder exists and before the first point runs

  const fs::path bin = o.bin_dir.empty() ? self_dir() : fs::path(o.bin_dir);
  const fs::path work = o.work_dir.empty() ? fs::path(o.out + ".d") : fs::path(o.work_dir);
  fs::create_directories(work);
  const int jobs = o.jobs > 0 ? o.jobs : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));

  std::vector<std::vector<sweep::Command>> chains;
  std::vector<fs::path> point_dirs;
  for (size_t i = 0; i < points.size(); ++i) {
    const fs::path dir = work / ("point-" + std::to_string(i));
    fs::create_directories(dir);
    fs::remove(dir / "log.txt");
    fs::remove(dir / "results.json");
    point_dirs.push_back(dir);
    std::vector<std::string> sets;
    for (const auto& s : o.fixed_sets) sets.insert(sets.end(), {"--set", s});
    for (const auto& [key, value] : points[i]) sets.insert(sets.end(), {"--set", key + "=" + value});

    std::vector<sweep::Command> chain;
    std::string plan_file = o.fixed_plan;
    if (plan_file.empty()) {
      plan_file = (dir / "plan.json").string();
      std::vector<std::string> plan_argv{(bin / "simplan").string(), "--config", o.config, "--workload", o.workload,
                                         "--batch", std::to_string(o.batch), "--strategy", o.strategy, "-o", plan_file};
      plan_argv.insert(plan_argv.end(), sets.begin(), sets.end());
      plan_argv.insert(plan_argv.end(), o.simplan_args.begin(), o.simplan_args.end());
      chain.push_back({plan_argv, (dir / "log.txt").string()});
    }
    std::vector<std::string> run_argv{(bin / "simrun").string(), "--config", o.config, "--plan", plan_file,
                                      "--granularity", o.granularity, "--out", (dir / "results.json").string()};
    if (!o.fixed_plan.empty()) run_argv.push_back("--allow-config-change");
    run_argv.insert(run_argv.end(), sets.begin(), sets.end());
    chain.push_back({run_argv, (dir / "log.txt").string()});
    chains.push_back(std::move(chain));
  }

  Progress progress(chains.size());
  const auto results = sweep::run_chains(chains, jobs, [&](size_t, const sweep::ChainResult& r) {
    progress.step(r.exit_code != 0);
  });

  std::ostringstream csv;
  for (const auto& axis : axes) csv << csv_field(axis.key) << ",";
  csv << "status,predicted_s,closed_form_s,simulated_s,utilization,error,warnings\n";
  size_t failed = 0;
  for (size_t i = 0; i < points.size(); ++i) {
    for (const auto& [key, value] : points[i]) csv << csv_field(value) << ",";
    std::string status = "ok", error;
    double predicted = 0, closed = 0, simulated = 0, utilization = 0;
    if (results[i].exit_code != 0) {
      status = "failed";
      error = last_log_line(point_dirs[i] / "log.txt");
    } else {
      try {
        std::ifstream in(point_dirs[i] / "results.json");
        const auto j = nlohmann::json::parse(in);
        predicted = j.at("predicted_iteration_s").get<double>();
        closed = j.at("closed_form_iteration_s").get<double>();
        simulated = j.at("simulated_iteration_s").get<double>();
        utilization = j.at("utilization").get<double>();
      } catch (const std::exception& e) {
        status = "failed";
        error = "unreadable results.json: " + std::string(e.what());
      }
    }
    if (status != "ok") ++failed;
    csv << status << "," << (status == "ok" ? number(predicted) + "," + number(closed) + "," + number(simulated) + "," +
                                                  number(utilization)
                                            : std::string(",,,"))
        << "," << csv_field(error) << "," << csv_field(warnings_in(point_dirs[i] / "log.txt")) << "\n";
  }
  outputs.add(o.out, csv.str());
  outputs.commit();
  std::cerr << "simsweep: wrote " << o.out << " (" << points.size() << " points, " << failed << " failed; work in "
            << work.string() << ")\n";
  return failed == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return cli::run_main("simsweep", run, argc, argv); }
