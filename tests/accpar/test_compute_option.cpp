// AccPar-family option compute=peak|device (sim/planners/accpar/registration.cpp): with compute=device a
// layer's predicted compute is the platform's device model of the plan's shards, by hand here.

#include <gtest/gtest.h>

#include "sim/planners/builtin_strategies.hpp"
#include "tests/lowering_sharding/two_fc.hpp"

using namespace partsim;
using fixtures::kFwdFlops;
using fixtures::kUpdFlops;

namespace {

plan::Plan dp_plan(const topology::SystemSpec& spec, const workloads::Graph& g, const std::string& compute) {
  const planner::PlanInputs inputs{spec, g, "two_fc", plan::Mode::training, {"compute=" + compute}};
  return planner::builtin_strategies().make_plan("dp", inputs);
}

}  // namespace

// dp on two_fc over a star of 2 roofline devices at 1 TFLOP/s whose memory runs at 1 GB/s: each
// device holds half the batch (32). Eq. 8 at peak charges every layer its three phases (Table 6 on
// the device's shard): FWD and BWD 32 x 1024 x 2047 = 67,076,096 FLOP each, gradient
// 1024 x 1024 x (2 x 32 - 1) = 66,060,288: 200,212,480 FLOP = 0.20021 ms per layer. The device
// model: every pass of a shard reads and writes (32 x 1024 + 1024 x 1024 + 32 x 1024) x 2 B =
// 2,228,224 B, 2.228 ms at 1 GB/s, far above its FLOPs; fc1 runs FWD and UPD (its input is the
// graph's: no input error), fc2 all three: 2 x 2.228 and 3 x 2.228 ms. Communication is unchanged,
// so each layer's total and the iteration grow by exactly the difference.
TEST(AccParComputeOption, DeviceModelPricesTheShardsByHand) {
  const auto spec = fixtures::star(2, "1GB/s");
  const auto g = fixtures::two_fc();
  const plan::Plan peak = dp_plan(spec, g, "peak");
  const plan::Plan device = dp_plan(spec, g, "device");
  EXPECT_EQ(device.options.at("compute"), "device");
  const double pass = 2228224 / 1e9;
  const double eq8 = (2 * 67076096.0 + 66060288.0) / 1e12;
  EXPECT_NEAR(peak.layers[1].predicted.compute_s, eq8, 1e-12);
  EXPECT_NEAR(peak.layers[2].predicted.compute_s, eq8, 1e-12);
  EXPECT_NEAR(device.layers[1].predicted.compute_s, 2 * pass, 1e-12);
  EXPECT_NEAR(device.layers[2].predicted.compute_s, 3 * pass, 1e-12);
  EXPECT_NEAR(device.layers[2].predicted.breakdown.at("device_compute_s"), 3 * pass, 1e-12);
  double added = 0;
  for (std::size_t v = 0; v < g.size(); ++v) {
    EXPECT_DOUBLE_EQ(device.layers[v].predicted.comm_s, peak.layers[v].predicted.comm_s);
    const double more = device.layers[v].predicted.compute_s - peak.layers[v].predicted.compute_s;
    EXPECT_NEAR(device.layers[v].predicted.total_s, peak.layers[v].predicted.total_s + more, 1e-12);
    added += more;
  }
  EXPECT_NEAR(device.predicted_iteration_s, peak.predicted_iteration_s + added, 1e-12);
  EXPECT_NEAR(added, 5 * pass - 2 * eq8, 1e-12);
}

// Compute-bound devices (memory at 1000 GB/s): the device model is FLOPs at peak of the passes the
// lowering runs, per device kFwd / 2 = 67.076 us per FWD or BWD and kUpd / 2 = 66.585 us per UPD
// (the lowering's gradient FLOPs split the minibatch's 64 x 2 - 1 products). fc1 has no BWD, which
// eq. 8 charges: 133.661 us instead of 200.212 us; fc2 200.737 us.
TEST(AccParComputeOption, ComputeBoundDevicesChargeThePassesTheLoweringRuns) {
  const auto spec = fixtures::star(2);
  const auto g = fixtures::two_fc();
  const plan::Plan device = dp_plan(spec, g, "device");
  EXPECT_NEAR(device.layers[1].predicted.compute_s, (kFwdFlops + kUpdFlops) / 2 / 1e12, 1e-12);
  EXPECT_NEAR(device.layers[2].predicted.compute_s, (2 * kFwdFlops + kUpdFlops) / 2 / 1e12, 1e-12);
  EXPECT_EQ(device.layers[0].predicted.compute_s, 0);  // the input
}
