// What the lowerings tell the report by type instead of by label (issue 43 item 3): every task a
// collective lowers to carries the collective's identity (kind, algorithm, group) and its step
// (program.hpp CollectiveInstance, CollectiveStep), and every delay states its place
// (Endpoint::stated), so the timeline never guesses where a delay ran.

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "sim/collectives/algorithm_registry.hpp"
#include "sim/lowering/task_builders.hpp"
#include "sim/planners/builtin_strategies.hpp"
#include "tests/lowering_sharding/two_fc.hpp"
#include "topology/system_parser.hpp"
#include "workloads/zoo.hpp"

using namespace partsim;
using program::TaskKind;

namespace {

// `collective` over every device of a star of 4, S = 4 MB per device, by the ring algorithm: a ring
// in device order 0 -> 1 -> 2 -> 3 -> 0.
collectives::Schedule ring_of_four(const topology::TopologyGraph& topo, const std::string& collective) {
  return collectives::collective_schedule(collective, {0, 1, 2, 3}, 4e6, "ring", topo);
}

}  // namespace

// A ring all-reduce on p = 4 devices is 2 (p - 1) = 6 steps (a reduce-scatter, then an all-gather),
// each of 4 transfers (member i to member i + 1) and a join. Every one of them carries the
// collective (all_reduce by ring over devices 0..3, its label) and its step; the label's step
// number ("ar step 3") is the step + 1.
TEST(CollectiveIdentity, RingAllReduceOnFourDevicesCarriesKindAlgorithmGroupAndStep) {
  const topology::TopologyGraph topo(fixtures::star(4));
  program::Program p;
  const int layer = p.add_layer("l");
  lowering::add_collective(p, ring_of_four(topo, "all_reduce"), topo, layer, plan::Pass::upd, "ar", {});

  ASSERT_EQ(p.collectives().size(), 1u);
  const program::CollectiveInstance& ar = p.collectives().front();
  EXPECT_EQ(ar.kind, collectives::Kind::all_reduce);
  EXPECT_EQ(ar.algorithm, "ring");
  EXPECT_EQ(ar.group, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(ar.label.str(), "ar");

  std::map<int, int> transfers_of_step, joins_of_step;
  for (const program::Task& t : p.tasks()) {
    const program::CollectiveStep* step = p.collective_step(t);
    ASSERT_NE(step, nullptr) << t.label.str();  // every task, the joins too
    EXPECT_EQ(step->collective, 0);
    EXPECT_EQ(step->steps, 1);
    EXPECT_EQ(p.collective_of(t), &ar);
    if (t.kind == TaskKind::transfer) {
      ++transfers_of_step[step->step];
      EXPECT_EQ(t.label.str(), "ar step " + std::to_string(step->step + 1));
      EXPECT_EQ(t.dst.device, (t.src.device + 1) % 4);
    } else {
      ++joins_of_step[step->step];
      EXPECT_EQ(t.kind, TaskKind::delay);
      EXPECT_EQ(t.at, program::Endpoint::nowhere());  // a join: 0 s, placed nowhere
    }
  }
  EXPECT_EQ(transfers_of_step, (std::map<int, int>{{0, 4}, {1, 4}, {2, 4}, {3, 4}, {4, 4}, {5, 4}}));
  EXPECT_EQ(joins_of_step, (std::map<int, int>{{0, 1}, {1, 1}, {2, 1}, {3, 1}, {4, 1}, {5, 1}}));
}

// Two collectives in one Program stay apart, whatever their labels say: a label with " step " in
// the collective's own name is the instance's label, whole; a reduce-scatter and an all-gather
// are told apart by kind; a step overhead (system.collectives.endpoint_overhead) is a delay of the
// step it precedes, placed on several devices (every member pays it).
TEST(CollectiveIdentity, InstancesKeepTheirOwnLabelKindAndStepsWithOverheads) {
  topology::SystemSpec spec = fixtures::star(4);
  spec.collectives.endpoint_overhead = 1e-6;
  const topology::TopologyGraph topo(spec);
  program::Program p;
  const int layer = p.add_layer("l");
  const auto first = lowering::add_collective(p, ring_of_four(topo, "reduce_scatter"), topo, layer, plan::Pass::fwd,
                                              "warm step 2 sync", {});
  lowering::add_collective(p, ring_of_four(topo, "all_gather"), topo, layer, plan::Pass::fwd, "gather", first);
  ASSERT_EQ(p.collectives().size(), 2u);
  EXPECT_EQ(p.collectives()[0].kind, collectives::Kind::reduce_scatter);
  EXPECT_EQ(p.collectives()[0].label.str(), "warm step 2 sync");
  EXPECT_EQ(p.collectives()[1].kind, collectives::Kind::all_gather);
  std::set<std::pair<int, int>> overheads;  // (collective, step)
  for (const program::Task& t : p.tasks()) {
    const program::CollectiveStep* step = p.collective_step(t);
    ASSERT_NE(step, nullptr);
    if (t.kind == TaskKind::transfer && step->collective == 0) {
      EXPECT_EQ(t.label.str(), "warm step 2 sync step " + std::to_string(step->step + 1));
    }
    if (t.kind == TaskKind::delay && t.seconds > 0) {
      EXPECT_EQ(t.at, program::Endpoint::several_devices());
      overheads.insert({step->collective, step->step});
    }
  }
  // 3 steps each (p - 1), one overhead before each.
  EXPECT_EQ(overheads, (std::set<std::pair<int, int>>{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}}));
}

namespace {

// Every delay of `program` states its place: a device, several devices, or nowhere; nowhere only for
// a join of 0 s. Returns the labels of those that do not (empty: all do).
std::set<std::string> unplaced_delays(const program::Program& program) {
  std::set<std::string> bad;
  for (const program::Task& t : program.tasks()) {
    if (t.kind != TaskKind::delay) continue;
    const bool placed = t.at.device >= 0 || t.at.device == program::Endpoint::kSeveralDevices ||
                        (t.at.device == program::Endpoint::kNowhere && t.seconds == 0);
    if (!placed) bad.insert(t.label.str());
  }
  return bad;
}

struct Lowered {
  program::Program program;
  std::size_t delays = 0, placed_on_devices = 0;
};

Lowered plan_and_lower(const std::string& config, const std::string& model, int batch, const std::string& strategy,
                       topology::Granularity granularity = topology::Granularity::chip) {
  const topology::SystemSpec spec = topology::load_system(std::string(PARTSIM_SOURCE_DIR) + "/configs/" + config);
  const workloads::Graph graph = workloads::build_zoo(model, batch);
  const plan::Plan plan = planner::builtin_strategies().make_plan(strategy, {spec, graph, model});
  const topology::TopologyGraph topo(spec, granularity);
  Lowered l{planner::lower_plan({plan, spec, graph, topo}), 0, 0};
  for (const program::Task& t : l.program.tasks())
    if (t.kind == TaskKind::delay) ++l.delays, l.placed_on_devices += t.at.device >= 0;
  return l;
}

}  // namespace

// The demo's Program (vgg16 b512 by dsm on torus_8pf, at chip and core granularity), a data-parallel
// one (the shared lowering, whose merged ring steps add latency delays) and a Megatron one (the
// collectives' per-step overheads): no delay is left for a report to place by guessing.
TEST(DelayPlaces, EveryDelayOfTheLoweringsHasAPlaceOrIsAZeroTimeJoin) {
  for (const auto granularity : {topology::Granularity::chip, topology::Granularity::core}) {
    const Lowered dsm = plan_and_lower("torus_8pf.yaml", "vgg16", 512, "dsm", granularity);
    EXPECT_GT(dsm.delays, 100u);
    EXPECT_EQ(unplaced_delays(dsm.program), std::set<std::string>{});
  }
  const Lowered dp = plan_and_lower("p100_2node.yaml", "vgg16", 64, "dp");
  EXPECT_GT(dp.placed_on_devices, 100u);  // the latency delays of the gradient all-reduces' merged steps
  EXPECT_EQ(unplaced_delays(dp.program), std::set<std::string>{});
  const Lowered megatron = plan_and_lower("dgx_a100.yaml", "gpt2_small", 64, "megatron");
  EXPECT_GT(megatron.delays, 0u);
  EXPECT_EQ(unplaced_delays(megatron.program), std::set<std::string>{});
}

// The check above can fail: a delay added without a place, or a timed delay placed nowhere.
TEST(DelayPlaces, TheCheckFindsADelayWithoutAPlace) {
  program::Program p;
  const int l = p.add_layer("l");
  p.add_delay(l, plan::Pass::fwd, "unstated", 1e-6, {});
  p.add_delay(l, plan::Pass::fwd, "timed nowhere", 1e-6, {}, program::Endpoint::nowhere());
  p.add_delay(l, plan::Pass::fwd, "join", 0.0, {}, program::Endpoint::nowhere());
  p.add_delay(l, plan::Pass::fwd, "memory", 1e-6, {}, {0, -1, true});
  EXPECT_EQ(unplaced_delays(p), (std::set<std::string>{"timed nowhere", "unstated"}));
  EXPECT_FALSE(program::Endpoint{}.stated());
  EXPECT_TRUE(program::Endpoint::nowhere().stated());
}
