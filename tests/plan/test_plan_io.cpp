#include <gtest/gtest.h>

#include "sim/common/error.hpp"
#include "sim/plan/plan_io.hpp"

using namespace partsim::plan;

namespace {
Plan sample_plan() {
  Plan p;
  p.strategy = "accpar";
  p.options = {"levels=2"};
  p.tool_version = "0.1.0";
  p.config = {"tpu_v3_128", "0123456789abcdef", "configs/tpu_v3_128.yaml"};
  p.workload = {"alexnet", 512, Mode::training};
  p.predicted_iteration_s = 1.25;
  p.memory = MemoryUse{7e8, 8e9, 1e8, 1e8, 4e8, 1e8};
  LayerPlan conv;
  conv.name = "conv1";
  conv.predicted = {0.5, 0.4, 0.1, {{"inter_layer_s", 0.04}, {"intra_layer_s", 0.06}}};
  conv.levels = {{AccParType::I, 0.3}, {AccParType::III, 0.5}};
  LayerPlan fc;
  fc.name = "fc1";
  fc.predicted = {0.75, 0.5, 0.25, {}};
  DsmPassPlan pass;
  pass.pass = Pass::bwd;
  pass.chip_split = "data_x_model_y";
  pass.core_split = {1, 32, 1, 1, 4};
  pass.array_split = {16, 16, 1, 1, 1};
  pass.dysm_factor = 4;
  pass.memory_reuse = true;
  pass.pipe_group = 2;
  pass.chips = {0, 1};
  fc.passes = {pass};
  p.layers = {conv, fc};
  return p;
}

std::string error_of(const std::string& text) {
  try {
    plan_from_json(nlohmann::json::parse(text), "p.json");
  } catch (const partsim::InputError& e) {
    return e.what();
  }
  return "<no error>";
}
}  // namespace

TEST(PlanIo, RoundTripsEveryField) {
  const Plan p = sample_plan();
  const std::string text = plan_to_text(p);
  const Plan q = plan_from_json(nlohmann::json::parse(text), "p.json");
  EXPECT_EQ(plan_to_text(q), text);  // byte-identical after a round trip
  ASSERT_EQ(q.layers.size(), 2u);
  EXPECT_EQ(q.layers[0].levels[1].type, AccParType::III);
  EXPECT_DOUBLE_EQ(q.layers[0].levels[0].ratio, 0.3);
  EXPECT_EQ(q.layers[1].passes[0].core_split.mb, 4);
  EXPECT_EQ(*q.layers[1].passes[0].pipe_group, 2);
  EXPECT_DOUBLE_EQ(q.layers[0].predicted.breakdown.at("intra_layer_s"), 0.06);
  ASSERT_TRUE(q.memory.has_value());
  EXPECT_DOUBLE_EQ(q.memory->activations_bytes, 4e8);
  // Optional: a plan without it reads back without it.
  Plan bare = sample_plan();
  bare.memory.reset();
  EXPECT_FALSE(plan_from_json(nlohmann::json::parse(plan_to_text(bare)), "p.json").memory.has_value());
}

TEST(PlanIo, RejectsBadValuesNamingThePath) {
  nlohmann::json j = nlohmann::json::parse(plan_to_text(sample_plan()));
  j["layers"][0]["levels"][0]["type"] = "IV";
  EXPECT_EQ(error_of(j.dump()), "p.json: /layers/0/levels/0/type: must be one of I, II, III (got \"IV\")");
  j = nlohmann::json::parse(plan_to_text(sample_plan()));
  j["schema"] = 7;
  EXPECT_EQ(error_of(j.dump()), "p.json: /schema: unsupported plan schema 7 (this partsim reads schema 1)");
  j = nlohmann::json::parse(plan_to_text(sample_plan()));
  j["workload"].erase("batch");
  EXPECT_EQ(error_of(j.dump()), "p.json: /workload/batch: missing required key");
  j = nlohmann::json::parse(plan_to_text(sample_plan()));
  j["layers"][1]["passes"][0]["chip_split"] = "pipeline";
  EXPECT_EQ(error_of(j.dump()),
            "p.json: /layers/1/passes/0/chip_split: must be one of data, model, data_x_model_y, model_x_data_y "
            "(got \"pipeline\")");
  j = nlohmann::json::parse(plan_to_text(sample_plan()));
  j["layers"][0]["levels"][0]["ratio"] = 1.5;
  EXPECT_EQ(error_of(j.dump()), "p.json: /layers/0/levels/0/ratio: must be in [0, 1] (got 1.5)");
}
