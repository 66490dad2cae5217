// simsweep: plans and replays a workload at every point of a parameter sweep, in parallel processes,
// and writes one CSV row per point (sim/sweep/sweep_csv.hpp: the varied values as written and in SI
// units, status, predicted, closed form, simulated, utilization, error, warnings). Every point's
// point.json (its definition), plan.json, results.json and log stay in the work directory.
//   simsweep --config C --workload W --batch B --strategy S --vary KEY=VALUES ... --out sweep.csv
//            [--resume] [--shard I/N] [--list-points]      also under mpirun -n N / srun (ranks)
//   simsweep ... --merge part0.csv part1.csv ... --out sweep.csv   the shards' CSVs, checked, as one

#include <fnmatch.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "sim/cli/command_line.hpp"
#include "sim/cli/inputs.hpp"
#include "sim/cli/simplan_options.hpp"
#include "sim/common/content_hash.hpp"
#include "sim/common/error.hpp"
#include "sim/common/yaml_reader.hpp"
#include "sim/planners/builtin_strategies.hpp"
#include "sim/sweep/mpi_world.hpp"
#include "sim/sweep/point_setup.hpp"
#include "sim/sweep/process_pool.hpp"
#include "sim/sweep/sweep_axis.hpp"
#include "sim/sweep/sweep_csv.hpp"
#include "sim/sweep/work_split.hpp"
#include "workloads/workload_file.hpp"

namespace fs = std::filesystem;
using namespace partsim;

namespace {

struct Options {
  sweep::SweepBase base;
  std::vector<std::string> vary;
  std::string out;
  std::string work_dir;
  std::string bin_dir;
  std::string shard = "0/1";
  std::vector<std::string> merge;  // --merge: the shards' CSVs, in shard order
  bool resume = false;
  bool list_points = false;
  bool quiet = false;  // --quiet: no progress or "wrote" lines (errors still printed)
  int jobs = 0;
  double timeout_s = 0;  // --timeout: per point, 0 = none
};

fs::path self_dir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path(".") : exe.parent_path();
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A file's fingerprint for a point's definition ("" when the name is no file: a zoo workload).
std::string file_hash(const std::string& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec) ? fnv1a64_hex(read_file(path)) : std::string();
}

class Progress {
 public:
  Progress(size_t total, std::string who, bool quiet)
      : total_(total), who_(std::move(who)), tty_(::isatty(STDERR_FILENO) != 0), quiet_(quiet) {}
  // `status`: the point's (sweep::PointOutcome::status).
  void step(const std::string& status) {
    ++done_;
    const bool failed = status == "failed" || status == "timeout", over_memory = status == "over_memory";
    failed_ += failed ? 1 : 0;
    over_memory_ += over_memory ? 1 : 0;
    if (quiet_) return;
    if (tty_) {
      const size_t width = 30, filled = total_ ? done_ * width / total_ : width;
      std::cerr << "\r" << who_ << "[" << std::string(filled, '#') << std::string(width - filled, '.') << "] " << done_
                << "/" << total_ << " points" << (failed_ ? ", " + std::to_string(failed_) + " failed" : "")
                << (over_memory_ ? ", " + std::to_string(over_memory_) + " over memory" : "") << std::flush;
      if (done_ == total_) std::cerr << "\n";
    } else {
      std::cerr << "simsweep" << who_ << ": " << done_ << "/" << total_ << " points done"
                << (failed ? " (this one failed)" : over_memory ? " (this one does not fit memory)" : "") << "\n";
    }
  }

 private:
  size_t total_, done_ = 0, failed_ = 0, over_memory_ = 0;
  std::string who_;
  bool tty_;
  bool quiet_;
};

// "--set K=V: ..." from the platform, about a value that came from --vary: "--vary K=V: ...".
InputError as_vary_error(const InputError& e, const std::string& key) {
  const std::string message = e.what();
  return InputError(message.rfind("--set ", 0) == 0 ? "--vary " + message.substr(6) : "--vary " + key + ": " + message);
}

// Every value of every axis on its own, so a bad value is named as the --vary value it is.
void check_axis_values(const Options& o, const std::vector<sweep::SweepAxis>& axes) {
  cli::OutputSet unused;  // nothing is written: --dump-config is not a simsweep option
  const auto& registry = planner::builtin_strategies();
  std::vector<std::string> strategies;  // every strategy the sweep plans with
  for (const auto& axis : axes)
    if (axis.kind == sweep::AxisKind::strategy) strategies = axis.values;
  if (strategies.empty()) strategies.push_back(o.base.strategy);
  for (const auto& axis : axes) {
    if (axis.kind != sweep::AxisKind::platform && !o.base.fixed_plan.empty())
      throw InputError("--vary " + axis.key + ": only platform keys can be varied with --fixed-plan (" + axis.key +
                       " needs a plan made at every point)");
    for (const auto& value : axis.values) {
      const std::string assignment = axis.key + "=" + value;
      try {
        switch (axis.kind) {
          case sweep::AxisKind::platform: {
            cli::PlatformOptions platform{o.base.config, o.base.sets, ""};
            platform.overrides.push_back(assignment);
            try {
              cli::load_platform(platform, unused);
            } catch (const InputError& e) {
              throw as_vary_error(e, axis.key);
            }
            break;
          }
          case sweep::AxisKind::batch: sweep::parse_batch(value); break;
          case sweep::AxisKind::workload: workloads::load_workload(value, 1); break;
          case sweep::AxisKind::strategy: registry.find(value); break;
          case sweep::AxisKind::strategy_option:
            for (const auto& strategy : strategies)
              registry.resolve_options(strategy, {sweep::option_name(axis.key) + "=" + value});
            break;
        }
      } catch (const InputError& e) {
        const std::string message = e.what();
        if (message.rfind("--vary ", 0) == 0) throw;
        throw InputError("--vary " + assignment + ": " + message);
      }
    }
  }
}

// The keys of a --vary key list, split at the commas outside brackets.
std::vector<std::string> sweep_key_list(const std::string& text) {
  std::vector<std::string> keys(1);
  int depth = 0;
  for (char c : text) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (c == ',' && depth == 0) {
      keys.emplace_back();
      continue;
    }
    keys.back() += c;
  }
  return keys;
}

// `--vary` keys over list elements (issue 41 item 2): `PATH[*]REST` stands for PATH[0]REST,
// PATH[1]REST, ... over every element of the list PATH in the platform file, and `PATH[FIELD=GLOB]REST`
// for the elements whose scalar FIELD matches the shell pattern GLOB (`system.graph.links[a=v2_*]`
// .bandwidth: the links from a v2 device). The keys then vary in lock-step (parse_vary_group). The
// file is read as written, before --set. Returns the argument with its keys expanded.
std::string expand_list_wildcards(const std::string& vary, const std::string& config) {
  if (vary.find('[') == std::string::npos) return vary;
  // The key part ends at the first '=' that is not inside brackets.
  size_t end = 0;
  for (int depth = 0; end < vary.size(); ++end) {
    if (vary[end] == '[') ++depth;
    if (vary[end] == ']') --depth;
    if (vary[end] == '=' && depth == 0) break;
  }
  if (end == vary.size()) return vary;
  std::string expanded;
  for (const std::string& key : sweep_key_list(vary.substr(0, end))) {
    const size_t at = key.find('[');
    const size_t close = at == std::string::npos ? std::string::npos : key.find(']', at);
    const std::string selector = at == std::string::npos || close == std::string::npos ? "" : key.substr(at + 1, close - at - 1);
    const bool wildcard = selector == "*" || selector.find('=') != std::string::npos;
    if (!wildcard) {
      expanded += (expanded.empty() ? "" : ",") + key;
      continue;
    }
    if (config.empty()) throw InputError("--vary " + key + ": a list wildcard needs --config (the list is read from it)");
    const std::string path = key.substr(0, at), rest = key.substr(close + 1);
    YAML::Node node;
    try {
      node = YAML::LoadFile(config);
    } catch (const YAML::Exception& e) {
      throw InputError("--vary " + key + ": cannot read " + config + " to expand the list: " + e.what());
    }
    size_t from = 0;
    while (from <= path.size()) {
      const size_t dot = path.find('.', from);
      const std::string part = path.substr(from, dot == std::string::npos ? std::string::npos : dot - from);
      // reset(), not '=': assigning a yaml-cpp node writes through to the node it refers to.
      const YAML::Node child = static_cast<const YAML::Node&>(node)[part];
      node.reset(child);
      if (!node) throw InputError("--vary " + key + ": " + config + " has no " + path.substr(0, dot) + " to expand");
      if (dot == std::string::npos) break;
      from = dot + 1;
    }
    if (!node.IsSequence()) throw InputError("--vary " + key + ": " + path + " in " + config + " is not a list");
    std::string field, pattern;
    if (selector != "*") {
      field = selector.substr(0, selector.find('='));
      pattern = selector.substr(selector.find('=') + 1);
    }
    int matched = 0;
    for (std::size_t i = 0; i < node.size(); ++i) {
      if (!field.empty()) {
        const YAML::Node element = static_cast<const YAML::Node&>(node)[i];
        const YAML::Node value = element[field];
        if (!value || !value.IsScalar() || fnmatch(pattern.c_str(), value.Scalar().c_str(), 0) != 0) continue;
      }
      expanded += (expanded.empty() ? "" : ",") + path + "[" + std::to_string(i) + "]" + rest;
      ++matched;
    }
    if (matched == 0) throw InputError("--vary " + key + ": no element of " + path + " in " + config + " matches");
  }
  return expanded + vary.substr(end);
}

// "batch=8, workload=lenet": a point's values for messages.
std::string point_text(const sweep::SweepPoint& point) {
  std::string text;
  for (const auto& [key, value] : point) text += (text.empty() ? "" : ", ") + key + "=" + value;
  return text;
}

// Everything a point's simplan and simrun would refuse, checked up front with the loaders they use
// (cli/inputs.hpp): the fixed inputs, every axis value, then every point's combination (a strategy
// option of another strategy, a workload at a batch). Returns each point's input fingerprints (the
// resolved platform, the workload or fixed plan file), part of its definition for --resume.
std::vector<std::vector<std::string>> check_inputs(const Options& o, const std::vector<sweep::SweepAxis>& axes,
                                                   const std::vector<sweep::SweepPoint>& points) {
  if (!o.base.fixed_plan.empty() && !o.base.simplan_args.empty())
    throw InputError("--simplan-arg has no effect with --fixed-plan (no point runs simplan)");
  cli::OutputSet unused;
  const cli::PlatformOptions fixed{o.base.config, o.base.sets, ""};
  std::string plan_hash;
  if (!o.base.fixed_plan.empty()) {
    // The lowering makes the strategy's own checks of the plan (dsm passes against the chip).
    const cli::ReplayInputs replay = cli::load_replay_inputs(fixed, o.base.fixed_plan, /*allow_config_change=*/true, unused);
    const topology::TopologyGraph graph(replay.spec, topology::parse_granularity(o.base.granularity));
    cli::lower_replay_inputs(replay, graph, o.base.fixed_plan);
    plan_hash = file_hash(o.base.fixed_plan);
  } else {
    cli::load_platform(fixed, unused);
  }
  // simplan's own parser, so a bad extra argument fails here, not at every point; its strategy
  // options join each point's in the check below.
  const std::vector<std::string> extra_options =
      cli::strategy_options(cli::parse_simplan_arguments(o.base.simplan_args));
  check_axis_values(o, axes);

  std::vector<std::vector<std::string>> hashes;
  std::set<std::string> checked_planning;              // workload, batch, strategy, options already loaded
  std::map<std::string, std::string> workload_hashes;  // workload -> file_hash
  for (size_t i = 0; i < points.size(); ++i) {
    const sweep::PointInputs in = sweep::point_inputs(o.base, axes, points[i]);
    const cli::PlatformOptions platform{o.base.config, in.sets, ""};
    try {
      // The workload, strategy and options do not depend on the platform: loaded once per distinct
      // combination (a 1000-point bandwidth sweep loads its workload once, not 1000 times).
      std::string planning_key = in.workload + '\n' + std::to_string(in.batch) + '\n' + in.strategy;
      for (const auto& option : in.options) planning_key += '\n' + option;
      if (!o.base.fixed_plan.empty()) {
        hashes.push_back({topology::content_hash(cli::load_platform(platform, unused)), plan_hash});
      } else if (!checked_planning.insert(planning_key).second) {
        hashes.push_back({topology::content_hash(cli::load_platform(platform, unused)), workload_hashes.at(in.workload)});
      } else {
        std::vector<std::string> options = in.options;
        options.insert(options.end(), extra_options.begin(), extra_options.end());
        const cli::PlanningInputs planning =
            cli::load_planning_inputs(platform, in.workload, in.batch, in.strategy, options, unused);
        workload_hashes.emplace(in.workload, file_hash(in.workload));
        hashes.push_back({topology::content_hash(planning.spec), workload_hashes.at(in.workload)});
      }
    } catch (const InputError& e) {
      throw InputError("point " + std::to_string(i) + " (" + point_text(points[i]) + "): " + e.what());
    }
  }
  return hashes;
}

// Runs `body` on every rank; when it throws InputError on any, every rank ends with exit code 2 and
// only the lowest failing rank prints its message (one line, as without MPI). It prints before any
// rank can end: under mpirun the first rank to exit non-zero aborts the job, which could kill the
// printing rank before its line was written.
template <class Body>
void on_every_rank(sweep::MpiWorld& world, const Body& body) {
  std::string error;
  bool failed_here = false;
  try {
    body();
  } catch (const InputError& e) {
    failed_here = true;
    error = e.what();
  }
  const int failed = world.lowest_failed_rank(failed_here);
  if (failed < 0) return;
  if (failed == world.rank()) cli::print_error("simsweep", error);
  world.barrier();
  throw cli::ExitRequest{2};
}

int list_points_mode(const std::vector<sweep::SweepAxis>& axes, const std::vector<sweep::SweepPoint>& points,
                     sweep::PointRange range) {
  std::string header = "point";
  for (const auto& axis : axes) header += "," + sweep::csv_field(axis.key) + "," + sweep::csv_field(axis.key + "_si");
  std::cout << header << "\n";
  for (size_t i = range.begin; i < range.end; ++i) {
    std::string columns = sweep::csv_axis_columns(axes, points[i]);
    columns.pop_back();  // its last comma
    std::cout << i << "," << columns << "\n";
  }
  return 0;
}

int merge_mode(const Options& o, const std::vector<sweep::SweepAxis>& axes, const std::vector<sweep::SweepPoint>& points) {
  cli::OutputSet outputs;
  outputs.check({o.out});
  std::vector<sweep::ShardFile> shards;
  for (size_t s = 0; s < o.merge.size(); ++s) {
    std::error_code ec;
    if (!fs::is_regular_file(o.merge[s], ec)) throw InputError("--merge " + o.merge[s] + ": no such file");
    const auto range = sweep::shard_range(points.size(), {s, o.merge.size()});
    shards.push_back({o.merge[s], read_file(o.merge[s]),
                      std::vector<sweep::SweepPoint>(points.begin() + static_cast<long>(range.begin),
                                                     points.begin() + static_cast<long>(range.end))});
  }
  outputs.add(o.out, sweep::merge_shards(shards, axes));
  outputs.commit();
  if (!o.quiet)
    std::cerr << "simsweep: wrote " << o.out << " (" << points.size() << " points from " << shards.size() << " shards)\n";
  return 0;
}

// The points a rank runs and how each went, in the rank's order.
struct RankRows {
  std::vector<std::string> rows;
  size_t failed = 0;
  size_t over_memory = 0;  // plans that do not fit a device's memory (status over_memory)
};

RankRows run_points(const Options& o, const std::vector<sweep::SweepAxis>& axes,
                    const std::vector<sweep::SweepPoint>& points, const std::vector<std::vector<std::string>>& hashes,
                    const std::vector<size_t>& mine, const sweep::MpiWorld& world) {
  const fs::path bin = o.bin_dir.empty() ? self_dir() : fs::path(o.bin_dir);
  const fs::path work = o.work_dir.empty() ? fs::path(o.out + ".d") : fs::path(o.work_dir);
  fs::create_directories(work);
  // Cores shared by the ranks on this machine, unless --jobs says otherwise.
  const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  const int jobs = o.jobs > 0 ? o.jobs : std::max(1, cores / world.local_size());

  std::vector<std::vector<sweep::Command>> chains;
  std::vector<size_t> chain_of(mine.size(), SIZE_MAX);  // my k-th point -> its chain, SIZE_MAX: results reused
  std::vector<fs::path> dirs, chain_dirs;
  for (size_t k = 0; k < mine.size(); ++k) {
    const size_t i = mine[k];
    const fs::path dir = work / ("point-" + std::to_string(i));
    dirs.push_back(dir);
    fs::create_directories(dir);
    auto commands = sweep::point_commands(o.base, sweep::point_inputs(o.base, axes, points[i]), bin, dir);
    const std::string definition = sweep::point_definition(commands, hashes[i]);
    // --resume: a point whose definition is unchanged and whose results.json is complete stands
    // (simrun writes it whole or not at all, after its replay).
    if (o.resume && read_file(dir / "point.json") == definition && sweep::results_totals(dir / "results.json")) continue;
    for (const char* stale : {"results.json", "log.txt", "plan.json"}) fs::remove(dir / stale);
    cli::OutputSet point_file;
    point_file.add((dir / "point.json").string(), definition);
    point_file.commit();
    chain_of[k] = chains.size();
    chains.push_back(std::move(commands));
    chain_dirs.push_back(dir);
  }
  const std::string who = world.size() > 1 ? "[rank " + std::to_string(world.rank()) + "]" : "";
  if (o.resume && !o.quiet)
    std::cerr << "simsweep" << who << ": --resume: " << mine.size() - chains.size() << " of " << mine.size()
              << " points already done, running " << chains.size() << "\n";
  Progress progress(chains.size(), who, o.quiet);
  // A point killed for its --timeout: listed as such, with the limit, whatever its log says.
  const auto outcome_of = [&](const fs::path& dir, const sweep::ChainResult& r) {
    sweep::PointOutcome outcome = sweep::read_outcome(dir, r.exit_code);
    if (r.timed_out) {
      outcome.status = "timeout";
      outcome.timed = false;
      std::ostringstream limit;
      limit << o.timeout_s;
      outcome.error = "killed after --timeout " + limit.str() + " s (simplan and simrun together)";
    }
    return outcome;
  };
  const auto results = sweep::run_chains(
      chains, jobs,
      [&](size_t chain, const sweep::ChainResult& r) { progress.step(outcome_of(chain_dirs[chain], r).status); },
      o.timeout_s);

  RankRows out;
  for (size_t k = 0; k < mine.size(); ++k) {
    const sweep::ChainResult done = chain_of[k] == SIZE_MAX ? sweep::ChainResult{} : results[chain_of[k]];
    const sweep::PointOutcome outcome = outcome_of(dirs[k], done);
    out.failed += outcome.status == "failed" || outcome.status == "timeout" ? 1 : 0;
    out.over_memory += outcome.status == "over_memory" ? 1 : 0;
    out.rows.push_back(sweep::csv_row(axes, points[mine[k]], outcome));
  }
  return out;
}

int run(int argc, char** argv) {
  Options o;
  CLI::App app{"simsweep: plan and replay a workload at every point of a parameter sweep (CSV out)", "simsweep"};
  app.add_option("--config", o.base.config, "Platform YAML file")->required()->check(CLI::ExistingFile);
  app.add_option("--workload", o.base.workload, "Zoo name, workload YAML file or ONNX model (simplan --list)");
  app.add_option("--batch", o.base.batch, "Minibatch size (1 to 1000000000)")->check(CLI::Range(1LL, 1'000'000'000LL));
  app.add_option("--strategy", o.base.strategy, "Partitioning strategy (simplan --list-strategies)");
  app.add_option("--option", o.base.options, "Strategy option NAME=VALUE at every point (repeatable)");
  app.add_option("--vary", o.vary,
                 "AXIS=V1,V2,... or AXIS=A..B*FACTOR or AXIS=A..B+STEP; AXIS is a platform key (e.g. "
                 "system.torus.bandwidth[0]=30GB/s..240GB/s*2), batch, workload, strategy or option.NAME "
                 "(repeatable: the cartesian product is swept, the last axis fastest)")
      ->required();
  app.add_option("--set", o.base.sets, "Platform override applied at every point (repeatable)");
  app.add_option("--fixed-plan", o.base.fixed_plan, "Replay this plan at every point instead of re-planning")
      ->check(CLI::ExistingFile);
  app.add_option("--granularity", o.base.granularity, "Replay granularity")->check(CLI::IsMember({"chip", "core"}));
  app.add_option("--simplan-arg", o.base.simplan_args, "Extra argument passed to simplan, e.g. --simplan-arg=--mode=inference");
  app.add_option("--timeout", o.timeout_s,
                 "Seconds a point (its simplan and simrun together) may run; one that runs longer is killed and "
                 "listed with status timeout, counted as failed (default 0: no limit)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--jobs,-j", o.jobs,
                 "Points run at once (default: the number of cores, shared by the MPI ranks on a machine; 1 to 1024)")
      ->check(CLI::Range(1, 1024));
  app.add_option("--out", o.out, "CSV file to write (with --shard: this shard's rows)")->required();
  app.add_option("--work-dir", o.work_dir, "Where each point's definition, plan, results and log go (default: OUT.d)");
  app.add_option("--bin-dir", o.bin_dir, "Where simplan and simrun are (default: beside simsweep)");
  cli::add_quiet_flag(app, o.quiet);
  app.add_flag("--resume", o.resume,
               "Keep the points of the work directory whose results.json is complete and whose definition "
               "(point.json) is this sweep's; run the others");
  app.add_option("--shard", o.shard, "I/N: run only the I-th of N contiguous blocks of points (job arrays; 0-based)");
  app.add_option("--merge", o.merge,
                 "The shards' CSVs in shard order (0, 1, ...): checked against this sweep and written as one CSV; "
                 "nothing is run")
      ->excludes("--shard")
      ->excludes("--resume");
  app.add_flag("--list-points", o.list_points, "Print the points (of --shard) as CSV and exit; nothing is run");
  cli::parse(app, argc, argv);

  std::vector<sweep::SweepAxis> axes;
  for (const auto& v : o.vary)
    for (sweep::SweepAxis& axis : sweep::parse_vary_group(expand_list_wildcards(v, o.base.config))) {
      for (const auto& earlier : axes)
        if (earlier.key == axis.key)
          throw InputError("--vary " + axis.key + " is given twice (list every value in one --vary)");
      axes.push_back(std::move(axis));
    }
  const auto points = sweep::sweep_points(axes);
  if (!o.merge.empty()) return merge_mode(o, axes, points);
  const sweep::Shard shard = sweep::parse_shard(o.shard);
  const sweep::PointRange range = sweep::shard_range(points.size(), shard);

  sweep::MpiWorld world;
  std::vector<std::vector<std::string>> hashes;
  cli::OutputSet outputs;
  // Before the work folder exists and before the first point runs, on every rank alike.
  on_every_rank(world, [&] {
    auto given_or_varied = [&](bool given, sweep::AxisKind kind) {
      return given || std::any_of(axes.begin(), axes.end(), [&](const auto& a) { return a.kind == kind; });
    };
    if (o.base.fixed_plan.empty() && !(given_or_varied(!o.base.workload.empty(), sweep::AxisKind::workload) &&
                                       given_or_varied(o.base.batch > 0, sweep::AxisKind::batch) &&
                                       given_or_varied(!o.base.strategy.empty(), sweep::AxisKind::strategy)))
      throw InputError("--workload, --batch and --strategy are required (or varied: --vary workload=..., batch=..., "
                       "strategy=...) unless --fixed-plan is given");
    if (world.rank() == 0 && !o.list_points) outputs.check({o.out});
    hashes = check_inputs(o, axes, points);
  });
  if (o.list_points) return world.rank() == 0 ? list_points_mode(axes, points, range) : 0;

  const std::vector<size_t> mine = sweep::rank_points(range, world.rank(), world.size());
  const RankRows rows = run_points(o, axes, points, hashes, mine, world);
  const auto gathered = world.gather_to_root(rows.rows);
  const long long failed = world.sum_over_ranks(static_cast<long long>(rows.failed));
  const long long over_memory = world.sum_over_ranks(static_cast<long long>(rows.over_memory));
  if (world.rank() != 0) return failed == 0 ? 0 : 1;

  // Rank r's k-th row is the point rank_points(range, r, size)[k]: back into the sweep's order.
  std::vector<std::string> ordered(range.size());
  for (size_t r = 0; r < gathered.size(); ++r) {
    const auto indices = sweep::rank_points(range, static_cast<int>(r), world.size());
    for (size_t k = 0; k < indices.size(); ++k) ordered[indices[k] - range.begin] = gathered[r][k];
  }
  std::string csv = sweep::csv_header(axes);
  for (const auto& row : ordered) csv += row;
  outputs.add(o.out, csv);
  outputs.commit();
  if (!o.quiet)
    std::cerr << "simsweep: wrote " << o.out << " (" << range.size() << " points"
              << (shard.count > 1 ? " of shard " + o.shard : std::string()) << ", " << failed << " failed"
              << (over_memory ? ", " + std::to_string(over_memory) + " over memory (status over_memory)" : std::string())
              << "; work in "
              << (o.work_dir.empty() ? o.out + ".d" : o.work_dir) << ")\n";
  return failed == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return cli::run_main("simsweep", run, argc, argv); }
