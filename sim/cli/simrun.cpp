// simrun: replays on SimGrid and compares with the closed form. Modes:
//   simrun --list-collectives                          every collective and collective algorithm
//   simrun --config C --collective NAME --bytes SIZE [--axis x|y|all] [--group G]
//          [--algorithm A] [--granularity chip|core] [--root D] [--src D --dst D] [--chunks K] [--json F]
//          [--set k=v ...]
//                                                      one collective: simulated vs closed-form time
//   simrun --config C --plan P [--granularity chip|core] [--out results.json] [--csv layers.csv]
//          [--timeline trace.json[.gz] [--timeline-layers L,..] [--timeline-devices D,..]
//          [--timeline-links KIND,..|none] [--timeline-max-events N]]
//          [--export-chakra DIR [--chakra-prefix NAME] [--chakra-compute spans|tasks]] [--allow-config-change] [--reproducible]
//          [--set k=v ...] [--record k=v ...]
//                                                      replay a plan: predicted vs closed form vs simulated
//   simrun --config C [--set k=v ...] --dump-config F  validate a platform, write it fully resolved
//   --quiet: no header, table or summary (errors and warnings still on stderr); --version.
// Each mode is one small function; the logic lives in the libraries.

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>

#include "sim/cli/command_line.hpp"
#include "sim/cli/inputs.hpp"
#include "sim/collectives/collectives.hpp"
#include "sim/common/error.hpp"
#include "sim/common/text.hpp"
#include "sim/common/units.hpp"
#include "sim/common/wall_clock.hpp"
#include "sim/cli/simrun_chakra.hpp"
#include "sim/lowering/lowering.hpp"
#include "sim/lowering/redistribution_check.hpp"
#include "sim/memory/footprint.hpp"
#include "sim/memory/memory_timeline.hpp"
#include "sim/lowering/task_builders.hpp"
#include "sim/plan/plan_io.hpp"
#include "sim/planners/check_plan.hpp"
#include "sim/planners/builtin_strategies.hpp"
#include "sim/program/closed_form.hpp"
#include "sim/program/platform_binding.hpp"
#include "sim/replay/program_replay.hpp"
#include "sim/replay/replay.hpp"
#include "sim/report/diagnosis.hpp"
#include "sim/report/link_usage.hpp"
#include "sim/report/report.hpp"
#include "sim/report/gzip_stream.hpp"
#include "sim/report/timeline.hpp"
#include "topology/topology_graph.hpp"
#include "workloads/workload_file.hpp"

using namespace partsim;

namespace {

struct Options {
  bool list_collectives = false;
  std::string collective;          // --collective NAME
  std::string bytes;               // --bytes SIZE with a unit (100MB, 1MiB, 4096B)
  std::string axis;                // --axis x|y|all (torus)
  std::string group;               // --group G
  std::string granularity = "chip";
  int root = -1;
  int src = 0;
  int dst = -1;
  int chunks = 0;
  std::string algorithm;  // --algorithm ("" = the platform's default)
  std::string json_file;           // --json F ("-" = stdout)
  std::string plan_file;           // --plan P
  std::string out_file;            // --out results.json
  std::string csv_file;            // --csv layers.csv
  std::string timeline_file;       // --timeline trace.json (gzip-compressed when it ends in .gz)
  std::string chakra_dir;          // --export-chakra DIR: one Chakra trace per device
  std::string chakra_prefix;       // --chakra-prefix NAME (default: the plan's workload name)
  std::string chakra_compute;      // --chakra-compute spans|tasks ("" = spans)
  report::TimelineOptions timeline;  // --timeline-layers, -devices, -links, -max-events
  bool quiet = false;              // --quiet: no header, table or summary
  bool allow_config_change = false;
  bool reproducible = false;       // results.json without wall-clock figures (byte-identical reruns)
  std::vector<std::string> records;  // --record KEY=VALUE: planning inputs a sweep varied
  std::size_t worst = 5;           // --worst N rows in the disagreement list
  std::vector<std::string> simgrid_config;  // --simgrid-cfg key:value (repeatable)
  std::string lone_transfers;      // --lone-transfers timed|simgrid ("" = timed unless --simgrid-cfg)
  replay::LoneTransfers lone = replay::LoneTransfers::timed;  // what those two chose (after parsing)
  cli::PlatformOptions platform;   // --config, --set, --dump-config
};

int list_collectives_mode() {
  for (const auto& c : collectives::collective_list()) std::printf("%-18s %s\n", c.name.c_str(), c.description.c_str());
  std::printf("\nalgorithms of reduce_scatter, all_gather, all_reduce (--algorithm; S bytes per device, p devices,\n"
              "a s per message, B bytes/s per port; docs/model.md \"Collective algorithms\"):\n");
  for (const auto& a : collectives::algorithm_registry().list()) {
    std::string implements;
    for (const auto& c : a.collectives) implements += (implements.empty() ? "" : ", ") + c;
    std::printf("%-19s %s\n%-19s implements %s\n%-19s %s\n", a.name.c_str(), a.description.c_str(), "",
                implements.c_str(), "", a.formula_text.c_str());
  }
  std::printf("\n--algorithm A,B,... (or system.collectives.algorithm) runs the fastest of the list by its closed form;\n"
              "'auto' the fastest of all. With system.collectives.protocols, the fastest protocol with it.\n");
  return 0;
}

// The files a mode writes (those given), with --dump-config: checked together before any work.
std::vector<std::string> output_files(const Options& o, const std::vector<std::string>& mode_files) {
  std::vector<std::string> files;
  for (const auto& f : mode_files)
    if (!f.empty()) files.push_back(f);
  if (!o.platform.dump_config_file.empty()) files.push_back(o.platform.dump_config_file);
  return files;
}

std::string seconds(double s) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9e s", s);
  return buf;
}

int collective_mode(const Options& o) {
  if (o.bytes.empty()) throw InputError("--collective needs --bytes SIZE (with a unit, e.g. 100MB)");
  std::string error;
  const auto bytes = units::parse(o.bytes, units::Dimension::bytes, &error);
  if (!bytes) throw InputError("--bytes: " + error);
  cli::OutputSet outputs;
  outputs.check(output_files(o, {o.json_file}));
  const topology::SystemSpec spec = cli::load_platform(o.platform, outputs);
  cli::print_platform_warnings(spec);
  const topology::TopologyGraph graph(spec, topology::parse_granularity(o.granularity));

  collectives::Request request;
  request.collective = o.collective;
  request.bytes = *bytes;
  request.axis = o.axis;
  request.group = o.group;
  request.root = o.root;
  request.src = o.src;
  request.dst = o.dst;
  request.chunks = o.chunks;
  request.algorithm = o.algorithm;
  const collectives::Schedule device_schedule = collectives::build_schedule(request, graph);
  std::string algorithm_name, protocol_name;
  if (collectives::is_reducing(request.collective)) {
    const collectives::Choice choice = collectives::choose(
        request.collective, request.bytes, request.algorithm, collectives::participants(request, graph), graph,
        request.axis);
    algorithm_name = choice.algorithm->name;
    protocol_name = choice.protocol.name;
  }
  const collectives::Schedule schedule = collectives::lower_to_nodes(device_schedule, graph);
  const double closed_form = collectives::evaluate(schedule, graph);
  const double formula = collectives::formula_time(request, graph);

  // The same seam as a plan's replay (DESIGN.md 1): the collective becomes a Program (one layer, its
  // steps separated by joins, lowering::add_collective) and the SimGrid evaluator replays it. The
  // closed form stays the step rule, which charges each step's shared links (the Program's own
  // closed-form evaluator times transfers without contention).
  program::Program program;
  const int layer = program.add_layer(o.collective);
  lowering::add_collective(program, device_schedule, graph, layer, plan::Pass::fwd, o.collective, {},
                          lowering::EmptyTransfers::keep);
  const auto t0 = std::chrono::steady_clock::now();
  replay::SimGridEvaluator simgrid(graph, o.simgrid_config, o.lone);
  const program::Evaluation simulated = simgrid.evaluate(program);
  const double wall = seconds_since(t0);
  replay::ReplayStats stats = simgrid.stats();
  stats.simulated_s = simulated.makespan_s;
  const double rel_diff = closed_form > 0 ? (stats.simulated_s - closed_form) / closed_form : 0.0;

  nlohmann::json j;
  j["collective"] = o.collective;
  j["bytes"] = *bytes;
  j["axis"] = o.axis.empty() && o.group.empty() && graph.is_torus() ? "all" : o.axis;
  j["group"] = o.group;
  j["granularity"] = topology::to_string(graph.granularity());
  j["config"] = spec.name;
  j["config_file"] = o.platform.config_file;
  j["overrides"] = o.platform.overrides;
  int hosts = 0;
  for (const auto& node : graph.nodes()) hosts += node.is_endpoint();
  j["hosts"] = hosts;  // SimGrid hosts: devices, or cores and external memories
  j["nodes"] = graph.node_count();
  j["steps"] = schedule.step_count;
  j["algorithm"] = algorithm_name;
  j["protocol"] = protocol_name;
  j["simulated_s"] = stats.simulated_s;
  j["closed_form_s"] = closed_form;
  j["rel_diff"] = rel_diff;
  j["formula_s"] = std::isnan(formula) ? nlohmann::json(nullptr) : nlohmann::json(formula);
  j["activities"] = stats.activities;
  j["simgrid_comms"] = stats.simgrid_comms;
  j["lone_transfers"] = stats.lone_transfers;
  j["simgrid_cfg"] = o.simgrid_config;
  j["replay_wall_s"] = stats.wall_s;        // Engine::run
  j["setup_wall_s"] = stats.setup_wall_s;   // building the SimGrid platform
  j["wall_s"] = wall;
  j["version"] = PARTSIM_VERSION;
  if (!o.json_file.empty()) outputs.add(o.json_file, j.dump(2) + "\n");
  outputs.commit();
  if (o.json_file == "-" || o.quiet) return 0;

  std::printf("platform     %s (%s), %s granularity, %d nodes, %d links\n", spec.name.c_str(),
              o.platform.config_file.c_str(), topology::to_string(graph.granularity()).c_str(), graph.node_count(),
              graph.link_count());
  std::printf("collective   %s%s%s%s%s, %s per device, %s%s, %d steps\n", o.collective.c_str(),
              algorithm_name.empty() ? "" : " by ", algorithm_name.c_str(), protocol_name.empty() ? "" : " / ",
              protocol_name.c_str(),
              units::format(*bytes, units::Dimension::bytes).c_str(), o.group.empty() && graph.is_torus() ? "axis " : "group ",
              o.group.empty() ? (graph.is_torus() ? j["axis"].get<std::string>().c_str() : "all") : o.group.c_str(),
              schedule.step_count);
  std::printf("simulated    %s\n", seconds(stats.simulated_s).c_str());
  std::printf("closed form  %s  (step rule over the routes)\n", seconds(closed_form).c_str());
  if (!std::isnan(formula)) std::printf("formula      %s  (textbook, chip level)\n", seconds(formula).c_str());
  std::printf("rel diff     %+.6f %%\n", 100.0 * rel_diff);
  std::printf("activities   %zu in %.3f s wall (%.0f /s)\n", stats.activities, stats.wall_s,
              stats.wall_s > 0 ? static_cast<double>(stats.activities) / stats.wall_s : 0.0);
  return 0;
}

std::string chakra_prefix(const Options& o, const plan::Plan& plan) {
  return o.chakra_prefix.empty() ? cli::default_chakra_prefix(plan.workload.name) : o.chakra_prefix;
}

std::pair<std::string, std::string> key_value(const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) return {assignment, ""};
  return {assignment.substr(0, eq), assignment.substr(eq + 1)};
}

// A --record KEY=VALUE (what simsweep varied besides the platform), checked against the plan so
// that results.json's overrides cannot claim an input the plan was not made with.
std::pair<std::string, std::string> checked_record(const std::string& record, const plan::Plan& plan,
                                                   const std::string& plan_file) {
  const auto [key, value] = key_value(record);
  auto differs = [&](const std::string& planned) {
    return InputError("--record " + record + ": " + plan_file + " was made with " + key + " " + planned);
  };
  if (key == "batch") {
    if (value != std::to_string(plan.workload.batch)) throw differs(std::to_string(plan.workload.batch));
  } else if (key == "workload") {
    if (value != plan.workload.name) throw differs("'" + plan.workload.name + "'");
  } else if (key == "strategy") {
    if (value != plan.strategy) throw differs("'" + plan.strategy + "'");
  } else if (key.starts_with("option.") && plan.options.count(key.substr(7)) > 0) {
    const std::string name = key.substr(7);
    // The value as the strategy resolves it ("all" and the list it stands for compare equal).
    const auto resolved = planner::builtin_strategies().resolve_options(plan.strategy, {name + "=" + value});
    if (resolved.text(name) != plan.options.at(name)) throw differs("'" + plan.options.at(name) + "'");
  } else {
    throw InputError("--record " + record + ": not KEY=VALUE with KEY batch, workload, strategy or option.NAME (an option of " +
                     plan.strategy + ")");
  }
  return {key, value};
}

constexpr double kGiB = 1073741824.0;  // 2^30 B

// A plan that records it does not fit (simplan --allow-over-memory), or whose memory use was reckoned
// for more memory than this platform has (e.g. simsweep --fixed-plan shrinking the memory): replayed
// all the same, with one warning line, so a sweep marks the point.
void warn_if_over_memory(const plan::Plan& plan, const topology::SystemSpec& spec) {
  if (!plan.memory || spec.device_type_of.empty()) return;
  const plan::MemoryUse& m = *plan.memory;
  const std::string device = m.device.empty() ? std::string("every device") : "device " + m.device;
  if (!m.fits()) {
    std::fprintf(stderr,
                 "simrun: warning: %s (made with simplan --allow-over-memory): %s needs %.4g GiB "
                 "(weights %.4g, gradients %.4g, optimizer %.4g, activations %.4g, working %.4g GiB) but has %.4g GiB; "
                 "replayed as if it fitted\n",
                 std::string(plan::kPlanDoesNotFit).c_str(), device.c_str(), m.per_device_bytes / kGiB, m.weights_bytes / kGiB, m.gradients_bytes / kGiB,
                 m.optimizer_bytes / kGiB, m.activations_bytes / kGiB, m.working_bytes / kGiB, m.capacity_bytes / kGiB);
    return;
  }
  double smallest = spec.device_type(0).memory_bytes();
  for (int d = 1; d < static_cast<int>(spec.device_type_of.size()); ++d)
    smallest = std::min(smallest, spec.device_type(d).memory_bytes());
  if (smallest <= 0 || m.per_device_bytes <= smallest) return;
  std::fprintf(stderr, "simrun: warning: %s on %s: it needs %.3g GB of external memory per device but %s has %.3g GB\n",
               std::string(plan::kPlanDoesNotFit).c_str(), spec.name.c_str(), m.per_device_bytes / 1e9, spec.name.c_str(),
               smallest / 1e9);
}

// The replay's memory timeline (sim/memory/memory_timeline.hpp): the footprint model's boxes placed
// in time by the simulated evaluation, or the reason there is none. Only Programs of the shared
// sharding lowering are described by the footprint's boxes; a strategy with its own lowering sizes
// its memory itself: its Program's holdings (megatron) are placed in time instead, and one without
// holdings (dsm) has no timeline.
std::optional<memory::MemoryTimeline> replay_memory_timeline(report::Report& report, const cli::ReplayInputs& loaded,
                                                             const program::Program& program,
                                                             const program::Evaluation& simulated) {
  const plan::Plan& plan = loaded.plan;
  const topology::SystemSpec& spec = loaded.spec;
  std::vector<double> capacities;
  for (int d = 0; d < spec.device_count(); ++d) capacities.push_back(spec.device_type(d).memory_bytes());
  if (planner::builtin_strategies().find(plan.strategy).lower) {
    if (program.holdings().empty()) {
      report.memory.unavailable = "strategy " + plan.strategy +
                                  " lowers its plans itself and declares no memory in its Program; the footprint "
                                  "model's per-layer boxes do not describe its Program";
      return std::nullopt;
    }
    memory::MemoryTimeline timeline = memory::holding_timeline(program, simulated, spec.device_count());
    report::add_memory_timeline(report, timeline, program, simulated, spec.device_names, capacities);
    return timeline;
  }
  if (!plan.memory || !plan.memory->settings) {
    report.memory.unavailable = "the plan records no memory settings (plan.json's memory.settings): make it again with simplan";
    return std::nullopt;
  }
  std::vector<std::vector<std::size_t>> consumers(loaded.graph.size());
  for (std::size_t v = 0; v < consumers.size(); ++v) consumers[v] = loaded.graph.successors(v);
  memory::MemoryTimeline timeline = memory::memory_timeline(
      program, simulated, memory::box_memory(plan, spec, loaded.graph, *plan.memory->settings), consumers,
      plan.workload.mode, spec.device_count());
  report::add_memory_timeline(report, timeline, program, simulated, spec.device_names, capacities);
  return timeline;
}

// The timeline, gzip-compressed when its file name ends in .gz.
report::TimelineStats write_timeline_file(std::ostream& out, const std::string& file, const program::Program& program,
                                          const program::Evaluation& simulated, const topology::TopologyGraph& graph,
                                          const report::TransferRoutes& routes, const report::TimelineOptions& options,
                                          const memory::MemoryTimeline* memory) {
  if (!report::is_gzip_path(file)) return report::write_timeline(out, program, simulated, graph, routes, options, memory);
  report::GzipOstream gzip(out);
  const report::TimelineStats stats =
      report::write_timeline(gzip.stream(), program, simulated, graph, routes, options, memory);
  gzip.finish();
  return stats;
}

int plan_mode(const Options& o) {
  if (!o.collective.empty()) throw InputError("--plan and --collective are separate modes: give one");
  if (!o.chakra_dir.empty() && o.granularity != "chip")
    throw InputError("--export-chakra: Chakra ranks are devices; replay at --granularity chip (the default)");
  const auto t0 = std::chrono::steady_clock::now();
  cli::TraceDirectory trace_directory(o.chakra_dir);
  cli::OutputSet outputs;
  outputs.check(output_files(o, {o.out_file, o.csv_file, o.timeline_file}));
  const cli::ReplayInputs loaded = cli::load_replay_inputs(o.platform, o.plan_file, o.allow_config_change, outputs);
  const plan::Plan& plan = loaded.plan;
  const topology::SystemSpec& spec = loaded.spec;
  const workloads::Graph& workload = loaded.graph;
  std::vector<std::pair<std::string, std::string>> overrides;  // results.json's, checked before the replay
  for (const auto& assignment : o.platform.overrides) overrides.push_back(key_value(assignment));
  for (const auto& record : o.records) overrides.push_back(checked_record(record, plan, o.plan_file));
  const topology::TopologyGraph graph(spec, topology::parse_granularity(o.granularity));
  warn_if_over_memory(plan, spec);

  const program::Program program = cli::lower_replay_inputs(loaded, graph, o.plan_file);
  if (!o.timeline_file.empty()) report::check_timeline_options(o.timeline, program, graph);  // before the replay
  // A replay that will take minutes, said before it starts (issue 41 item 4; a warning, so printed
  // with --quiet too): very many point-to-point redistribution transfers.
  if (const auto slow = lowering::redistribution_transfer_warning(lowering::point_to_point_redistribution_transfers(program),
                                                                  plan.schedule.redistribution))
    std::fprintf(stderr, "simrun: warning: %s\n", slow->c_str());
  // Every transfer's route, resolved once: the closed form times them, the replay installs them, and
  // the busy fractions per link, the cause of the largest gaps and the timeline's link tracks read them.
  const program::TransferRoutes routes(program, graph);
  const program::Evaluation closed = program::ClosedFormEvaluator(routes).evaluate(program);
  replay::SimGridEvaluator simgrid(graph, o.simgrid_config, o.lone);
  // Progress on a long replay (issue 41 item 3): on a terminal, unless --quiet, about once a second,
  // one line rewritten in place: the simulated time reached and the tasks done.
  const bool show_progress = !o.quiet && ::isatty(STDERR_FILENO) != 0;
  bool progress_shown = false;
  if (show_progress)
    simgrid.set_progress([&](double simulated_s, std::size_t done, std::size_t total) {
      std::fprintf(stderr, "\rsimrun: replay at %.6g s simulated (closed form %.6g s), %zu of %zu tasks (%.0f %%)   ",
                   simulated_s, closed.makespan_s, done, total, 100.0 * static_cast<double>(done) / static_cast<double>(total));
      progress_shown = true;
    });
  const program::Evaluation simulated = simgrid.evaluate(program, routes);
  if (progress_shown) std::fprintf(stderr, "\r%*s\r", 100, "");

  const auto totals = workload.totals();
  const double useful_flops = plan.workload.mode == plan::Mode::inference ? totals.flops.fwd : totals.flops.total();
  report::Report report = report::build_report(plan, program, closed, simulated, useful_flops, spec.peak_flops());
  report.granularity = topology::to_string(graph.granularity());
  report.simgrid_comms = static_cast<long long>(simgrid.stats().simgrid_comms);
  report.lone_transfers = static_cast<long long>(simgrid.stats().lone_transfers);
  report.overrides = overrides;
  report.platform_changes = loaded.config_changes;
  if (plan.family->is_object() && plan.family->value("fold_replicas", false))
    report.notes.push_back("folded replay (megatron fold_replicas): data-parallel replica 0's compute, TP collectives and "
                           "pipeline sends stand for all " + std::to_string(plan.family->value("dp", 1)) +
                           " replicas'; the other replicas' devices ran only their DP collectives (their per-device "
                           "figures are not real ones), and contention from their TP and pipeline traffic is "
                           "neglected (docs/model.md \"Folded data-parallel replicas\")");
  report.links = report::link_usage(program, simulated, graph, routes);
  report::DiagnosisOptions diagnosis;
  diagnosis.platform_change = join(loaded.config_changes, "; ");  // "a: x -> y; b: ..."
  report::diagnose(report, program, closed, simulated, graph, routes, o.worst, diagnosis);
  const std::optional<memory::MemoryTimeline> memory_timeline = replay_memory_timeline(report, loaded, program, simulated);
  report.wall_s = o.reproducible ? 0.0 : seconds_since(t0);

  // All of the run's outputs, or none of them (cli::OutputSet).
  if (!o.out_file.empty()) outputs.add(o.out_file, report::report_json(report).dump(2) + "\n");
  if (!o.csv_file.empty()) outputs.add(o.csv_file, report::report_csv(report));
  report::TimelineStats timeline;
  if (!o.timeline_file.empty()) {
    outputs.add(o.timeline_file, [&](std::ostream& out) {
      timeline = write_timeline_file(out, o.timeline_file, program, simulated, graph, routes, o.timeline,
                                     memory_timeline ? &*memory_timeline : nullptr);
    });
  }
  chakra_export::ChakraExport chakra;
  if (!o.chakra_dir.empty())
    chakra = cli::stage_chakra_traces(o.chakra_dir, chakra_prefix(o, plan), program, plan, spec, workload,
                                      o.chakra_compute == "tasks" ? nullptr : &closed, outputs);
  outputs.commit();
  trace_directory.keep();
  // A warning, not chatter: printed with --quiet too.
  if (timeline.capped())
    std::fprintf(stderr, "simrun: warning: %s (--timeline-max-events)\n", report::cap_note(timeline, o.timeline.max_events).c_str());
  if (o.out_file == "-" || o.quiet) return 0;
  std::printf("%s plan of %s batch %lld (%s) on %s (%s), %s granularity: %zu tasks\n", plan.strategy.c_str(),
              plan.workload.name.c_str(), static_cast<long long>(plan.workload.batch),
              plan::to_string(plan.workload.mode).c_str(), spec.name.c_str(), o.platform.config_file.c_str(),
              report.granularity.c_str(), program.size());
  // A plan made for other parameters (--allow-config-change): its predictions are for those.
  if (!loaded.config_changes.empty()) {
    std::printf("plan made for other platform parameters (--allow-config-change), its predictions are for those:\n");
    for (const auto& change : loaded.config_changes) std::printf("  %s\n", change.c_str());
  }
  for (const std::string& note : report.notes) std::printf("note: %s\n", note.c_str());
  std::printf("\n");
  std::fputs(report::report_table(report, o.worst).c_str(), stdout);
  std::printf("replay: %.3f s wall in SimGrid (%.0f activities/s), %.3f s setup; %zu transfers shared links "
              "(SimGrid's network model), %zu ran alone (timed)\n",
              simgrid.stats().wall_s,
              simgrid.stats().wall_s > 0 ? static_cast<double>(simgrid.stats().activities) / simgrid.stats().wall_s : 0.0,
              simgrid.stats().setup_wall_s, simgrid.stats().simgrid_comms, simgrid.stats().lone_transfers);
  if (!o.timeline_file.empty()) {
    std::printf("timeline: %s, %zu events on %zu tracks%s\n", o.timeline_file.c_str(), timeline.events, timeline.threads,
                timeline.capped() ? " (capped, see the warning)" : "");
  }
  if (!o.chakra_dir.empty()) cli::print_chakra_summary(o.chakra_dir, chakra_prefix(o, plan), chakra, graph, closed.makespan_s);
  return 0;
}

int body(int argc, char** argv) {
  Options o;
  CLI::App app("simrun: replay a plan (or one collective) on SimGrid and compare it with the closed form and the planner's prediction", "simrun");
  app.add_flag("--list-collectives", o.list_collectives, "List the collectives with a one-line description");
  app.add_option("--collective", o.collective, "Collective to run (see --list-collectives)");
  app.add_option("--bytes", o.bytes, "Payload per device with a unit, e.g. 100MB, 1MiB, 4096B");
  app.add_option("--axis", o.axis, "Torus axis: x, y (z...) or all (default all)");
  app.add_option("--group", o.group, "Device group to run on (a ring in the file's order)");
  app.add_option("--granularity", o.granularity, "chip (a device is a host) or core (every core a host)")
      ->check(CLI::IsMember({"chip", "core"}));
  // Device indices: 0 up to the largest platform (1000000 devices); -1 (the defaults) is not for users.
  app.add_option("--root", o.root, "broadcast: root device (default: first participant)")->check(CLI::Range(0, 999'999));
  app.add_option("--src", o.src, "p2p: source device")->check(CLI::Range(0, 999'999));
  app.add_option("--dst", o.dst, "p2p: destination device (default: the next device)")->check(CLI::Range(0, 999'999));
  app.add_option("--chunks", o.chunks, "broadcast: pipeline chunks (default 8; 1 to 1000000)")
      ->check(CLI::Range(1, 1'000'000));
  app.add_option("--algorithm", o.algorithm,
                 "reduce_scatter, all_gather, all_reduce: the algorithm (see --list-collectives), a comma-separated "
                 "list or 'auto' (the fastest by its closed form runs); default: the platform's, else torus on a "
                 "torus and ring elsewhere");
  app.add_option("--json", o.json_file, "Also write the result as JSON ('-' for stdout only)");
  app.add_option("--plan", o.plan_file, "Replay this plan.json (written by simplan) and compare with its prediction");
  app.add_option("--out", o.out_file, "--plan: write results.json (docs/results-format.md; '-' for stdout only)");
  app.add_option("--csv", o.csv_file, "--plan: write the per-layer table as CSV");
  CLI::Option* timeline = app.add_option("--timeline", o.timeline_file,
                 "--plan: write a Chrome-trace timeline (Perfetto, chrome://tracing); gzip-compressed when the name ends in .gz");
  // The timeline's options need --timeline (CLI11 refuses them alone: exit 2).
  app.add_option("--timeline-layers", o.timeline.layers, "--timeline: only these layers' tasks (comma-separated names)")
      ->delimiter(',')
      ->needs(timeline);
  app.add_option("--timeline-devices", o.timeline.devices,
                 "--timeline: only these devices' tracks and the links touching them (names such as d3, or indices)")
      ->delimiter(',')
      ->needs(timeline);
  app.add_option("--timeline-links", o.timeline.link_kinds,
                 std::string("--timeline: link tracks of these kinds (") + report::kTimelineLinkKinds + "; default: every kind)")
      ->delimiter(',')
      ->check(CLI::IsMember({"chip_to_chip", "on_chip", "memory", "none"}))
      ->needs(timeline);
  app.add_option("--timeline-max-events", o.timeline.max_events,
                 "--timeline: at most this many events (default 2000000); device events are kept first, then link "
                 "segments up to a time, and one warning says what was left out")
      ->check(CLI::Range(size_t{1}, size_t{1'000'000'000}))
      ->needs(timeline);
  app.add_option("--export-chakra", o.chakra_dir,
                 "--plan: also write the lowered plan as Chakra execution traces for ASTRA-sim, one per device: "
                 "DIR/<prefix>.<rank>.et (docs/chakra-export.md; DIR is created if missing)");
  app.add_option("--chakra-prefix", o.chakra_prefix,
                 "--export-chakra: file name prefix (default: the workload's name, e.g. gpt for gpt:layers=...)");
  app.add_option("--chakra-compute", o.chakra_compute,
                 "--export-chakra: spans (the default: each device's compute as the busy intervals of the closed "
                 "form's schedule, which ASTRA-sim runs as partsim does) or tasks (one COMP node per compute task, "
                 "siblings folded; ASTRA-sim serialises the rest)")
      ->check(CLI::IsMember({"spans", "tasks"}));
  app.add_flag("--allow-config-change", o.allow_config_change,
               "--plan: replay a plan on a platform of the same name whose parameters changed (sweeps)");
  app.add_option("--record", o.records,
                 "--plan: record KEY=VALUE in results.json's overrides (batch, workload, strategy, option.NAME: what "
                 "simsweep varied; checked against the plan; repeatable)");
  app.add_flag("--reproducible", o.reproducible, "--plan: write wall-clock figures as 0, so reruns are byte-identical");
  app.add_option("--worst", o.worst, "--plan: how many of the largest disagreements to explain (default 5; 0 to 1000000)")
      ->check(CLI::Range(0, 1'000'000));
  app.add_option("--simgrid-cfg", o.simgrid_config,
                 "Extra SimGrid setting key:value after partsim's CM02 settings (repeatable; for experiments)");
  app.add_option("--lone-transfers", o.lone_transfers,
                 "timed or simgrid: a transfer sharing no link is timed as SimGrid times a lone flow until another "
                 "meets it (timed: the default; the same rates, faster), or runs in SimGrid's network model from its "
                 "start (simgrid: the default with a --simgrid-cfg setting other than network/optim or cpu/optim)");
  cli::add_platform_options(app, o.platform);
  cli::add_quiet_flag(app, o.quiet);
  cli::parse(app, argc, argv);
  replay::check_simgrid_settings(o.simgrid_config);  // before anything is planned or built
  o.lone = replay::choose_lone_transfers(o.lone_transfers, o.simgrid_config);

  if (o.list_collectives) return list_collectives_mode();
  if (o.plan_file.empty() && (!o.chakra_dir.empty() || !o.chakra_prefix.empty() || !o.chakra_compute.empty()))
    throw InputError("--export-chakra, --chakra-prefix and --chakra-compute need --plan P (the plan to export)");
  if (o.chakra_dir.empty() && !o.chakra_compute.empty())
    throw InputError("--chakra-compute " + o.chakra_compute + " needs --export-chakra DIR (the traces it shapes)");
  if (o.chakra_prefix.find('/') != std::string::npos)
    throw InputError("--chakra-prefix " + o.chakra_prefix + ": a file name prefix, without '/' (the directory is --export-chakra)");
  if (!o.plan_file.empty()) return plan_mode(o);
  if (!o.collective.empty()) return collective_mode(o);
  if (!o.platform.config_file.empty() && !o.platform.dump_config_file.empty()) {
    cli::OutputSet outputs;
    cli::load_platform(o.platform, outputs);  // validates the platform and stages the resolved one
    outputs.commit();
    return 0;
  }
  throw InputError(
      "nothing to do: give --config C --plan P (replay a plan), --collective NAME (see --list-collectives), or "
      "--config C --dump-config F");
}

}  // namespace

int main(int argc, char** argv) { return cli::run_main("simrun", body, argc, argv); }
