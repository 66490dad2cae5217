// The dsm lowering reads the plan's family fields, the device model and the collectives, never the
// planner's predicted times (DESIGN.md principle 1, issue 43).
#include <nlohmann/json.hpp>
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "sim/common/error.hpp"
#include "sim/lowering/lowering.hpp"
#include "sim/planners/builtin_strategies.hpp"
#include "sim/program/closed_form.hpp"
#include "sim/program/platform_binding.hpp"
#include "tests/lowering_dsm/dsm_fixtures.hpp"
#include "tests/support/platform_yaml.hpp"
#include "topology/system_parser.hpp"
#include "topology/topology_graph.hpp"
#include "workloads/net_builder.hpp"
#include "workloads/workload_file.hpp"

using namespace partsim;

namespace {

/// Every predicted time of a plan (the iteration's, each layer's and each pass's total, compute,
/// communication and breakdown terms) times `factor`, as a user could edit plan.json.
plan::Plan with_predictions_scaled(plan::Plan p, double factor) {
  const auto scale = [factor](plan::PredictedCost& c) {
    c.total_s *= factor;
    c.compute_s *= factor;
    c.comm_s *= factor;
    for (auto& [key, value] : c.breakdown) value *= factor;
  };
  p.predicted_iteration_s *= factor;
  for (auto& l : p.layers) {
    scale(l.predicted);
    for (auto& pp : l.passes) scale(pp.cost);
  }
  return p;
}

struct LoweredPlan {
  std::string tasks;       // every task: kind, layer, pass, places, amount (to the last bit), label, dependencies
  double makespan_s = 0;   // closed form
};

LoweredPlan lower(const plan::Plan& p, const topology::SystemSpec& spec, const workloads::Graph& g,
              topology::Granularity gran) {
  const topology::TopologyGraph topo(spec, gran);
  const program::Program prog = planner::lower_plan({p, spec, g, topo});
  LoweredPlan r;
  char buf[200];
  for (const auto& t : prog.tasks()) {
    std::snprintf(buf, sizeof buf, "%d %d %s %d %d %d %d %d %d %a |", static_cast<int>(t.kind), t.layer,
                  plan::to_string(t.pass).c_str(), t.at.device, t.at.core, t.at.memory ? 1 : 0, t.dst.device,
                  t.dst.core, t.dst.memory ? 1 : 0, t.amount());
    r.tasks += buf + t.label.str();
    for (int a : t.after) r.tasks += " " + std::to_string(a);
    r.tasks += "\n";
  }
  program::ClosedFormEvaluator closed(program::uncontended_transfer_time(topo));
  r.makespan_s = closed.evaluate(prog).makespan_s;
  return r;
}

/// Two LSTM layers of 8 over 8 timesteps: with opt=all on the tiny torus the planner pipelines them
/// (seed 003 §III-D) and holds the weights across timesteps.
workloads::Graph two_lstm() {
  workloads::NetBuilder b("two_lstm", "");
  std::string x = b.input("x", {8, 8, 1});
  x = b.lstm("l1", x, 8);
  b.lstm("l2", x, 8);
  return b.build(4);
}

plan::Plan dsm_plan(const topology::SystemSpec& spec, const workloads::Graph& g, const std::string& opt) {
  return planner::builtin_strategies().make_plan("dsm", {spec, g, g.name(), plan::Mode::training, {opt}});
}

}  // namespace

// Every predicted time of the plan multiplied by 7 leaves the Program, task by task, and its closed
// form exactly as they were: plans with AuxComp, memory reuse, DySM and hybrid splits
// (three_layers), LSTM weights held across timesteps and a timestep-pipelined group (two_lstm), at
// chip and core granularity. The closed form stays near the (unscaled) prediction: the events are
// the ones the model describes.
TEST(LoweringDsmPlanFields, PredictedTimesTimesSevenLeaveTheProgramUnchanged) {
  const auto spec = test::platform_from_yaml(test::tiny_yaml("1ns", "10ns"));
  bool pipelined = false, held = false;
  for (const auto& g : {test::three_layers(64), two_lstm()}) {
    const plan::Plan plan = dsm_plan(spec, g, "opt=all");
    for (const auto& l : plan.layers)
      for (const auto& pp : test::passes_of(l)) {
        pipelined = pipelined || pp.pipe_group.has_value();
        held = held || pp.weights_held;
      }
    const plan::Plan scaled = with_predictions_scaled(plan, 7);
    ASSERT_DOUBLE_EQ(scaled.predicted_iteration_s, 7 * plan.predicted_iteration_s);
    for (auto gran : {topology::Granularity::chip, topology::Granularity::core}) {
      const LoweredPlan a = lower(plan, spec, g, gran);
      const LoweredPlan b = lower(scaled, spec, g, gran);
      EXPECT_GT(a.tasks.size(), 100u);
      EXPECT_EQ(a.tasks, b.tasks) << g.name();
      EXPECT_EQ(a.makespan_s, b.makespan_s) << g.name();
      EXPECT_NEAR(a.makespan_s, plan.predicted_iteration_s, 0.05 * plan.predicted_iteration_s) << g.name();
    }
  }
  EXPECT_TRUE(pipelined);  // the readings this test is about occur
  EXPECT_TRUE(held);
}

// The lowering takes the edges memory reuse holds on chip from the plan (reuse_in / reuse_out, as
// the search chose them), not from a re-reading of memory_reuse: the same plan edited to hold no
// edge fetches and writes those tensors again, so its Program differs and takes longer. vgg16
// inference on the paper's torus, where an edge is held on both of its sides (§III-B).
TEST(LoweringDsmPlanFields, HeldEdgesAreThePlansReuseFields) {
  const topology::SystemSpec spec = topology::load_system(PARTSIM_TEST_DATA_DIR "/platforms/torus_8pf.yaml");
  const workloads::Graph g = workloads::load_workload("vgg16", 16);
  const plan::Plan plan = planner::builtin_strategies().make_plan("dsm", {spec, g, "vgg16", plan::Mode::inference, {}});
  plan::Plan edited = plan;
  int held = 0;
  for (auto& l : edited.layers) {
    if (l.family->is_null()) continue;
    for (auto& pp : (*l.family)["passes"]) {
      held += pp["reuse_in"].get<bool>() ? 1 : 0;
      pp["reuse_in"] = false;
      pp["reuse_out"] = false;
    }
  }
  ASSERT_GT(held, 0) << "the planner held no edge on chip";
  const LoweredPlan a = lower(plan, spec, g, topology::Granularity::chip);
  const LoweredPlan b = lower(edited, spec, g, topology::Granularity::chip);
  EXPECT_NE(a.tasks, b.tasks);
  EXPECT_GT(b.makespan_s, a.makespan_s);
}

// A plan whose passes disagree on the held edges is refused, naming the layer.
TEST(LoweringDsmPlanFields, PassesThatDisagreeOnHeldEdgesAreRefused) {
  const auto spec = test::platform_from_yaml(test::tiny_yaml());
  const workloads::Graph g = test::three_layers(8);
  plan::Plan p = dsm_plan(spec, g, "opt=all");
  for (auto& l : p.layers)
    if (!l.family->is_null() && (*l.family)["passes"].size() > 1) {
      auto& last = (*l.family)["passes"].back();
      last["reuse_out"] = !last["reuse_out"].get<bool>();
      break;
    }
  const topology::TopologyGraph topo(spec, topology::Granularity::chip);
  try {
    planner::lower_plan({p, spec, g, topo});
    FAIL() << "lowered a plan whose passes disagree on reuse_out";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("same reuse_in and reuse_out"), std::string::npos) << e.what();
  }
}

// The strategy options recorded in the plan (opt=...) are what the search was allowed, not part of
// what it chose: the lowering reads the plan's fields only, so a plan whose recorded options are
// edited or removed lowers to the same Program, task by task.
TEST(LoweringDsmPlanFields, RecordedOptionsDoNotChangeTheProgram) {
  const auto spec = test::platform_from_yaml(test::tiny_yaml("1ns", "10ns"));
  const workloads::Graph g = test::three_layers(64);
  const plan::Plan plan = dsm_plan(spec, g, "opt=all");
  ASSERT_EQ(plan.options.count("opt"), 1u);
  plan::Plan none = plan, absent = plan;
  none.options["opt"] = "none";
  absent.options.erase("opt");
  const LoweredPlan a = lower(plan, spec, g, topology::Granularity::chip);
  EXPECT_EQ(lower(none, spec, g, topology::Granularity::chip).tasks, a.tasks);
  EXPECT_EQ(lower(absent, spec, g, topology::Granularity::chip).tasks, a.tasks);
}

// The Context's task limit holds for dsm plans as for the sharding lowering: a limit under the
// Program's size stops the lowering with TaskLimitExceeded; the Program's own size passes.
TEST(LoweringDsmPlanFields, TaskLimitOfTheContextHolds) {
  const auto spec = test::platform_from_yaml(test::tiny_yaml());
  const workloads::Graph g = test::three_layers(8);
  const plan::Plan p = dsm_plan(spec, g, "opt=none");
  const topology::TopologyGraph topo(spec, topology::Granularity::chip);
  const std::size_t size = planner::lower_plan({p, spec, g, topo}).tasks().size();
  ASSERT_GT(size, 10u);
  EXPECT_THROW(planner::lower_plan({p, spec, g, topo, size - 1}), program::TaskLimitExceeded);
  EXPECT_EQ(planner::lower_plan({p, spec, g, topo, size}).tasks().size(), size);
}
