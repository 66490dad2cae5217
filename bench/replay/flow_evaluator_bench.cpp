// flow_evaluator_bench: the flow-level evaluator (program/flow_evaluator.hpp) against the SimGrid
// replay it reproduces. Plans a workload (training), lowers the plan, and evaluates the Program with
// the closed form, the flow evaluator and the replay on the same resolved routes; prints the tasks,
// the three makespans, the flow evaluator's relative error against the replay and each evaluator's
// wall time. Diagnostics (docs/model.md "Chaotic plans, and the resampling"): --jitter perturbs the
// compute times of both evaluations (program/jitter.hpp), --divergences and --tasks-csv show where
// the two evaluations part, task by task. It also prints the replay lower bound
// (program/replay_lower_bound.hpp), and with --bound-only stops there: for plans whose evaluation
// itself takes minutes. --replay-until S ... replays only up to the last S simulated seconds and
// bounds the rest from each S (the bound after a replayed prefix: for plans whose whole replay takes
// hours);
// --flow-prefix S gives the same bound after the flow evaluator's first S seconds instead (the flow
// evaluator follows the replay, so this says, in seconds, which S a replayed prefix needs).
//
// Usage: flow_evaluator_bench [--config FILE] [--set KEY=VALUE ...] [--workload NAME] [--batch B] [--strategy S]
//                             [--option NAME=VALUE ...] [--granularity chip|core] [--coalesce R] [--exact-work N] [--plan FILE]
//                             [--gradient-sync-order concurrent|in_order] [--gradient-bucket SIZE]
//                             [--lone-transfers timed|simgrid] [--simgrid-cfg KEY:VALUE ...] [--jitter J --jitter-seed K] [--no-replay] [--bound-only]
//                             [--divergences N] [--tasks-csv FILE] [--replay-until S ...] [--flow-prefix S ...]
//        flow_evaluator_bench --help

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/replay/plan_bench_options.hpp"
#include "sim/cli/command_line.hpp"
#include "sim/cli/simplan_options.hpp"
#include "sim/planners/builtin_strategies.hpp"
#include "sim/planners/check_plan.hpp"
#include "sim/plan/plan_io.hpp"
#include "sim/program/closed_form.hpp"
#include "sim/program/replay_lower_bound.hpp"
#include "sim/program/flow_evaluator.hpp"
#include "sim/program/jitter.hpp"
#include "sim/program/platform_binding.hpp"
#include "sim/replay/program_replay.hpp"
#include "topology/system_parser.hpp"
#include "workloads/workload_file.hpp"

using namespace partsim;

namespace {

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Where two evaluations of one Program part: the first `limit` tasks (in the replay's finish order)
// that start at the same time in both but finish at different times, each with the transfers that
// were in flight on one of its links meanwhile (in the replay). The first one is where the two
// models differ; the later ones mostly inherit it.
void print_divergences(const program::Program& program, const program::TransferRoutes& routes,
                       const program::Evaluation& flow, const program::Evaluation& replayed, int limit) {
  // SimGrid's solver is precise to about 1e-5 relative per rate (maxmin/precision), which moves
  // completions by up to ~1e-6 relative: below that the two agree.
  constexpr double kTolerance = 1e-6;  // relative to the replay's finish
  const auto& tasks = program.tasks();
  std::vector<std::size_t> order(program.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return replayed.tasks[a].finish < replayed.tasks[b].finish;
  });
  auto shares_link = [&](std::size_t a, std::size_t b) {
    for (int l : routes.route(a))
      for (int m : routes.route(b))
        if (l == m) return true;
    return false;
  };
  auto describe = [&](const char* lead, std::size_t i) {
    const auto& t = tasks[i];
    std::printf("%s task %zu %s '%s' bytes %.0f links %zu: start flow %.9e replay %.9e; finish flow %.9e replay %.9e (%+.3e s)\n",
                lead, i, t.kind == program::TaskKind::transfer ? "transfer" : "timed", t.label.str().c_str(),
                t.kind == program::TaskKind::transfer ? t.bytes : 0.0,
                t.kind == program::TaskKind::transfer ? routes.route(i).size() : std::size_t{0}, flow.tasks[i].start,
                replayed.tasks[i].start, flow.tasks[i].finish, replayed.tasks[i].finish,
                flow.tasks[i].finish - replayed.tasks[i].finish);
  };
  int shown = 0;
  for (std::size_t i : order) {
    if (shown >= limit) break;
    const double tolerance = kTolerance * replayed.tasks[i].finish;
    if (std::abs(flow.tasks[i].start - replayed.tasks[i].start) > tolerance) continue;
    if (std::abs(flow.tasks[i].finish - replayed.tasks[i].finish) <= tolerance) continue;
    ++shown;
    describe("diverges:", i);
    if (tasks[i].kind != program::TaskKind::transfer) continue;
    for (std::size_t j = 0; j < program.size(); ++j) {
      if (j == i || tasks[j].kind != program::TaskKind::transfer) continue;
      if (replayed.tasks[j].finish <= replayed.tasks[i].start || replayed.tasks[j].start >= replayed.tasks[i].finish)
        continue;
      if (shares_link(i, j)) describe("   shares:", j);
    }
  }
  if (shown == 0) std::printf("no task diverges by more than %g of its finish\n", kTolerance);
}

void write_tasks_csv(const std::string& path, const program::Program& program, const program::TransferRoutes& routes,
                     const program::Evaluation& flow, const program::Evaluation* replayed) {
  std::FILE* out = std::fopen(path.c_str(), "w");
  if (out == nullptr) throw InputError("--tasks-csv " + path + ": cannot write");
  std::fprintf(out, "task,kind,label,bytes,links,after,flow_start,flow_finish,replay_start,replay_finish\n");
  const auto& tasks = program.tasks();
  for (std::size_t i = 0; i < program.size(); ++i) {
    const bool transfer = tasks[i].kind == program::TaskKind::transfer;
    std::string links;
    if (transfer)
      for (int l : routes.route(i)) links += (links.empty() ? "" : " ") + std::to_string(l);
    std::string after;
    for (int p : tasks[i].after) after += (after.empty() ? "" : " ") + std::to_string(p);
    std::fprintf(out, "%zu,%s,\"%s\",%.0f,%s,%s,%.12e,%.12e,", i, transfer ? "transfer" : "timed",
                 tasks[i].label.str().c_str(), transfer ? tasks[i].bytes : 0.0, links.c_str(), after.c_str(), flow.tasks[i].start,
                 flow.tasks[i].finish);
    // Without a replay (--no-replay) its two columns stay empty.
    if (replayed != nullptr)
      std::fprintf(out, "%.12e,%.12e\n", replayed->tasks[i].start, replayed->tasks[i].finish);
    else
      std::fprintf(out, ",\n");
  }
  if (std::fclose(out) != 0) throw InputError("--tasks-csv " + path + ": write failed");
}

int body(int argc, char** argv) {
  bench::PlanBenchOptions o("torus_8pf.yaml", "resnet50", 256, "dp");
  std::string granularity = "chip";
  CLI::App app("flow_evaluator_bench: plans a workload (training), lowers the plan and evaluates it with the closed "
               "form, the flow-level evaluator and the SimGrid replay; prints the makespans, the flow evaluator's "
               "error against the replay and the wall time of each",
               "flow_evaluator_bench");
  o.add_to(app);
  app.add_option("--granularity", granularity, "chip (default) or core")->check(CLI::IsMember({"chip", "core"}));
  std::string plan_file;
  app.add_option("--plan", plan_file, "evaluate this plan (plan.json, for the --config platform and its workload) "
                                      "instead of planning one")->check(CLI::ExistingFile);
  double coalesce = 0, exact_work = 0;
  app.add_option("--exact-work", exact_work, "flows re-solved exactly before coalescing begins (default 0)")
      ->check(CLI::Range(0.0, 1e15));
  app.add_option("--coalesce", coalesce, "the flow evaluator's coalescing of completions, relative (default 0: exact)")
      ->check(CLI::Range(0.0, 1.0));
  std::vector<std::string> simgrid_cfg;
  app.add_option("--simgrid-cfg", simgrid_cfg, "a SimGrid setting KEY:VALUE for the replay, as simrun's (e.g. "
                                               "network/optim:Full, which runs contended chip-granularity replays "
                                               "faster; repeatable)");
  std::string lone;
  app.add_option("--lone-transfers", lone, "the replay's lone transfers: timed (default) or simgrid (simrun "
                                           "--lone-transfers)")->check(CLI::IsMember({"timed", "simgrid"}));
  int divergences = 0;
  app.add_option("--divergences", divergences, "print the first N tasks (by the replay's finish) whose finish "
                                               "differs between the flow evaluator and the replay while their start "
                                               "agrees, with the transfers that shared a link with each")
      ->check(CLI::Range(0, 1000));
  double jitter = 0;
  app.add_option("--jitter", jitter, "multiply every compute and delay task's seconds by 1 + u x JITTER, u in [-1, 1) "
                                     "drawn per task (sim/program/jitter.hpp; a sensitivity check: how far a tiny "
                                     "change moves the makespan, under both evaluators)")
      ->check(CLI::Range(0.0, 0.1));
  std::uint64_t jitter_seed = 1;
  app.add_option("--jitter-seed", jitter_seed, "the seed of --jitter's draws (default 1)");
  bool no_replay = false;
  app.add_flag("--no-replay", no_replay, "stop after the flow evaluator (plans whose SimGrid replay takes hours)");
  bool bound_only = false;
  app.add_flag("--bound-only", bound_only, "stop after the replay lower bound (no flow evaluator, no replay)");
  std::vector<double> replay_until;
  app.add_option("--replay-until", replay_until, "replay only up to the last of these simulated times S (s; no flow "
                                                 "evaluator), printing the replay lower bound after the replay's "
                                                 "first S at each")
      ->check(CLI::PositiveNumber);
  std::vector<double> flow_prefix;
  app.add_option("--flow-prefix", flow_prefix, "after the flow evaluator, print the replay lower bound after its "
                                               "first S simulated seconds, for each S given")
      ->check(CLI::PositiveNumber);
  std::string tasks_csv;
  app.add_option("--tasks-csv", tasks_csv, "write every task's start and finish under both evaluators to this CSV "
                                           "(task,kind,label,bytes,links,after,flow_start,flow_finish,replay_start,replay_finish; "
                                           "with --no-replay the replay's columns empty)");
  cli::parse(app, argc, argv);
  if (plan_file.empty())
    std::printf("%s, %s granularity\n", o.describe().c_str(), granularity.c_str());
  else
    std::printf("plan %s on %s, %s granularity\n", plan_file.c_str(), o.config.c_str(), granularity.c_str());

  const topology::SystemSpec spec = topology::load_system(o.config, o.overrides);
  plan::Plan plan;
  if (!plan_file.empty()) plan = plan::load_plan(plan_file);
  const workloads::Graph workload = plan_file.empty() ? workloads::load_workload(o.workload, o.batch)
                                                      : workloads::load_workload(plan.workload.name, plan.workload.batch);
  if (plan_file.empty()) {
    plan = planner::builtin_strategies().make_plan(
        o.strategy, planner::PlanInputs{spec, workload, o.workload, plan::Mode::training, o.options});
    o.sync.apply_to(plan.schedule);
  } else {
    planner::check_plan(plan, spec, workload, plan_file);
  }
  const topology::TopologyGraph graph(
      spec, granularity == "core" ? topology::Granularity::core : topology::Granularity::chip);
  program::Program lowered = planner::lower_plan({plan, spec, workload, graph});
  const program::Program program = jitter > 0 ? program::jittered(lowered, {jitter, jitter_seed}) : std::move(lowered);
  auto t0 = std::chrono::steady_clock::now();
  const program::TransferRoutes routes(program, graph);
  const double routes_wall = since(t0);

  t0 = std::chrono::steady_clock::now();
  const program::ReplayLowerBound bound = program::replay_lower_bound(program, routes, graph);
  const auto link_name = [&](int link) { return link < 0 ? std::string("none") : graph.link(link).name; };
  std::printf("replay lower bound: %.9e s in %.3f s wall (closed form %.9e s; with gathers and scatters %.9e s; "
              "best link window %.9e s on %s; busiest link %.9e s on %s; %zu flows)\n",
              bound.bound_s(), since(t0), bound.closed_form_s, bound.path_s, bound.link_window_s,
              link_name(bound.link).c_str(), bound.busiest_link_s, link_name(bound.busiest_link).c_str(), bound.flows);
  std::fflush(stdout);
  if (bound_only) return 0;
  const auto print_prefix_bound = [&](const char* evaluator, const program::Evaluation& seen, double clock) {
    t0 = std::chrono::steady_clock::now();
    const program::ReplayPrefix prefix{clock, &seen};
    const program::ReplayLowerBound after = program::replay_lower_bound(program, routes, graph, &prefix);
    std::size_t started = 0, finished = 0;
    for (const auto& t : seen.tasks) {
      started += t.start <= clock ? 1 : 0;
      finished += t.finish <= clock ? 1 : 0;
    }
    std::printf("replay lower bound after the %s's first %.9e s (%zu tasks started, %zu finished): %.9e s in %.3f s "
                "wall (critical path %.9e s; with gathers and scatters %.9e s; best link window %.9e s on %s)\n",
                evaluator, clock, started, finished, after.bound_s(), since(t0), after.closed_form_s, after.path_s,
                after.link_window_s, link_name(after.link).c_str());
    std::fflush(stdout);
  };
  if (!replay_until.empty()) {
    std::sort(replay_until.begin(), replay_until.end());
    replay::SimGridEvaluator simgrid(graph, simgrid_cfg, replay::choose_lone_transfers(lone, simgrid_cfg));
    const auto replay_t0 = std::chrono::steady_clock::now();
    simgrid.set_prefixes({replay_until, [&](double clock, const program::Evaluation& seen) {
                            std::printf("replay prefix: %.9e s simulated in %.1f s wall\n", clock, since(replay_t0));
                            print_prefix_bound("replay", seen, clock);
                          }});
    simgrid.set_progress([last = std::chrono::steady_clock::now()](double simulated_s, std::size_t done,
                                                                   std::size_t total) mutable {
      if (since(last) < 60) return;  // a line a minute: these prefixes take an hour or more
      last = std::chrono::steady_clock::now();
      std::fprintf(stderr, "replay: %.6e s simulated, %zu of %zu tasks finished\n", simulated_s, done, total);
    });
    simgrid.evaluate(program, routes);
    return 0;
  }
  t0 = std::chrono::steady_clock::now();
  const program::Evaluation closed = program::ClosedFormEvaluator(routes).evaluate(program);
  const double closed_wall = since(t0);
  t0 = std::chrono::steady_clock::now();
  const program::Evaluation flow = program::FlowEvaluator(routes, graph, coalesce, exact_work).evaluate(program);
  const double flow_wall = since(t0);
  std::printf("flow evaluator: %.9e s in %.3f s wall (%zu tasks, closed form %.9e s)\n", flow.makespan_s, flow_wall,
              program.size(), closed.makespan_s);
  std::fflush(stdout);
  for (const double clock : flow_prefix) print_prefix_bound("flow evaluator", flow, clock);
  if (no_replay) {
    if (!tasks_csv.empty()) write_tasks_csv(tasks_csv, program, routes, flow, nullptr);
    return 0;
  }
  replay::SimGridEvaluator simgrid(graph, simgrid_cfg, replay::choose_lone_transfers(lone, simgrid_cfg));
  t0 = std::chrono::steady_clock::now();
  const program::Evaluation replayed = simgrid.evaluate(program, routes);
  const double simgrid_wall = since(t0);
  const double error = (flow.makespan_s - replayed.makespan_s) / replayed.makespan_s;

  std::printf("%9s %14s %14s %14s %11s %9s %9s %9s %10s\n", "tasks", "closed_s", "flow_s", "simgrid_s", "flow_err",
              "routes_w", "closed_w", "flow_w", "simgrid_w");
  std::printf("%9zu %14.9e %14.9e %14.9e %+11.3e %9.4f %9.4f %9.4f %10.4f\n", program.size(), closed.makespan_s,
              flow.makespan_s, replayed.makespan_s, error, routes_wall, closed_wall, flow_wall, simgrid_wall);
  std::printf("flow_err: (flow - simgrid) / simgrid; *_w: wall seconds (routes: resolving them once, shared by the three; "
              "simgrid_w includes the platform's set-up); activities: flow %lld, simgrid %lld\n",
              flow.activities, replayed.activities);
  if (!tasks_csv.empty()) write_tasks_csv(tasks_csv, program, routes, flow, &replayed);
  if (divergences > 0) print_divergences(program, routes, flow, replayed, divergences);
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return cli::run_main("flow_evaluator_bench", body, argc, argv); }
