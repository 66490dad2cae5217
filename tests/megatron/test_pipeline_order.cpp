// Megatron-LM's order of work on one pipeline stage (sim/planners/megatron/pipeline_order.hpp), written out
// by hand from schedules.py's rules for small p, m and v.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/common/error.hpp"
#include "sim/planners/megatron/pipeline_order.hpp"

using namespace partsim::megatron;

namespace {

// "F2.1": forward of micro-batch 2 through chunk 1; "B0.0": backward of micro-batch 0, chunk 0.
std::string text(const std::vector<Step>& steps) {
  std::string s;
  for (const Step& x : steps) {
    if (!s.empty()) s += ' ';
    s += (x.direction == Direction::forward ? "F" : "B") + std::to_string(x.micro_batch) + "." + std::to_string(x.chunk);
  }
  return s;
}

}  // namespace

TEST(MegatronPipelineOrder, GpipeRunsEveryForwardThenEveryBackward) {
  const PipelineShape shape{Schedule::gpipe, 2, 3, 1};
  EXPECT_EQ(text(stage_order(shape, 0)), "F0.0 F1.0 F2.0 B0.0 B1.0 B2.0");
  EXPECT_EQ(text(stage_order(shape, 1)), "F0.0 F1.0 F2.0 B0.0 B1.0 B2.0");
}

TEST(MegatronPipelineOrder, OneFOneBWarmsUpWithPMinusRMinusOneForwards) {
  // p = 4, m = 4. Stage 0: min(4 - 0 - 1, 4) = 3 warm-up forwards, m - 3 = 1 steady pair (F3 B0),
  // then the 3 cool-down backwards. Stage 1: 2 warm-up, 2 pairs, 2 cool-down. Stage 3: none, so it
  // alternates from the start.
  const PipelineShape shape{Schedule::one_f_one_b, 4, 4, 1};
  EXPECT_EQ(text(stage_order(shape, 0)), "F0.0 F1.0 F2.0 F3.0 B0.0 B1.0 B2.0 B3.0");
  EXPECT_EQ(text(stage_order(shape, 1)), "F0.0 F1.0 F2.0 B0.0 F3.0 B1.0 B2.0 B3.0");
  EXPECT_EQ(text(stage_order(shape, 2)), "F0.0 F1.0 B0.0 F2.0 B1.0 F3.0 B2.0 B3.0");
  EXPECT_EQ(text(stage_order(shape, 3)), "F0.0 B0.0 F1.0 B1.0 F2.0 B2.0 F3.0 B3.0");
  // m < p - r - 1: the warm-up is capped at m (min(3, 2) = 2 on stage 0): all forwards first.
  EXPECT_EQ(text(stage_order({Schedule::one_f_one_b, 4, 2, 1}, 0)), "F0.0 F1.0 B0.0 B1.0");
  // One stage: forward_backward_no_pipelining's F B F B.
  EXPECT_EQ(text(stage_order({Schedule::one_f_one_b, 1, 3, 1}, 0)), "F0.0 B0.0 F1.0 B1.0 F2.0 B2.0");
}

TEST(MegatronPipelineOrder, InterleavedFollowsMegatronsVirtualMicroBatches) {
  // p = 2, v = 2, m = 4: m v = 8 virtual micro-batches k in groups of p v = 4. Forward k: chunk
  // (k mod 4) div 2, micro-batch (k div 4) 2 + k mod 2:
  //   k = 0..7 -> F0.0 F1.0 F0.1 F1.1 F2.0 F3.0 F2.1 F3.1;
  // backward k: the chunk reversed (1 - that):
  //   k = 0..7 -> B0.1 B1.1 B0.0 B1.0 B2.1 B3.1 B2.0 B3.0.
  // Stage 0: warm-up (2 - 0 - 1) 2 + (2 - 1) 2 = 4 forwards, then F(k + 4) B(k) for k = 0..3, then
  // B4..B7. Stage 1: warm-up 0 + 2 = 2.
  const PipelineShape shape{Schedule::interleaved, 2, 4, 2};
  EXPECT_EQ(text(stage_order(shape, 0)),
            "F0.0 F1.0 F0.1 F1.1 F2.0 B0.1 F3.0 B1.1 F2.1 B0.0 F3.1 B1.0 B2.1 B3.1 B2.0 B3.0");
  EXPECT_EQ(text(stage_order(shape, 1)),
            "F0.0 F1.0 F0.1 B0.1 F1.1 B1.1 F2.0 B0.0 F3.0 B1.0 F2.1 B2.1 F3.1 B3.1 B2.0 B3.0");
  // m = p: Megatron-LM runs every forward as warm-up (all_warmup_microbatches), then every backward.
  EXPECT_EQ(text(stage_order({Schedule::interleaved, 2, 2, 2}, 1)), "F0.0 F1.0 F0.1 F1.1 B0.1 B1.1 B0.0 B1.0");
}

TEST(MegatronPipelineOrder, RefusesAStageOutsideThePipeline) {
  EXPECT_THROW(stage_order({Schedule::one_f_one_b, 2, 2, 1}, 2), partsim::InputError);
  EXPECT_THROW(stage_order({Schedule::interleaved, 2, 3, 2}, 0), partsim::InputError);  // m not a multiple of p
}
