// Pipeline schedules (sim/planners/megatron/schedule.hpp) against Narayanan et al. 2021 §2.2's closed forms
// and the warm-up counts of Megatron-LM's schedules.py, worked by hand (docs/model.md "Megatron-LM
// analytic model").

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/common/error.hpp"
#include "sim/planners/megatron/schedule.hpp"

using namespace partsim;
using megatron::PipelineShape;
using megatron::Schedule;

namespace {

PipelineShape shape(Schedule schedule, int p, int m, int v = 1) { return {schedule, p, m, v}; }

std::vector<int> in_flight(const PipelineShape& s) {
  std::vector<int> counts;
  for (int r = 0; r < s.stages; ++r) counts.push_back(megatron::in_flight_chunk_forwards(s, r));
  return counts;
}

}  // namespace

TEST(MegatronSchedule, NamesRoundTripAndUnknownNamesListTheValidOnes) {
  for (const char* name : {"gpipe", "1f1b", "interleaved"})
    EXPECT_EQ(megatron::schedule_name(megatron::parse_schedule(name)), name);
  try {
    megatron::parse_schedule("zero_bubble");
    FAIL() << "an unknown schedule was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("gpipe, 1f1b, interleaved"), std::string::npos) << e.what();
  }
}

// N21 §2.2.1: bubble fraction (p - 1)/m = 3/8 for p = 4, m = 8; §2.2.2: interleaving with v = 2
// divides it by v: 3/16.
TEST(MegatronSchedule, BubbleFractionP4M8V2) {
  EXPECT_DOUBLE_EQ(megatron::bubble_fraction(shape(Schedule::gpipe, 4, 8)), 0.375);
  EXPECT_DOUBLE_EQ(megatron::bubble_fraction(shape(Schedule::one_f_one_b, 4, 8)), 0.375);
  EXPECT_DOUBLE_EQ(megatron::bubble_fraction(shape(Schedule::interleaved, 4, 8, 2)), 0.1875);
  // One stage: no bubble.
  EXPECT_DOUBLE_EQ(megatron::bubble_fraction(shape(Schedule::one_f_one_b, 1, 8)), 0.0);
}

// t_f = 1.5, t_b = 3 (t_f + t_b = 4.5): gpipe and 1f1b (m + p - 1)(t_f + t_b) = 11 x 4.5 = 49.5;
// interleaved (m + (p - 1)/v)(t_f + t_b) = (8 + 1.5) x 4.5 = 42.75.
TEST(MegatronSchedule, IterationTimeIsTheIdealTimePlusTheBubble) {
  EXPECT_DOUBLE_EQ(megatron::iteration_time(shape(Schedule::gpipe, 4, 8), 1.5, 3.0), 49.5);
  EXPECT_DOUBLE_EQ(megatron::iteration_time(shape(Schedule::one_f_one_b, 4, 8), 1.5, 3.0), 49.5);
  EXPECT_DOUBLE_EQ(megatron::iteration_time(shape(Schedule::interleaved, 4, 8, 2), 1.5, 3.0), 42.75);
  EXPECT_THROW(megatron::iteration_time(shape(Schedule::gpipe, 4, 8), -1.0, 3.0), InputError);
}

// 1F1B, schedules.py: warm-up p - r - 1, plus one forward before the first backward: min(p - r, m).
// p = 4, m = 8: 4, 3, 2, 1 (N21 §2.2.1: "p or fewer"). m < p (p = 8, m = 4): min(8 - r, 4) =
// 4, 4, 4, 4, 4, 3, 2, 1. GPipe keeps all m: 8 on every stage.
TEST(MegatronSchedule, InFlightMicroBatchesOf1F1BAndGPipe) {
  EXPECT_EQ(in_flight(shape(Schedule::one_f_one_b, 4, 8)), (std::vector<int>{4, 3, 2, 1}));
  EXPECT_EQ(in_flight(shape(Schedule::one_f_one_b, 8, 4)), (std::vector<int>{4, 4, 4, 4, 4, 3, 2, 1}));
  EXPECT_EQ(in_flight(shape(Schedule::gpipe, 4, 8)), (std::vector<int>{8, 8, 8, 8}));
  EXPECT_DOUBLE_EQ(megatron::in_flight_micro_batches(shape(Schedule::one_f_one_b, 4, 8), 0), 4.0);
}

// Interleaved, schedules.py: warm-up 2(p - r - 1) + (v - 1) p, plus one, capped at m v.
// p = 4, m = 8, v = 2: r = 0: 6 + 4 + 1 = 11; r = 1: 4 + 4 + 1 = 9; r = 2: 7; r = 3: 5 (cap 16).
// Stage 0 holds 11 chunk forwards of L/8 layers = 11/2 = 5.5 micro-batches of its L/4 layers, and
// K22 §4.2.3's factor gives p (1 + (p - 1)/(p v)) = 4 (1 + 3/8) = 5.5.
TEST(MegatronSchedule, InFlightChunksOfTheInterleavedSchedule) {
  const PipelineShape s = shape(Schedule::interleaved, 4, 8, 2);
  EXPECT_EQ(in_flight(s), (std::vector<int>{11, 9, 7, 5}));
  EXPECT_DOUBLE_EQ(megatron::in_flight_micro_batches(s, 0), 5.5);
  EXPECT_DOUBLE_EQ(megatron::in_flight_micro_batches(s, 3), 2.5);
}

// K22's 175B run (Table 3: p = 8; §6: interleaved with 3 chunks; m = global batch 64 / micro-batch 1):
// stage 0: 2 x 7 + 2 x 8 + 1 = 31 chunk forwards of 96/24 = 4 layers = 124 layers = 96 x 31/24, K22's
// L (1 + (p - 1)/(p v)) = 96 (1 + 7/24).
TEST(MegatronSchedule, InterleavedFirstStageMatchesKorthikantiFactorFor175B) {
  const PipelineShape s = shape(Schedule::interleaved, 8, 64, 3);
  EXPECT_EQ(megatron::in_flight_chunk_forwards(s, 0), 31);
  const double layers_held = megatron::in_flight_micro_batches(s, 0) * (96.0 / 8.0);
  EXPECT_DOUBLE_EQ(layers_held, 124.0);
  EXPECT_DOUBLE_EQ(layers_held, 96.0 * (1.0 + 7.0 / 24.0));
}

// m = p: the cap m v = 8 binds on the first stages: min(11, 8), min(9, 8), min(7, 8), min(5, 8).
TEST(MegatronSchedule, InterleavedCapsAtAllChunkForwards) {
  EXPECT_EQ(in_flight(shape(Schedule::interleaved, 4, 4, 2)), (std::vector<int>{8, 8, 7, 5}));
}

// Megatron-LM refuses the interleaved schedule unless m is a multiple of p; the message names both.
TEST(MegatronSchedule, RefusesInvalidShapesNamingTheValues) {
  try {
    megatron::bubble_fraction(shape(Schedule::interleaved, 4, 6, 2));
    FAIL() << "m = 6 with p = 4 was accepted for interleaved";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("p = 4"), std::string::npos) << what;
    EXPECT_NE(what.find("m = 6"), std::string::npos) << what;
    EXPECT_NE(what.find("multiple of p"), std::string::npos) << what;
  }
  EXPECT_THROW(megatron::bubble_fraction(shape(Schedule::interleaved, 4, 8, 1)), InputError);  // v < 2
  EXPECT_THROW(megatron::bubble_fraction(shape(Schedule::one_f_one_b, 4, 8, 2)), InputError);  // v without interleaving
  EXPECT_THROW(megatron::bubble_fraction(shape(Schedule::gpipe, 0, 8)), InputError);           // p < 1
  EXPECT_THROW(megatron::bubble_fraction(shape(Schedule::gpipe, 4, 0)), InputError);           // m < 1
  EXPECT_THROW(megatron::in_flight_chunk_forwards(shape(Schedule::gpipe, 4, 8), 4), InputError);   // stage >= p
  EXPECT_THROW(megatron::in_flight_chunk_forwards(shape(Schedule::gpipe, 4, 8), -1), InputError);  // stage < 0
}
