// flow_evaluator_bench: the flow-level evaluator (program/flow_evaluator.hpp) against the SimGrid
// replay it reproduces. Plans a workload (training), lowers the plan, and evaluates the Program with
// the closed form, the flow evaluator and the replay on the same resolved routes; prints the tasks,
// the three makespans, the flow evaluator's relative error against the replay and each evaluator's
// wall time.
//
// Usage: flow_evaluator_bench [--config FILE] [--set KEY=VALUE ...] [--workload NAME] [--batch B] [--strategy S]
//                             [--option NAME=VALUE ...] [--granularity chip|core] [--coalesce R] [--exact-work N] [--plan FILE]
//                             [--gradient-sync-order concurrent|in_order] [--gradient-bucket SIZE]
//        flow_evaluator_bench --help

#include <CLI/CLI.hpp>

#include <chrono>
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
#include "sim/program/flow_evaluator.hpp"
#include "sim/program/platform_binding.hpp"
#include "sim/replay/program_replay.hpp"
#include "topology/system_parser.hpp"
#include "workloads/workload_file.hpp"

using namespace partsim;

namespace {

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
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
  cli::parse(app, argc, argv);
  std::printf("%s, %s granularity\n", o.describe().c_str(), granularity.c_str());

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
  const program::Program program = planner::lower_plan({plan, spec, workload, graph});
  auto t0 = std::chrono::steady_clock::now();
  const program::TransferRoutes routes(program, graph);
  const double routes_wall = since(t0);

  t0 = std::chrono::steady_clock::now();
  const program::Evaluation closed = program::ClosedFormEvaluator(routes).evaluate(program);
  const double closed_wall = since(t0);
  t0 = std::chrono::steady_clock::now();
  const program::Evaluation flow = program::FlowEvaluator(routes, graph, coalesce, exact_work).evaluate(program);
  const double flow_wall = since(t0);
  replay::SimGridEvaluator simgrid(graph);
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
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return cli::run_main("flow_evaluator_bench", body, argc, argv); }
