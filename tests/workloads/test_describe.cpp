#include <nlohmann/json.hpp>
#include <gtest/gtest.h>

#include "sim/common/error.hpp"
#include "workloads/describe.hpp"
#include "workloads/zoo.hpp"

using namespace partsim::workloads;

// LeNet-5 forward MACs per image, by hand: conv1 6*28*28*(1*25) = 117,600; conv2 16*10*10*(6*25)
// = 240,000; fc1 400*120 = 48,000; fc2 120*84 = 10,080; fc3 84*10 = 840; total 416,520.
// Parameters: 156 + 2,416 + 48,120 + 10,164 + 850 = 61,706.
TEST(Describe, JsonFields) {
  const Graph g = build_zoo("lenet", 2);
  const nlohmann::json j = describe_json(g, 2);
  EXPECT_EQ(j["workload"], "lenet");
  EXPECT_EQ(j["batch"], 2);
  EXPECT_EQ(j["params"], 61'706);
  EXPECT_DOUBLE_EQ(j["macs_fwd"].get<double>(), 2 * 416'520.0);
  ASSERT_EQ(j["layers"].size(), g.size());
  const auto& conv1 = j["layers"][1];
  EXPECT_EQ(conv1["name"], "conv1");
  EXPECT_EQ(conv1["kind"], "conv");
  EXPECT_EQ(conv1["output_shape"], nlohmann::json({6, 28, 28}));
  // No notation views given: no paper's block (they come from the families' views).
  EXPECT_FALSE(conv1.contains("accpar"));
  EXPECT_FALSE(conv1.contains("dsm"));
  EXPECT_FALSE(conv1.contains("deepa"));
  // activation bytes at 2 bytes/element: 2 images * 6*28*28 * 2 = 18,816.
  EXPECT_DOUBLE_EQ(conv1["activation_bytes"].get<double>(), 18'816.0);
}

// A view made here: every layer gets one block under the view's name, from the view's function.
TEST(Describe, JsonWritesOneBlockPerNotationView) {
  const Graph g = build_zoo("lenet", 2);
  const NotationView kernel_view{"test_view", [](const Layer& layer) -> nlohmann::json {
                                   return {{"k", layer.q.kernel_positions}, {"name", layer.name}};
                                 }};
  const nlohmann::json j = describe_json(g, 4, {kernel_view});
  ASSERT_EQ(j["layers"].size(), g.size());
  for (const auto& layer : j["layers"]) ASSERT_TRUE(layer.contains("test_view")) << layer["name"];
  const auto& conv1 = j["layers"][1];
  EXPECT_EQ(conv1["test_view"]["k"], 25);  // conv1's 5x5 kernel
  EXPECT_EQ(conv1["test_view"]["name"], "conv1");
  EXPECT_FALSE(conv1.contains("accpar"));
  // A view named like one of the layer's own keys would overwrite it: a programming error.
  const NotationView clash{"params", [](const Layer&) -> nlohmann::json { return 0; }};
  EXPECT_THROW(describe_json(g, 4, {clash}), partsim::Error);
  EXPECT_THROW(describe_json(g, 4, {kernel_view, kernel_view}), partsim::Error);  // two blocks, one name
}

TEST(Describe, TableHasARowPerLayerAndTotals) {
  const Graph g = build_zoo("lenet", 1);
  const std::string table = describe_table(g);
  EXPECT_NE(table.find("conv2"), std::string::npos);
  EXPECT_NE(table.find("\ntotal "), std::string::npos);
  EXPECT_NE(table.find("61.7k"), std::string::npos);
  std::size_t lines = 0;
  for (char c : table) lines += c == '\n';
  EXPECT_EQ(lines, g.size() + 5);  // title, description, header, layers, total, summary
  EXPECT_EQ(format_count(0), "0");
  EXPECT_EQ(format_count(1234567), "1.23M");
  EXPECT_EQ(format_count(15.47e9), "15.5G");
  EXPECT_NE(list_table().find("bert_large"), std::string::npos);
}
