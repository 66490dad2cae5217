#include <gtest/gtest.h>

#include "sim/common/error.hpp"
#include "sim/program/closed_form.hpp"

using namespace partsim::program;
using partsim::plan::Pass;

namespace {
// A toy platform: every pair of distinct devices is joined by one link of 10 GB/s and 1 us.
double toy_transfer(const Endpoint&, const Endpoint&, double bytes) { return 1e-6 + bytes / 10e9; }
}  // namespace

TEST(ClosedForm, TwoLayerForwardAndBackwardByHand) {
  // Two devices, layer A computes on both (2 ms, 3 ms), sends 20 MB from device 0 to 1, then layer B
  // computes on device 1 for 1 ms; B's backward (4 ms) follows.
  Program p;
  const int a = p.add_layer("A");
  const int b = p.add_layer("B");
  const int a0 = p.add_compute(a, Pass::fwd, "compute", {0}, 2e-3, {});
  const int a1 = p.add_compute(a, Pass::fwd, "compute", {1}, 3e-3, {});
  const int x = p.add_transfer(a, Pass::fwd, "send", {0}, {1}, 20e6, {a0});
  const int b1 = p.add_compute(b, Pass::fwd, "compute", {1}, 1e-3, {a1, x});
  p.add_compute(b, Pass::bwd, "compute", {1}, 4e-3, {b1});

  ClosedFormEvaluator eval(toy_transfer);
  const Evaluation e = eval.evaluate(p);
  // Transfer: starts at 2 ms, takes 1 us + 20e6 / 10e9 = 2.001 ms, ends at 4.001 ms.
  EXPECT_DOUBLE_EQ(e.tasks[static_cast<size_t>(x)].finish, 4.001e-3);
  // B fwd starts at max(3 ms, 4.001 ms) = 4.001 ms, ends 5.001 ms; B bwd ends 9.001 ms.
  EXPECT_DOUBLE_EQ(e.tasks[static_cast<size_t>(b1)].start, 4.001e-3);
  EXPECT_DOUBLE_EQ(e.makespan_s, 9.001e-3);

  const auto spans = layer_pass_spans(p, e);
  ASSERT_EQ(spans.size(), 3u);  // A fwd, B fwd, B bwd
  EXPECT_EQ(spans[0].layer, a);
  EXPECT_DOUBLE_EQ(spans[0].span(), 4.001e-3);        // A fwd: 0 .. end of its transfer
  EXPECT_DOUBLE_EQ(spans[0].compute_busy_s, 3e-3);    // most-loaded device: device 1, 3 ms
  EXPECT_EQ(spans[2].pass, Pass::bwd);
  EXPECT_DOUBLE_EQ(spans[2].span(), 4e-3);
}

TEST(ClosedForm, LocalTransfersAreFree) {
  Program p;
  const int l = p.add_layer("L");
  p.add_transfer(l, Pass::fwd, "local", {3, 1}, {3, 1}, 1e9, {});
  ClosedFormEvaluator eval(toy_transfer);
  EXPECT_DOUBLE_EQ(eval.evaluate(p).makespan_s, 0.0);
}

TEST(ClosedForm, RejectsForwardDependencies) {
  Program p;
  const int l = p.add_layer("L");
  EXPECT_THROW(p.add_compute(l, Pass::fwd, "c", {0}, 1.0, {0}), partsim::Error);
  EXPECT_THROW(p.add_compute(l, Pass::fwd, "c", {0}, -1.0, {}), partsim::Error);
  EXPECT_THROW(p.add_compute(7, Pass::fwd, "c", {0}, 1.0, {}), partsim::Error);
}
