// The search's menu of layouts (sim/planners/search/layout_menu.hpp), counted by hand.
#include <gtest/gtest.h>

#include "sim/planners/search/layout_menu.hpp"
#include "tests/lowering_sharding/two_fc.hpp"

namespace partsim::search {
namespace {

std::vector<std::string> names(const std::vector<Layout>& ls) {
  std::vector<std::string> out;
  for (const auto& l : ls) out.push_back(l.name());
  return out;
}

TEST(SearchLayouts, FourDevicesEveryKind) {
  // 1-D: 5 dimensions; 2-D: 2 x 2 with batch outermost, three pairs; subsets: halves (batch, out)
  // and single devices (batch only: one device has one layout).
  const std::vector<std::string> expected{
      "batch4", "out4", "in4", "height4", "width4", "batch2xout2", "batch2xin2", "batch2xheight2",
      "dev[0,2)batch2", "dev[0,2)out2", "dev[2,4)batch2", "dev[2,4)out2",
      "dev[0,1)batch1", "dev[1,2)batch1", "dev[2,3)batch1", "dev[3,4)batch1"};
  EXPECT_EQ(names(layouts(4, {})), expected);
}

TEST(SearchLayouts, KindsFilterTheMenu) {
  MenuKinds accpar{true, true, false, true, false};
  EXPECT_EQ(names(layouts(4, accpar)), (std::vector<std::string>{"batch4", "out4", "in4", "batch2xout2", "batch2xin2"}));
  MenuKinds spatial{false, false, true, false, false};
  EXPECT_EQ(names(layouts(6, spatial)), (std::vector<std::string>{"height6", "width6"}));
}

TEST(SearchLayouts, RealizeRefusesWhatDoesNotFit) {
  const workloads::Graph g = fixtures::two_fc();  // batch 64, 1024 features, no height or width
  const workloads::Layer& fc1 = g.layers()[1];
  const workloads::Layer& x = g.layers()[0];
  const auto all = layouts(4, {});
  auto find = [&](const std::string& n) {
    for (const auto& l : all)
      if (l.name() == n) return l;
    throw std::runtime_error(n);
  };
  EXPECT_FALSE(realize(find("height4"), fc1, 64));  // height 1 < 4 parts
  EXPECT_FALSE(realize(find("in4"), x, 64));        // the input has one channel axis
  const auto s = realize(find("batch2xin2"), fc1, 64);
  ASSERT_TRUE(s);
  EXPECT_EQ(*s, plan::mesh_sharding({0, 1, 2, 3}, {{plan::ShardDim::batch, 2}, {plan::ShardDim::in_channels, 2}}));
  const auto one = realize(find("dev[2,3)batch1"), fc1, 64);
  ASSERT_TRUE(one);
  EXPECT_EQ(one->devices, std::vector<int>{2});
  EXPECT_TRUE(one->splits.empty());
  EXPECT_FALSE(realize(find("batch4"), fc1, 2));  // a minibatch of 2 over 4 devices
}

}  // namespace
}  // namespace partsim::search
