// The flow-level evaluator (program/flow_evaluator.hpp) against the SimGrid replay on lowered plans of
// zoo models: the same max-min model, so the makespans agree to SimGrid's numerics (bound 0.5 %); the
// replay lower bound (program/replay_lower_bound.hpp) is below both.
// One replay per TEST (one SimGrid simulation per process).

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <string>

#include "sim/planners/builtin_strategies.hpp"
#include "sim/program/closed_form.hpp"
#include "sim/program/flow_evaluator.hpp"
#include "sim/program/platform_binding.hpp"
#include "sim/program/replay_lower_bound.hpp"
#include "sim/replay/program_replay.hpp"
#include "topology/system_parser.hpp"
#include "workloads/workload_file.hpp"

using namespace partsim;

namespace {

struct Case {
  std::string config;  // under configs/
  std::string workload;
  long long batch = 0;
  std::string strategy;
  plan::GradientSyncOrder order = plan::GradientSyncOrder::concurrent;
};

// Plans and lowers the case, evaluates it with the flow evaluator and the replay, and checks the
// makespans agree within 0.5 %, and that the replay is contended (flow above the closed form) where
// it is, so the comparison is not only of uncontended programs.
void expect_agreement(const Case& c) {
  const topology::SystemSpec spec = topology::load_system(std::string(PARTSIM_SOURCE_DIR) + "/configs/" + c.config);
  const workloads::Graph workload = workloads::load_workload(c.workload, c.batch);
  plan::Plan plan = planner::builtin_strategies().make_plan(
      c.strategy, planner::PlanInputs{spec, workload, c.workload, plan::Mode::training, {}});
  plan.schedule.gradient_sync_order = c.order;
  const topology::TopologyGraph graph(spec);
  const program::Program program = planner::lower_plan({plan, spec, workload, graph});
  const program::TransferRoutes routes(program, graph);
  const program::Evaluation flow = program::FlowEvaluator(routes, graph).evaluate(program);
  const program::Evaluation closed = program::ClosedFormEvaluator(routes).evaluate(program);
  replay::SimGridEvaluator simgrid(graph);
  const program::Evaluation replayed = simgrid.evaluate(program, routes);
  ASSERT_GT(replayed.makespan_s, 0.0);
  const double error = (flow.makespan_s - replayed.makespan_s) / replayed.makespan_s;
  ::testing::Test::RecordProperty("flow_s", std::to_string(flow.makespan_s));
  ::testing::Test::RecordProperty("simgrid_s", std::to_string(replayed.makespan_s));
  std::printf("%s %s %s: closed form %.9e s, flow %.9e s, SimGrid %.9e s, flow vs SimGrid %+.3e\n", c.config.c_str(),
              c.workload.c_str(), c.strategy.c_str(), closed.makespan_s, flow.makespan_s, replayed.makespan_s, error);
  EXPECT_LT(std::fabs(error), 5e-3);
  EXPECT_EQ(flow.activities, replayed.activities);
  EXPECT_GE(flow.makespan_s, closed.makespan_s * (1 - 1e-9));  // sharing never makes a transfer faster
  // The replay lower bound holds for both, to SimGrid's solver precision (replay_lower_bound.hpp).
  const program::ReplayLowerBound bound = program::replay_lower_bound(program, routes, graph);
  std::printf("  lower bound %.9e s (closed form %.9e s, link window %.9e s)\n", bound.bound_s(), bound.closed_form_s,
              bound.link_window_s);
  EXPECT_LE(bound.bound_s(), flow.makespan_s * (1 + 1e-12));
  EXPECT_LE(bound.bound_s(), replayed.makespan_s * (1 + 1e-5));
}

}  // namespace

TEST(FlowReplay, Torus8pfResnet50DpConcurrent) { expect_agreement({"torus_8pf.yaml", "resnet50", 256, "dp"}); }

TEST(FlowReplay, Torus8pfResnet50DpInOrder) {
  expect_agreement({"torus_8pf.yaml", "resnet50", 256, "dp", plan::GradientSyncOrder::in_order});
}

TEST(FlowReplay, Torus8pfResnet50Hypar) { expect_agreement({"torus_8pf.yaml", "resnet50", 256, "hypar"}); }

TEST(FlowReplay, P100FourNodesVgg16Dp) { expect_agreement({"p100_4node.yaml", "vgg16", 128, "dp"}); }

TEST(FlowReplay, P100FourNodesVgg16OwtInOrder) {
  expect_agreement({"p100_4node.yaml", "vgg16", 128, "owt", plan::GradientSyncOrder::in_order});
}

TEST(FlowReplay, P100FourNodesVgg16OwtBoundAfterAReplayedPrefix) {
  // The replay stopped at a quarter, then halfway (by the flow evaluator's makespan, which the
  // replay's is within 0.5 % of, above): what it has not reached is +infinity, and the bound from there is above the
  // bound alone and below the whole replay's makespan (by the flow evaluator's, to its 0.5 %).
  const topology::SystemSpec spec = topology::load_system(std::string(PARTSIM_SOURCE_DIR) + "/configs/p100_4node.yaml");
  const workloads::Graph workload = workloads::load_workload("vgg16", 128);
  plan::Plan plan = planner::builtin_strategies().make_plan(
      "owt", planner::PlanInputs{spec, workload, "vgg16", plan::Mode::training, {}});
  plan.schedule.gradient_sync_order = plan::GradientSyncOrder::in_order;
  const topology::TopologyGraph graph(spec);
  const program::Program program = planner::lower_plan({plan, spec, workload, graph});
  const program::TransferRoutes routes(program, graph);
  const program::Evaluation flow = program::FlowEvaluator(routes, graph).evaluate(program);
  const double until = 0.5 * flow.makespan_s;
  replay::SimGridEvaluator simgrid(graph);
  int stops = 0;
  simgrid.set_prefixes({{0.25 * flow.makespan_s, until}, [&](double clock, const program::Evaluation& seen) {
                          ++stops;
                          EXPECT_EQ(clock, stops == 1 ? 0.25 * flow.makespan_s : until);
                          EXPECT_LE(seen.makespan_s, clock);
                        }});
  const program::Evaluation seen = simgrid.evaluate(program, routes);
  EXPECT_EQ(stops, 2);
  std::size_t started = 0, finished = 0;
  for (const auto& t : seen.tasks) {
    EXPECT_TRUE(t.start <= until || std::isinf(t.start));
    EXPECT_TRUE(t.finish <= until || std::isinf(t.finish));
    started += t.start <= until ? 1 : 0;
    finished += t.finish <= until ? 1 : 0;
  }
  EXPECT_GT(finished, 0u);
  EXPECT_LT(started, program.size());
  EXPECT_LE(seen.makespan_s, until);
  const double alone = program::replay_lower_bound(program, routes, graph).bound_s();
  const program::ReplayPrefix prefix{until, &seen};
  const double after = program::replay_lower_bound(program, routes, graph, &prefix).bound_s();
  std::printf("  bound alone %.9e s, after the replay's first %.9e s %.9e s, flow %.9e s\n", alone, until, after,
              flow.makespan_s);
  EXPECT_GE(after, alone);
  EXPECT_GE(after, until);
  EXPECT_LE(after, flow.makespan_s * (1 + 5e-3));
}
