// MARS's ES and SS (seed 004 §IV) on the shared sharding lowering: bytes of the ES all-reduce and of
// the SS ring rotations on a two-device FC, computed by hand.

#include <nlohmann/json.hpp>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "sim/lowering/sharding_lowering.hpp"
#include "sim/program/closed_form.hpp"
#include "sim/plan/plan_io.hpp"
#include "sim/program/platform_binding.hpp"
#include "tests/lowering_sharding/two_fc.hpp"

using namespace partsim;
using plan::ShardDim;

namespace {

struct Lowered {
  std::map<std::string, std::vector<double>> bytes;  // transfer bytes by label
  std::map<int, double> compute_s;                   // fc1's FWD compute per device, summed
  int fc1_computes = 0;
};

/// fc1 sharded as given, fc2 and x as `rest`, inference, on a star of two roofline devices.
Lowered lower_fc1(const plan::Sharding& fc1, const plan::Sharding& rest) {
  const auto g = fixtures::two_fc();
  const auto spec = fixtures::star(2);
  const plan::Plan p = fixtures::plan_of(g, {rest, fc1, rest}, plan::Mode::inference);
  const topology::TopologyGraph topo(spec);
  const program::Program program = lowering::lower_sharding({p, spec, g, topo});
  Lowered out;
  for (const auto& t : program.tasks()) {
    if (t.layer != 1) continue;  // fc1
    if (t.kind == program::TaskKind::transfer) out.bytes[t.label].push_back(t.bytes);
    if (t.kind == program::TaskKind::compute) {
      out.compute_s[t.at.device] += t.seconds;
      ++out.fc1_computes;
    }
  }
  return out;
}

const plan::Sharding kBatchSplit{{0, 1}, {{ShardDim::batch, 2, {}, {}}}};

}  // namespace

// ES = {C_in} on 2 devices: each device computes partial sums of all 64 x 1024 outputs; the ring
// reduce-scatter of 2 takes one step in which each device sends half: 64 x 1024 / 2 x 2 B = 65,536 B.
TEST(MarsShards, ExclusiveReductionSplitAllReducesPartialSums) {
  const plan::Sharding es{{0, 1}, {{ShardDim::in_channels, 2, {}, {}}}};
  const auto l = lower_fc1(es, kBatchSplit);
  ASSERT_EQ(l.bytes.count("partial-sum reduce-scatter"), 1u);
  EXPECT_EQ(l.bytes.at("partial-sum reduce-scatter"), (std::vector<double>{65536, 65536}));
}

// ES = {B}, SS = {C_out} (seed 004 Fig. 2(c) with the batch for W): both devices need all of fc1's
// weights, so they hold half each (1024 x 512 x 2 B = 1,048,576 B) and swap them once: 2 phases of
// compute, one rotation of 1,048,576 B each way. Each phase is a quarter of fc1's FWD FLOPs
// (batch 32 x 512 outputs): 134,152,192 / 4 FLOP at 1 TFLOP/s = 33.538048 us, twice per device.
TEST(MarsShards, SharedWeightsRotateOnTheRing) {
  plan::Sharding ss = kBatchSplit;
  ss.shared = ShardDim::out_channels;
  const auto l = lower_fc1(ss, kBatchSplit);
  ASSERT_EQ(l.bytes.count("shared shard rotation"), 1u);
  EXPECT_EQ(l.bytes.at("shared shard rotation"), (std::vector<double>{1048576, 1048576}));
  EXPECT_EQ(l.fc1_computes, 4);
  EXPECT_NEAR(l.compute_s.at(0), 2 * fixtures::kFwdFlops / 4 / 1e12, 1e-12);
  EXPECT_NEAR(l.compute_s.at(1), 2 * fixtures::kFwdFlops / 4 / 1e12, 1e-12);
}

// ES = {C_out}, SS = {B}: both devices need the whole input; each fetches its half of the batch
// (32 x 1024 x 2 B = 65,536 B, from x, which sits split by batch: the other device's half comes over
// the network) and passes it on once: one rotation of 65,536 B each way.
TEST(MarsShards, SharedInputsRotateOnTheRing) {
  plan::Sharding ss{{0, 1}, {{ShardDim::out_channels, 2, {}, {}}}};
  ss.shared = ShardDim::batch;
  const auto l = lower_fc1(ss, plan::Sharding{{0, 1}, {{ShardDim::batch, 2, {}, {}}}});
  ASSERT_EQ(l.bytes.count("shared shard rotation"), 1u);
  EXPECT_EQ(l.bytes.at("shared shard rotation"), (std::vector<double>{65536, 65536}));
  EXPECT_EQ(l.bytes.count("input from x"), 0u);  // device j starts with slice j, which it holds
}

// `shared` is written to plan.json and read back (docs/plan-format.md "Shared shards").
TEST(MarsShards, SharedDimensionRoundTripsThroughPlanJson) {
  plan::Plan p;
  p.strategy = "hand";
  p.config = {"star", "0", ""};
  p.workload = {"two_fc", 64, plan::Mode::inference};
  p.configuration = {{"d0", "dev"}};
  plan::LayerPlan l;
  l.name = "fc1";
  l.sharding = kBatchSplit;
  l.sharding.shared = ShardDim::width;
  p.layers.push_back(l);
  const plan::Plan back = plan::plan_from_json(nlohmann::json::parse(plan::plan_to_text(p)), "p.json");
  EXPECT_EQ(back.layers.at(0).sharding, l.sharding);
  EXPECT_EQ(back.configuration, p.configuration);
}
