#include <nlohmann/json.hpp>
#include <gtest/gtest.h>

#include "sim/common/error.hpp"
#include "sim/plan/json_reader.hpp"
#include "sim/plan/plan_io.hpp"

using namespace partsim::plan;

namespace {
Plan sample_plan() {
  Plan p;
  p.strategy = "accpar";
  p.options = {{"levels", "2"}, {"ratio", "level"}};
  p.seed = 42;
  p.tool_version = "0.1.0";
  p.config = {"tpu_v3_128", "0123456789abcdef", "configs/tpu_v3_128.yaml"};
  p.workload = {"alexnet", 512, Mode::training};
  p.predicted_iteration_s = 1.25;
  // The fullest device's use, the settings and every device's (they differ): 1e8 + 1e8 + 4e8 + 1e8 +
  // 0 optimizer (inference-like numbers are fine here; the reader does not re-derive them).
  MemoryUse memory;
  memory.per_device_bytes = 7e8;
  memory.capacity_bytes = 8e9;
  memory.weights_bytes = 1e8;
  memory.gradients_bytes = 1e8;
  memory.activations_bytes = 4e8;
  memory.working_bytes = 1e8;
  memory.device = "d3";
  memory.settings = MemorySettings{Optimizer::momentum, TrainingPrecision::mixed, false};
  MemoryUse other = memory;
  other.settings.reset();
  other.device = "d1";
  other.per_device_bytes = 9e9;  // over its capacity
  memory.devices = {memory, other};
  memory.devices[0].settings.reset();
  p.memory = memory;
  LayerPlan conv;
  conv.name = "conv1";
  conv.sharding = {{3, 1, 2, 0}, {{ShardDim::batch, 2, {0.3, 0.7}, {}}, {ShardDim::out_channels, 2, {}, {}}}};
  conv.predicted = {0.5, 0.4, 0.1, {{"inter_layer_s", 0.04}, {"intra_layer_s", 0.06}}};
  *conv.family = {{"levels", {{{"type", "I"}, {"ratio", 0.3}}}}};
  LayerPlan fc;
  fc.name = "fc1";
  fc.sharding = {{}, {{ShardDim::in_channels, 4, {}, {3, 1, 1, 1}}}};
  fc.predicted = {0.75, 0.5, 0.25, {}};
  fc.passes = {{Pass::fwd, {0.25, 0.2, 0.05, {}}}, {Pass::bwd, {0.5, 0.3, 0.2, {{"relayout_s", 0.1}}}}};
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

// A memory object written before optimizer_bytes and fits existed still reads (optimizer 0); a fits
// that contradicts the numbers is refused with its path.
TEST(PlanIo, MemoryOfOlderPlansAndAContradictingFits) {
  nlohmann::json j = nlohmann::json::parse(plan_to_text(sample_plan()));
  j["memory"] = {{"per_device_bytes", 7e8}, {"capacity_bytes", 8e9},     {"weights_bytes", 1e8},
                 {"gradients_bytes", 1e8},  {"activations_bytes", 4e8}, {"working_bytes", 1e8}};
  const Plan old = plan_from_json(j, "p.json");
  ASSERT_TRUE(old.memory.has_value());
  EXPECT_EQ(old.memory->optimizer_bytes, 0.0);
  EXPECT_FALSE(old.memory->settings.has_value());
  j["memory"]["fits"] = false;
  EXPECT_EQ(error_of(j.dump()), "p.json: /memory/fits: says false but per_device_bytes is within capacity_bytes");
}

TEST(PlanIo, RoundTripsEveryField) {
  const Plan p = sample_plan();
  const std::string text = plan_to_text(p);
  const Plan q = plan_from_json(nlohmann::json::parse(text), "p.json");
  EXPECT_EQ(plan_to_text(q), text);  // byte-identical after a round trip
  ASSERT_EQ(q.layers.size(), 2u);
  EXPECT_EQ(q.options.at("levels"), "2");
  EXPECT_EQ(*q.seed, 42u);
  EXPECT_EQ(q.layers[0].sharding, p.layers[0].sharding);
  EXPECT_EQ(q.layers[1].sharding.splits[0].sizes, (std::vector<int>{3, 1, 1, 1}));
  EXPECT_EQ((*q.layers[0].family)["levels"][0]["type"], "I");
  ASSERT_EQ(q.layers[1].passes.size(), 2u);
  EXPECT_EQ(q.layers[1].passes[1].pass, Pass::bwd);
  EXPECT_DOUBLE_EQ(q.layers[1].passes[1].cost.breakdown.at("relayout_s"), 0.1);
  EXPECT_DOUBLE_EQ(q.layers[0].predicted.breakdown.at("intra_layer_s"), 0.06);
  ASSERT_TRUE(q.memory.has_value());
  EXPECT_DOUBLE_EQ(q.memory->activations_bytes, 4e8);
  EXPECT_EQ(q.memory->device, "d3");
  ASSERT_TRUE(q.memory->settings.has_value());
  EXPECT_EQ(q.memory->settings->optimizer, Optimizer::momentum);
  EXPECT_FALSE(q.memory->settings->fp32_main_gradients);
  ASSERT_EQ(q.memory->devices.size(), 2u);
  EXPECT_FALSE(q.memory->devices[1].fits());
  const nlohmann::json memory_json = nlohmann::json::parse(text).at("memory");
  EXPECT_EQ(memory_json.at("fits"), true);
  EXPECT_EQ(memory_json.at("devices").at(1).at("fits"), false);
  EXPECT_EQ(memory_json.at("settings").at("precision"), "mixed");
  // Optional: a plan without them reads back without them.
  Plan bare = sample_plan();
  bare.memory.reset();
  bare.seed.reset();
  const Plan r = plan_from_json(nlohmann::json::parse(plan_to_text(bare)), "p.json");
  EXPECT_FALSE(r.memory.has_value());
  EXPECT_FALSE(r.seed.has_value());
  // The lowering's schedule directives, written only when one differs from its default.
  Plan scheduled = sample_plan();
  scheduled.schedule.gradient_sync_order = GradientSyncOrder::in_order;
  scheduled.schedule.gradient_bucket_bytes = 25e6;
  scheduled.schedule.gradient_sync_algorithm = GradientSyncAlgorithm::parameter_server;
  scheduled.schedule.redistribution = partsim::plan::Redistribution::collective;
  const nlohmann::json written = nlohmann::json::parse(plan_to_text(scheduled));
  EXPECT_EQ(written.at("schedule").at("gradient_sync_order"), "in_order");
  EXPECT_EQ(written.at("schedule").at("gradient_sync_algorithm"), "parameter_server");
  EXPECT_EQ(written.at("schedule").at("gradient_bucket_bytes"), 25e6);
  EXPECT_EQ(written.at("schedule").at("redistribution"), "collective");
  EXPECT_EQ(plan_from_json(written, "p.json").schedule, scheduled.schedule);
}

TEST(PlanIo, RejectsBadValuesAndUnknownKeysNamingThePath) {
  const auto sample = [] { return nlohmann::json::parse(plan_to_text(sample_plan())); };
  nlohmann::json j = sample();
  j["layers"][0]["sharding"]["splits"][0]["dim"] = "depth";
  EXPECT_EQ(error_of(j.dump()),
            "p.json: /layers/0/sharding/splits/0/dim: must be one of batch, out_channels, in_channels, height, width, "
            "sequence (got \"depth\")");
  j = sample();
  j["workload"].erase("batch");
  EXPECT_EQ(error_of(j.dump()), "p.json: /workload/batch: missing required key");
  j = sample();
  j["layers"][1]["levels"] = nlohmann::json::array();  // schema 1's key: unknown in schema 2
  EXPECT_EQ(error_of(j.dump()), "p.json: /layers/1/levels: unknown key (allowed: name, sharding, predicted, passes, family)");
  j = sample();
  j["layers"][1]["passes"]["fwd"]["total"] = 1;
  EXPECT_EQ(error_of(j.dump()),
            "p.json: /layers/1/passes/fwd/total: unknown key (allowed: total_s, compute_s, comm_s, breakdown)");
  j = sample();
  j["layers"][1]["passes"]["all"] = j["layers"][1]["passes"]["fwd"];
  EXPECT_EQ(error_of(j.dump()), "p.json: /layers/1/passes/all: unknown key (allowed: fwd, bwd, upd)");
  j = sample();
  j["layers"][0]["sharding"]["devices"][0] = -1;
  EXPECT_EQ(error_of(j.dump()), "p.json: /layers/0/sharding/devices/0: must be in [0, 1073741824] (got -1)");
  j = sample();
  j["schedule"] = {{"gradient_sync_order", "fifo"}};
  EXPECT_EQ(error_of(j.dump()),
            "p.json: /schedule/gradient_sync_order: must be one of concurrent, in_order (got \"fifo\")");
  j = sample();
  j["schedule"] = {{"gradient_sync_algorithm", "tree"}};
  EXPECT_EQ(error_of(j.dump()),
            "p.json: /schedule/gradient_sync_algorithm: must be one of all_reduce, parameter_server (got \"tree\")");
  j = sample();
  j["schedule"] = {{"redistribution", "all_to_all"}};
  EXPECT_EQ(error_of(j.dump()),
            "p.json: /schedule/redistribution: must be one of point_to_point, collective (got \"all_to_all\")");
  j = sample();
  j["schedule"] = {{"gradient_bucket_bytes", -1}};
  EXPECT_NE(error_of(j.dump()).find("p.json: /schedule/gradient_bucket_bytes: "), std::string::npos);
  j = sample();
  j["options"]["levels"] = 2;
  EXPECT_EQ(error_of(j.dump()), "p.json: /options/levels: expected a string (got 2)");
}

TEST(PlanIo, RefusesSchemaOneWithHowToRegenerate) {
  nlohmann::json j = nlohmann::json::parse(plan_to_text(sample_plan()));
  j["schema"] = 1;
  j["layers"][0]["levels"] = nlohmann::json::array();
  const std::string e = error_of(j.dump());
  EXPECT_NE(e.find("p.json: /schema: plan schema 1 is not read by this partsim (it reads schema 2)"), std::string::npos)
      << e;
  EXPECT_NE(e.find("simplan --config C --workload W --batch B --strategy S -o plan.json"), std::string::npos) << e;
}

TEST(JsonReader, OnlyKeysNamesTheAllowedOnes) {
  const nlohmann::json j = {{"a", 1}, {"b", 2}};
  const JsonReader r(j, "/x", "f.json");
  EXPECT_NO_THROW(r.only_keys({"a", "b", "c"}));
  try {
    r.only_keys({"a"});
    FAIL() << "no error";
  } catch (const partsim::InputError& e) {
    EXPECT_STREQ(e.what(), "f.json: /x/b: unknown key (allowed: a)");
  }
}
