// simplan: plans how a workload is partitioned over a platform. Modes:
//   simplan --list                                   every zoo workload with its description
//   simplan --workload NAME|FILE --describe [--batch N] [--json F] [--bytes-per-element B]
//                                                    one row per layer and totals (and JSON); without
//                                                    --batch, one sample (batch 1, said on stderr)
//   simplan --list-strategies                        every planning strategy with its description
//   simplan --config C --workload W --batch B --strategy S [--option k=v ...] [--seed N] -o plan.json
//                                                    plans W on C with S (docs/plan-format.md); the
//                                                    options each strategy declares: --list-strategies;
//                                                    --batch is required (no workload has a default)
//   simplan ... --strategy S --explain LAYER         the strategy's candidate configurations of one
//                                                    layer with their cost terms, instead of planning
//   simplan ... --strategy S --describe-memory [-o F] the plan's memory per layer and kind on its
//                                                    fullest device (docs/model.md "Memory footprint")
//   A plan that does not fit a device's memory is refused (exit 2) unless --allow-over-memory;
//   --optimizer, --training-precision, --fp32-main-gradients set how model states are counted.
//   --levels H and --opt LIST are the older spellings of --option levels=H and --option opt=LIST.
//   --quiet: no summary or notes (warnings and errors still on stderr); --version.
// Planning modes (--strategy) are added by the planners; keep each mode a small function here and
// its logic in the libraries.

#include <algorithm>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <utility>
#include <unistd.h>

#include "sim/cli/command_line.hpp"
#include "sim/cli/inputs.hpp"
#include "sim/cli/simplan_options.hpp"
#include "sim/collectives/algorithm_registry.hpp"
#include "sim/common/error.hpp"
#include "sim/common/progress.hpp"
#include "sim/memory/footprint.hpp"
#include "sim/memory/memory_report.hpp"
#include "sim/plan/plan_io.hpp"
#include "sim/planners/check_plan.hpp"
#include "sim/planners/prediction_check.hpp"
#include "sim/planners/builtin_strategies.hpp"
#include "workloads/describe.hpp"
#include "workloads/workload_file.hpp"

using namespace partsim;

namespace {

using Options = cli::SimplanOptions;

int list_strategies_mode() {
  std::cout << planner::builtin_strategies().list_table();
  return 0;
}

// The type name of the device a memory use names (dsm names none: the type every device shares, or "").
std::string device_type_of(const plan::MemoryUse& use, const topology::SystemSpec& spec) {
  const int d = use.device.empty() ? 0 : spec.device_index(use.device);
  if (d < 0 || d >= spec.device_count()) return "";
  if (use.device.empty())
    for (const std::string& type : spec.device_type_of)
      if (type != spec.device_type_of.front()) return "";
  return spec.device_type_of[static_cast<std::size_t>(d)];
}

// The plan's memory (DESIGN.md "One footprint model"): the footprint model's (sim/memory/) for every
// strategy the shared sharding lowering replays, unless the strategy reckoned its own (dsm). Printed
// with --describe-memory; a plan that does not fit is refused unless --allow-over-memory.
void reckon_memory(const Options& o, plan::Plan& p, const topology::SystemSpec& configured, const workloads::Graph& graph,
                   bool shared_lowering) {
  std::vector<memory::LayerMemory> rows;
  std::string settings_text;
  if (!p.memory && shared_lowering) {
    const plan::MemorySettings settings = o.memory.applied_to(memory::default_memory_settings(configured.precision));
    p.memory = memory::plan_memory(p, configured, graph, settings);
    settings_text = memory::describe(settings, p.workload.mode, topology::bytes_per_element(configured.precision));
    if (o.describe_memory) rows = memory::layer_memory(p, configured, graph, settings, configured.device_index(p.memory->device));
  }
  if (!p.memory) {
    if (o.describe_memory) throw InputError("--describe-memory: strategy '" + p.strategy + "' does not reckon memory");
    return;
  }
  const std::string type = device_type_of(*p.memory, configured);
  if (o.describe_memory) std::cout << memory::memory_table(rows, *p.memory, type, settings_text);
  if (!p.memory->fits() && !o.allow_over_memory && !o.output.empty())
    throw InputError(memory::over_memory_message(*p.memory, type, settings_text));
}

// Progress of a long search (issue 41 item 3), drawn as simrun draws its replay's: on a terminal,
// unless --quiet, at most once a second, one line rewritten in place on stderr; cleared when the
// search reports its last candidate (before the strategy's own summary) or, on an error, when this
// goes out of scope. Nothing is drawn for a search under a second.
class SearchProgressLine {
 public:
  explicit SearchProgressLine(std::string strategy) : strategy_(std::move(strategy)) {}
  SearchProgressLine(const SearchProgressLine&) = delete;
  SearchProgressLine& operator=(const SearchProgressLine&) = delete;
  ~SearchProgressLine() { clear(); }

  ProgressCallback callback() {
    return [this](const SearchProgress& p) { show(p); };
  }

 private:
  void show(const SearchProgress& p) {
    if (p.done >= p.total) return clear();
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ < std::chrono::seconds(1)) return;
    last_ = now;
    char best[64] = "";
    if (p.best_s) {  // in s, ms or us: the mcm searches' latencies are fractions of a millisecond
      const double v = *p.best_s;
      const auto [scale, unit] = v >= 1 ? std::pair{1.0, "s"} : v >= 1e-3 ? std::pair{1e3, "ms"} : std::pair{1e6, "us"};
      std::snprintf(best, sizeof best, ", best %.4g %s so far", v * scale, unit);
    }
    // The percentage rounded down: 100 % only at the end, when the line is cleared instead.
    const int n = std::fprintf(stderr, "\rsimplan: %s search: %zu of %zu %.*s (%zu %%)%s   ", strategy_.c_str(), p.done,
                               p.total, static_cast<int>(p.unit.size()), p.unit.data(), p.done * 100 / p.total, best);
    width_ = std::max(width_, n);
  }
  void clear() {
    if (width_ > 0) std::fprintf(stderr, "\r%*s\r", width_, "");
    width_ = 0;
  }

  std::string strategy_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();  // the search's start, then the last line
  int width_ = 0;  // characters of the widest line drawn (0: none on screen)
};

int plan_mode(const Options& o) {
  const auto& registry = planner::builtin_strategies();
  registry.find(o.strategy);  // an unknown strategy fails before anything is loaded
  if (o.output.empty() && o.explain.empty() && !o.describe_memory)
    throw InputError("--strategy needs -o FILE for the plan (plan.json)");
  cli::OutputSet outputs;
  std::vector<std::string> files;  // checked together before any work
  for (const auto& f : {o.output, o.platform.dump_config_file})
    if (!f.empty()) files.push_back(f);
  outputs.check(files);
  const std::vector<std::string> options = cli::strategy_options(o);
  const cli::PlanningInputs loaded =
      cli::load_planning_inputs(o.platform, o.workload, o.batch.value_or(1), o.strategy, options, outputs);
  // Checked after the strategy, platform, workload and options, so those errors come first. No
  // workload has a batch of its own, and a plan at batch 1 silently is rarely what was meant.
  if (!o.batch)
    throw InputError("--strategy needs --batch N (the minibatch the plan is for; 1 to 1000000000)");
  const topology::SystemSpec& spec = loaded.spec;
  const workloads::Graph& graph = loaded.graph;
  const plan::Mode mode = o.mode == "inference" ? plan::Mode::inference : plan::Mode::training;
  planner::PlanInputs inputs{spec, graph, o.workload, mode, options, o.seed};
  SearchProgressLine progress_line(o.strategy);
  if (!o.quiet && ::isatty(STDERR_FILENO) != 0) inputs.progress = progress_line.callback();
  if (!o.explain.empty()) {
    const std::string explanation = registry.explain(o.strategy, inputs, o.explain);
    outputs.commit();
    std::cout << explanation;
    return 0;
  }
  if (o.gradient_sync.any()) {  // a directive to the shared lowering; refused where it means nothing
    if (mode != plan::Mode::training)
      throw InputError("--gradient-sync-order, --gradient-bucket, --gradient-sync-algorithm: an inference plan has no gradient "
                       "synchronisation");
    const planner::StrategyInfo& info = registry.find(o.strategy);
    const bool models_update = std::any_of(info.options.begin(), info.options.end(),
                                           [](const planner::OptionSpec& declared) { return declared.key == "update"; });
    if (o.gradient_sync.algorithm && models_update)
      throw InputError("--gradient-sync-algorithm: strategy '" + o.strategy +
                       "' models the gradient synchronisation itself: give --option update=all_reduce|parameter_server");
    if (info.lower && !info.reads_schedule_directives)
      throw InputError("--gradient-sync-order, --gradient-bucket, --gradient-sync-algorithm: strategy '" + o.strategy +
                       "' has a lowering of its own, which does not read it (the shared sharding lowering does)");
  }
  const bool reads_schedule = !registry.find(o.strategy).lower || registry.find(o.strategy).reads_schedule_directives;
  if (o.gradient_sync.redistribution && !reads_schedule)
    throw InputError("--redistribution: strategy '" + o.strategy +
                     "' has a lowering of its own, which does not read it (the shared sharding lowering does)");
  if (!o.gradient_sync.collective_algorithms.empty()) {
    if (!reads_schedule)
      throw InputError("--collective-algorithm: strategy '" + o.strategy +
                       "' has a lowering of its own, which does not read it (the shared sharding lowering does)");
    for (const auto& [collective, algorithm] : o.gradient_sync.collective_algorithms) {
      const auto names = collectives::named_algorithms(algorithm, collective);
      if (names.empty()) throw InputError("--collective-algorithm: '" + algorithm + "' names no algorithm of " + collective);
      for (const auto& name : names)
        if (!collectives::algorithm_registry().find(name).implements(collective))
          throw InputError("--collective-algorithm: algorithm '" + name + "' does not implement " + collective);
    }
  }
  if (o.memory.any() && registry.find(o.strategy).lower)
    throw InputError("--optimizer, --training-precision, --fp32-main-gradients: strategy '" + o.strategy +
                     "' reckons memory with a model of its own, which does not read them");
  if (o.gradient_sync.any() || o.gradient_sync.redistribution || !o.gradient_sync.collective_algorithms.empty()) {
    plan::ScheduleDirectives given;
    o.gradient_sync.apply_to(given);
    inputs.schedule = given;
  }
  // Files a strategy writes beside its plan (the search's log): PLAN.json -> PLAN.SUFFIX.
  std::vector<std::pair<std::string, std::string>> side_files;
  if (!o.output.empty() && o.output != "-")
    inputs.side_file = [&](const std::string& suffix, const std::string& text) {
      const std::string& out = o.output;
      const bool json = out.size() > 5 && out.compare(out.size() - 5, 5, ".json") == 0;
      side_files.emplace_back((json ? out.substr(0, out.size() - 5) : out) + "." + suffix, text);
    };
  plan::Plan p = registry.make_plan(o.strategy, inputs);
  o.gradient_sync.apply_to(p.schedule);
  reckon_memory(o, p, planner::configured_platform(p, spec), graph, !registry.find(o.strategy).lower);
  if (o.output.empty()) {  // --describe-memory alone: printed, no plan written
    outputs.commit();
    return 0;
  }
  outputs.add(o.output, plan::plan_to_text(p));
  for (auto& [path, text] : side_files) outputs.add(path, std::move(text));
  outputs.commit();
  if (o.output != "-" && !o.quiet)
    std::cout << o.strategy << " on " << spec.name << ", " << o.workload << " batch " << *o.batch << " ("
              << plan::to_string(mode) << "): predicted " << p.predicted_iteration_s << " s per iteration -> "
              << o.output << "\n";
  // A prediction the platform's device model says cannot hold (DESIGN.md principle 2): for the
  // strategies the shared sharding lowering replays, their compute set against the device model.
  if (!registry.find(o.strategy).lower)
    for (const auto& w : planner::prediction_warnings(p, planner::configured_platform(p, spec), graph)) std::cerr << "simplan: warning: " << w << "\n";
  // Written over memory only when asked (--allow-over-memory): said again, so a sweep marks the point.
  if (p.memory && !p.memory->fits())
    std::cerr << "simplan: warning: " << plan::kPlanDoesNotFit << ", written as --allow-over-memory asks: "
              << (p.memory->device.empty() ? std::string("every device") : "device " + p.memory->device) << " needs "
              << memory::human_bytes(p.memory->per_device_bytes) << " (" << memory::kinds_text(*p.memory) << ") but has "
              << memory::human_bytes(p.memory->capacity_bytes) << "\n";
  return 0;
}

int list_mode() {
  std::cout << workloads::list_table();
  return 0;
}

int describe_mode(const Options& o) {
  if (o.workload.empty()) throw InputError("--describe needs --workload NAME|FILE (see simplan --list)");
  const workloads::Graph graph = workloads::load_workload(o.workload, o.batch.value_or(1));
  if (!o.batch && !o.quiet) std::cerr << "simplan: note: no --batch given: describing one sample (batch 1)\n";
  // Write the JSON first, so an unwritable path fails before anything is printed.
  if (!o.json_file.empty()) {
    cli::OutputSet outputs;
    // The paper blocks ("accpar", "dsm", "deepa") are the views the planner families register.
    const auto& notations = planner::builtin_strategies().notations();
    outputs.add(o.json_file, workloads::describe_json(graph, o.bytes_per_element, notations).dump(2) + "\n");
    outputs.commit();
  }
  if (o.json_file != "-") std::cout << workloads::describe_table(graph, o.bytes_per_element);
  return 0;
}

int body(int argc, char** argv) {
  Options o;
  CLI::App app("simplan: describe DNN workloads and plan their partitioning over a platform", "simplan");
  cli::add_simplan_options(app, o);
  cli::parse(app, argc, argv);

  if (o.list_strategies) return list_strategies_mode();
  if (!o.strategy.empty()) return plan_mode(o);
  if (o.list) return list_mode();
  if (o.describe) return describe_mode(o);
  throw InputError("nothing to do: give --list, --list-strategies, --workload NAME --describe, or --strategy (see --help)");
}

}  // namespace

int main(int argc, char** argv) { return cli::run_main("simplan", body, argc, argv); }
