// The replay's memory timeline (sim/memory/memory_timeline.hpp) on a data-parallel 4-layer chain,
// lowered by the shared sharding lowering and timed by the closed form, against bytes summed by hand
// (docs/model.md "The replay's memory timeline").
//
// Chain: x (512 features) -> fc1 -> fc2 -> fc3 (512 -> 512 each, no bias), batch 32, data
// parallel over 4 bf16 devices (2 B per element, 8 samples each), training with mixed-precision Adam
// and fp32 main gradients: 2 + 4 + 12 = 18 B per parameter.
//   parameters       3 x 512 x 512 = 786,432 on every device (replicas hold them whole)
//   resident         786,432 x 18 = 14,155,776 B (weights 1,572,864 + gradients 3,145,728 +
//                    optimizer 9,437,184), held from 0 to the end
//   activations      each layer's output box: 8 x 512 x 2 = 8,192 B; the four: 32,768 B
//   end of forward   14,155,776 + 32,768 = 14,188,544 B (the hand sum)
//   working of fc3   its BWD holds dY (8 x 512) and writes dX (8 x 512): 16,384 B, from the instant
//                    the forward pass ends (fc3's BWD starts as its FWD finishes)
//   peak             14,188,544 + 16,384 = 14,204,928 B at the end of the forward pass. Later
//                    levels are lower: fc2's BWD holds 16,384 B of working once fc3's output
//                    (8,192 B) is freed, and fc1 has no BWD (its input is the graph's).

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "sim/lowering/sharding_lowering.hpp"
#include "sim/memory/footprint.hpp"
#include "sim/memory/memory_timeline.hpp"
#include "sim/plan/sharding.hpp"
#include "sim/program/closed_form.hpp"
#include "sim/program/platform_binding.hpp"
#include "tests/lowering_sharding/two_fc.hpp"
#include "workloads/net_builder.hpp"

using namespace partsim;
using plan::ShardDim;

namespace {

constexpr double kResident = 14155776.0;
constexpr double kActivationBox = 8192.0;
constexpr double kEndOfForward = kResident + 4 * kActivationBox;  // 14,188,544 B
constexpr double kWorkingOfFc3 = 16384.0;

workloads::Graph chain() {
  workloads::NetBuilder b("chain", "");
  std::string t = b.input("x", {512, 1, 1});
  for (const char* name : {"fc1", "fc2", "fc3"}) t = b.fc(name, t, 512, false);
  return b.build(32);
}

// Every layer split by batch over the 4 devices.
plan::Plan data_parallel(const workloads::Graph& g, plan::Mode mode) {
  return fixtures::plan_of(g, std::vector<plan::Sharding>(g.size(), plan::mesh_sharding({}, {{ShardDim::batch, 4}})), mode);
}

std::vector<std::vector<std::size_t>> consumers_of(const workloads::Graph& g) {
  std::vector<std::vector<std::size_t>> consumers(g.size());
  for (std::size_t v = 0; v < g.size(); ++v) consumers[v] = g.successors(v);
  return consumers;
}

// The finish of fc3's FWD compute on `device`: the end of the forward pass there.
double end_of_forward(const program::Program& program, const program::Evaluation& timing, int device) {
  double end = 0;
  for (std::size_t i = 0; i < program.size(); ++i) {
    const program::Task& t = program.tasks()[i];
    if (t.kind == program::TaskKind::compute && t.pass == plan::Pass::fwd && t.layer == 3 && t.at.device == device)
      end = std::max(end, timing.tasks[i].finish);
  }
  return end;
}

}  // namespace

TEST(MemoryTimeline, DataParallelChainPeaksAtTheEndOfTheForwardPass) {
  const auto spec = fixtures::star(4);
  const auto g = chain();
  const plan::Plan p = data_parallel(g, plan::Mode::training);
  const plan::MemorySettings adam{plan::Optimizer::adam, plan::TrainingPrecision::mixed, true};
  const topology::TopologyGraph topo(spec);
  const program::Program program = lowering::lower_sharding({p, spec, g, topo});
  const program::Evaluation closed =
      program::ClosedFormEvaluator(program::uncontended_transfer_time(topo)).evaluate(program);

  const memory::MemoryTimeline timeline = memory::memory_timeline(
      program, closed, memory::box_memory(p, spec, g, adam), consumers_of(g), plan::Mode::training, 4);
  ASSERT_EQ(timeline.devices.size(), 4u);
  for (int d = 0; d < 4; ++d) {
    const memory::DeviceMemoryTimeline& m = timeline.devices[static_cast<std::size_t>(d)];
    SCOPED_TRACE(d);
    const double forward_end = end_of_forward(program, closed, d);
    ASSERT_GT(forward_end, 0);
    EXPECT_EQ(m.resident_bytes, kResident);
    EXPECT_EQ(m.steps.front().time_s, 0.0);
    // At 0: the model states, the samples (x has no compute: held from the start) and fc1's output
    // (its FWD starts at 0: nothing comes before it).
    EXPECT_EQ(m.steps.front().bytes, kResident + 2 * kActivationBox);
    // Just before the end of the forward pass every output box is held; then fc3's BWD adds dY, dX.
    EXPECT_EQ(m.bytes_at(forward_end * (1 - 1e-12)), kEndOfForward);
    EXPECT_EQ(m.peak_bytes, kEndOfForward + kWorkingOfFc3);
    EXPECT_EQ(m.peak_time_s, forward_end);
    // Everything but the model states is freed by the end of the iteration.
    EXPECT_EQ(m.steps.back().bytes, kResident);
    EXPECT_LE(m.steps.back().time_s, closed.makespan_s);
  }
  // The footprint's per-device total (model states + every activation + the largest working set) is
  // what this chain reaches at its peak.
  EXPECT_EQ(memory::plan_memory(p, spec, g, adam).per_device_bytes, kEndOfForward + kWorkingOfFc3);
  EXPECT_EQ(timeline.fullest(), 0u);
  EXPECT_EQ(timeline.peak_between(0, closed.makespan_s), kEndOfForward + kWorkingOfFc3);
}

// Inference: weights only (786,432 x 2 = 1,572,864 B); an output lives from its layer's FWD until
// its consumer's FWD has run, and a layer's FWD holds its input (8,192 B) as working. During fc2's
// FWD: fc1's output and fc2's (8,192 B each) + fc2's working 8,192 B = 24,576 B above the weights;
// the samples x are freed when fc1 has read them, and fc3's output stays to the end.
TEST(MemoryTimeline, InferenceFreesAnOutputOnceItsConsumerHasRun) {
  const auto spec = fixtures::star(4);
  const auto g = chain();
  const plan::Plan p = data_parallel(g, plan::Mode::inference);
  const topology::TopologyGraph topo(spec);
  const program::Program program = lowering::lower_sharding({p, spec, g, topo});
  const program::Evaluation closed =
      program::ClosedFormEvaluator(program::uncontended_transfer_time(topo)).evaluate(program);
  const memory::MemoryTimeline timeline =
      memory::memory_timeline(program, closed, memory::box_memory(p, spec, g, {}), consumers_of(g), plan::Mode::inference, 4);
  const memory::DeviceMemoryTimeline& m = timeline.devices[2];
  EXPECT_EQ(m.resident_bytes, 1572864.0);
  EXPECT_EQ(m.peak_bytes, 1572864.0 + 24576.0);
  // fc3's output, the result, is held until the iteration ends (fc3's FWD is the last task: until
  // then fc2's output and fc3's input are held too), and freed with everything at the end.
  EXPECT_EQ(m.bytes_at(closed.makespan_s * (1 - 1e-12)), 1572864.0 + 24576.0);
  EXPECT_EQ(m.steps.back().time_s, closed.makespan_s);
  EXPECT_EQ(m.steps.back().bytes, 1572864.0);
}

// A timing of another program is refused rather than misread.
TEST(MemoryTimeline, RefusesAnEvaluationOfAnotherProgram) {
  const auto spec = fixtures::star(4);
  const auto g = chain();
  const plan::Plan p = data_parallel(g, plan::Mode::training);
  const topology::TopologyGraph topo(spec);
  const program::Program program = lowering::lower_sharding({p, spec, g, topo});
  EXPECT_THROW(memory::memory_timeline(program, program::Evaluation{}, {}, {}, plan::Mode::training, 4), Error);
}

// holding_timeline on a hand-built Program and a hand-written timing (what a lowering that sizes its
// memory itself declares, e.g. megatron): four compute tasks, device 0 running t0 [0, 1] s, t1
// [1, 3] s, t2 [3, 4] s in a chain and device 1 running t3 [0, 5] s; a third device holds nothing.
//   device 0: resident 100 B (weights) + 50 B (gradients) = 150 B;
//             1,000 B from t0's start to t1's finish [0, 3]; 500 B over t1 .. t2 [1, 4];
//             200 B over t2 alone [3, 4]: allocated at 3 s, when the 1,000 B are freed.
//     0 s: 150 + 1,000 = 1,150; 1 s: 1,150 + 500 = 1,650 (the peak); 3 s: 1,650 - 1,000 + 200 = 850
//     (the free first: never 1,650 + 200 = 1,850); 4 s: 850 - 500 - 200 = 150.
//   device 1: resident 10 B; 7 B over t3 [0, 5]: 17 B from 0 s (the peak), 10 B from 5 s.
//   device 2: 0 B throughout.
TEST(MemoryTimeline, HoldingsOfAHandBuiltProgramPlacedInTime) {
  program::Program p;
  const int layer = p.add_layer("l");
  const int t0 = p.add_compute(layer, plan::Pass::fwd, "t0", {0, -1, false}, 1.0, {});
  const int t1 = p.add_compute(layer, plan::Pass::fwd, "t1", {0, -1, false}, 2.0, {t0});
  const int t2 = p.add_compute(layer, plan::Pass::bwd, "t2", {0, -1, false}, 1.0, {t1});
  const int t3 = p.add_compute(layer, plan::Pass::fwd, "t3", {1, -1, false}, 5.0, {});
  p.add_resident(0, 100, "weights");
  p.add_resident(0, 50, "gradients");
  p.add_resident(1, 10, "weights");
  p.add_holding(0, 1000, t0, t1, "activations");
  p.add_holding(0, 500, t1, t2, "activations");
  p.add_holding(0, 200, t2, t2, "activations");
  p.add_holding(1, 7, t3, t3, "activations");
  ASSERT_EQ(p.holdings().size(), 7u);
  EXPECT_TRUE(p.holdings()[0].resident());
  EXPECT_EQ(p.holdings()[3].what.str(), "activations");
  const program::Evaluation timing{{{0, 1}, {1, 3}, {3, 4}, {0, 5}}, 5, 0};

  const memory::MemoryTimeline m = memory::holding_timeline(p, timing, 3);
  ASSERT_EQ(m.devices.size(), 3u);
  const std::vector<memory::MemoryStep> zero{{0, 1150}, {1, 1650}, {3, 850}, {4, 150}};
  EXPECT_EQ(m.devices[0].steps, zero);
  EXPECT_EQ(m.devices[0].resident_bytes, 150);
  EXPECT_EQ(m.devices[0].peak_bytes, 1650);
  EXPECT_EQ(m.devices[0].peak_time_s, 1);
  const std::vector<memory::MemoryStep> one{{0, 17}, {5, 10}};
  EXPECT_EQ(m.devices[1].steps, one);
  EXPECT_EQ(m.devices[1].peak_bytes, 17);
  EXPECT_EQ(m.devices[1].peak_time_s, 0);
  const std::vector<memory::MemoryStep> none{{0, 0}};
  EXPECT_EQ(m.devices[2].steps, none);
  EXPECT_EQ(m.fullest(), 0u);

  // A holding on a device the platform does not have, or a timing of another program: refused.
  EXPECT_THROW(memory::holding_timeline(p, timing, 1), Error);
  EXPECT_THROW(memory::holding_timeline(p, program::Evaluation{}, 3), Error);
}
