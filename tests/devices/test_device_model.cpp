// The calibrated device model (sim/devices/device_model.hpp) against numbers computed by hand: the
// table's interpolation in log10(size), its clamping at both ends and fallbacks, and kernel times.

#include <gtest/gtest.h>

#include <cmath>

#include "sim/devices/device_model.hpp"
#include "sim/devices/shard_compute.hpp"

using namespace partsim;
using namespace partsim::devices;
using topology::KernelPass;
using topology::OperatorClass;
using topology::Precision;

namespace {

topology::CalibratedDevice device() {
  topology::CalibratedDevice d;
  d.peak_fp32 = 500e12;
  d.peak_fp16 = 1000e12;
  d.peak_vector = 50e12;
  d.memory_bandwidth = 2e12;
  d.memory_efficiency = 0.5;
  d.compute_efficiency = 0.25;
  // gemm bf16 fwd: 40 % at 1e9 FLOP, 80 % at 1e11 (two decades apart).
  d.efficiency.push_back({OperatorClass::gemm, Precision::bf16, KernelPass::fwd, 1e9, 0.4, "a", "test"});
  d.efficiency.push_back({OperatorClass::gemm, Precision::bf16, KernelPass::fwd, 1e11, 0.8, "b", "test"});
  // layer norm bf16 fwd: 60 % of the bandwidth at 1e6 bytes and beyond.
  d.efficiency.push_back({OperatorClass::normalization, Precision::bf16, KernelPass::fwd, 1e6, 0.6, "c", "test"});
  return d;
}

}  // namespace

TEST(CalibratedTable, InterpolatesInLogSizeAndClampsAtTheEnds) {
  const auto d = device();
  // 1e10 is halfway between 1e9 and 1e11 in log10: 0.4 + 0.5 x 0.4 = 0.6.
  EXPECT_NEAR(*table_efficiency(d, OperatorClass::gemm, Precision::bf16, KernelPass::fwd, 1e10), 0.6, 1e-12);
  // 1e9.5: a quarter of the way: 0.5.
  EXPECT_NEAR(*table_efficiency(d, OperatorClass::gemm, Precision::bf16, KernelPass::fwd, std::pow(10.0, 9.5)), 0.5, 1e-12);
  EXPECT_NEAR(*table_efficiency(d, OperatorClass::gemm, Precision::bf16, KernelPass::fwd, 1e6), 0.4, 1e-12);
  EXPECT_NEAR(*table_efficiency(d, OperatorClass::gemm, Precision::bf16, KernelPass::fwd, 1e14), 0.8, 1e-12);
  // fp16 falls back to bf16; bwd falls back to fwd; a class without rows has none.
  EXPECT_NEAR(*table_efficiency(d, OperatorClass::gemm, Precision::fp16, KernelPass::bwd, 1e10), 0.6, 1e-12);
  EXPECT_FALSE(table_efficiency(d, OperatorClass::softmax, Precision::bf16, KernelPass::fwd, 1e6).has_value());
}

TEST(CalibratedTable, KernelTimesByHand) {
  const auto d = device();
  // 2048^3 product: 2 x 2048^3 = 1.718e10 FLOP; efficiency at log10 = 10.235: 0.4 + 0.6175 x 0.4.
  const Kernel g = gemm(2048, 2048, 2048, 1, KernelPass::fwd, 2);
  const double flops = 2.0 * 2048 * 2048 * 2048;
  const double e = 0.4 + (std::log10(flops) - 9) / 2 * 0.4;
  const KernelTime t = calibrated_time(d, Precision::bf16, g);
  EXPECT_NEAR(t.seconds, flops / (1000e12 * e), 1e-15);
  EXPECT_FALSE(t.memory_bound);
  EXPECT_NEAR(t.efficiency, e, 1e-12);
  // Layer norm forward of 1e6 bf16 values: 2e6 x 2 = 4e6 bytes at 60 % of 2 TB/s = 3.333 us,
  // against 8e6 element operations at 50 TFLOP/s = 0.16 us: memory-bound.
  const Kernel n = memory_bound(OperatorClass::normalization, 1e6, 1, KernelPass::fwd, 2);
  EXPECT_NEAR(calibrated_time(d, Precision::bf16, n).seconds, 4e6 / 1.2e12, 1e-15);
  // Softmax has no rows: the device's memory_efficiency 0.5: 4e6 / 1e12 = 4 us.
  const Kernel s = memory_bound(OperatorClass::softmax, 1e6, 1, KernelPass::fwd, 2);
  EXPECT_NEAR(calibrated_time(d, Precision::bf16, s).seconds, 4e-6, 1e-15);
  // Conv has no rows: compute_efficiency 0.25 of the fp32 peak for an fp32 kernel.
  Kernel c;
  c.op = OperatorClass::conv;
  c.flops = 1e12;
  EXPECT_NEAR(calibrated_time(d, Precision::fp32, c).seconds, 1e12 / (500e12 * 0.25), 1e-15);
}

TEST(CalibratedTable, AShardsBackwardPassLooksUpTwiceItsFlop) {
  topology::DeviceType type;
  type.model = device();
  ShardWork w;
  w.op = OperatorClass::gemm;
  w.primary_flops = 1e9;  // one backward product: the table's bwd (here fwd) rows count two
  w.precision = Precision::bf16;
  // Looked up at 2e9: 0.4 + log10(2)/2 x 0.4.
  const double e = 0.4 + std::log10(2.0) / 2 * 0.4;
  EXPECT_NEAR(shard_time(type, w, plan::Pass::bwd).compute_s, 1e9 / (1000e12 * e), 1e-15);
  EXPECT_NEAR(shard_time(type, w, plan::Pass::fwd).compute_s, 1e9 / (1000e12 * 0.4), 1e-15);
}
