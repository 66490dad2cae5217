// A strategy is a plug-in (DESIGN.md principle 3): this file adds one from the test suite, with
// ONE registration line, and it plans, checks, lowers (the shared sharding lowering) and replays
// without touching anything else.

#include <nlohmann/json.hpp>
#include <gtest/gtest.h>

#include "sim/planners/accpar/registration.hpp"
#include "sim/plan/plan_io.hpp"
#include "sim/planners/builtin_strategies.hpp"
#include "sim/planners/check_plan.hpp"
#include "sim/planners/option_bindings.hpp"
#include "sim/program/closed_form.hpp"
#include "sim/program/platform_binding.hpp"
#include "sim/replay/program_replay.hpp"
#include "tests/lowering_sharding/two_fc.hpp"

using namespace partsim;

namespace {

struct OneDeviceOptions {
  int device = 0;
};

planner::OptionBindings<OneDeviceOptions> option_bindings() {
  planner::OptionBindings<OneDeviceOptions> b;
  b.integer("device", &OneDeviceOptions::device, "0", "the device that runs everything", {});
  return b;
}

/// "Every layer on one device": its prediction is every pass's FLOPs at the device's peak.
planner::StrategyInfo one_device_strategy() {
  planner::StrategyInfo info;
  info.name = "one_device";
  info.description = "every layer on one device (a test of the plug-in seam)";
  info.options = option_bindings().specs();
  info.plan = [](const planner::PlanInputs& in) {
    const int device = option_bindings().read(in.resolved).device;
    if (device >= in.spec.device_count()) throw InputError("one_device: no device " + std::to_string(device));
    plan::Plan p;
    for (const auto& layer : in.graph.layers()) {
      plan::LayerPlan l;
      l.name = layer.name;
      l.sharding.devices = {device};
      l.predicted.compute_s = layer.q.flops().total() / in.spec.device_type(device).peak_flops(in.spec.precision);
      l.predicted.total_s = l.predicted.compute_s;
      p.predicted_iteration_s += l.predicted.total_s;
      p.layers.push_back(l);
    }
    return p;
  };
  return info;  // no check, lower or explain: the defaults
}

planner::StrategyRegistry registry() {
  planner::StrategyRegistry r;
  accpar::register_strategies(r);
  r.add(one_device_strategy());  // the one registration line
  return r;
}

}  // namespace

TEST(PluginStrategy, PlansChecksLowersAndReplaysThroughTheSharedSeam) {
  const auto r = registry();
  const auto spec = fixtures::star(2);
  const auto g = fixtures::two_fc();
  const plan::Plan p = r.make_plan("one_device", {spec, g, "two_fc", plan::Mode::training, {"device=1"}});
  EXPECT_EQ(p.options.at("device"), "1");
  // Through plan.json and back, checked against the platform and workload.
  const plan::Plan back = plan::plan_from_json(plan::plan_to_json(p), "plan.json");
  EXPECT_NO_THROW(planner::check_plan(back, spec, g, r, "plan.json"));
  const topology::TopologyGraph topo(spec);
  const program::Program prog = planner::lower_plan(r, {back, spec, g, topo});
  for (const auto& t : prog.tasks()) {
    EXPECT_NE(t.kind, program::TaskKind::transfer) << t.label.str();
    if (t.kind == program::TaskKind::compute) {
      EXPECT_EQ(t.at.device, 1);
    }
  }
  // By hand: FWD of both layers, BWD of fc2 (fc1's input error is not needed), UPD of both, on one
  // 1 TFLOP/s device: 3 x 134,152,192 + 2 x 133,169,152 FLOP = 668.79 us.
  const double expected = (3 * fixtures::kFwdFlops + 2 * fixtures::kUpdFlops) / 1e12;
  const auto closed = program::ClosedFormEvaluator(program::uncontended_transfer_time(topo)).evaluate(prog);
  EXPECT_NEAR(closed.makespan_s, expected, 1e-9 * expected);
  replay::SimGridEvaluator simgrid(topo);
  EXPECT_NEAR(simgrid.evaluate(prog).makespan_s, expected, 1e-9 * expected);
  // Its options are declared: a bad value is refused naming the allowed ones.
  EXPECT_THROW(r.make_plan("one_device", {spec, g, "two_fc", plan::Mode::training, {"device=first"}}), InputError);
  EXPECT_NE(r.list_table().find("one_device"), std::string::npos);
}
