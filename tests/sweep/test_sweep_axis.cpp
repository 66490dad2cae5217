#include <gtest/gtest.h>

#include "sim/common/error.hpp"
#include "sim/sweep/sweep_axis.hpp"

using namespace partsim::sweep;

TEST(SweepAxis, ListsAndRanges) {
  auto list = parse_vary("system.torus.bandwidth[0]=30GB/s,60GB/s");
  EXPECT_EQ(list.key, "system.torus.bandwidth[0]");
  EXPECT_EQ(list.kind, AxisKind::platform);
  EXPECT_EQ(list.values, (std::vector<std::string>{"30GB/s", "60GB/s"}));

  // 30 * 2^i up to 240: 30, 60, 120, 240 (the example).
  EXPECT_EQ(parse_vary("system.k=30GB/s..240GB/s*2").values,
            (std::vector<std::string>{"30GB/s", "60GB/s", "120GB/s", "240GB/s"}));
  // Arithmetic: 0.5, 1, 1.5, ..., 4 MiB (seed 003 Fig. 15's scratchpad range).
  auto spad = parse_vary("system.k=0.5MiB..4MiB+0.5MiB").values;
  ASSERT_EQ(spad.size(), 8u);
  EXPECT_EQ(spad.front(), "0.5MiB");
  EXPECT_EQ(spad.back(), "4MiB");
  // The end is the start's unit when left out; 3 does not reach past 10 by *3 beyond 9.
  EXPECT_EQ(parse_vary("system.k=1..10*3").values, (std::vector<std::string>{"1", "3", "9"}));
  // Ends in different units of one kind: in the start's unit (4 MiB = 4096 KiB; 1 us = 1000 ns).
  EXPECT_EQ(parse_vary("system.k=512KiB..4MiB*2").values,
            (std::vector<std::string>{"512KiB", "1024KiB", "2048KiB", "4096KiB"}));
  EXPECT_EQ(parse_vary("system.k=1ns..1us*10").values, (std::vector<std::string>{"1ns", "10ns", "100ns", "1000ns"}));
  // A step in another unit of the kind: 0.5 MiB + 512 KiB steps up to 2 MiB = 0.5, 1, 1.5, 2 MiB.
  EXPECT_EQ(parse_vary("system.k=0.5MiB..2MiB+512KiB").values,
            (std::vector<std::string>{"0.5MiB", "1MiB", "1.5MiB", "2MiB"}));
}

TEST(SweepAxis, RejectsMalformedArguments) {
  for (const char* bad : {"noequals", "=1,2", "system.k=", "system.k=1,,2", "system.k=1..8", "system.k=1GB/s..8MB/s*2",
                          "system.k=1GB/s..8MiB*2", "system.k=1MiB..8MiB+1ns", "system.k=1MiB..8MiB*2KiB",
                          "system.k=8..1*2", "system.k=1..8*1", "system.k=0..8*2", "system.k=1..8+0", "system.k=a..8*2",
                          "system.k=1..1e9+1e-3", "nosuchkey=1,2", "option.=1", "Batch=1"}) {
    EXPECT_THROW(parse_vary(bad), partsim::InputError) << bad;
  }
}

TEST(SweepAxis, CartesianProductLastAxisFastest) {
  auto points = sweep_points({parse_vary("batch=1,2"), parse_vary("workload=x,y,z")});
  ASSERT_EQ(points.size(), 6u);
  EXPECT_EQ(points[1], (SweepPoint{{"batch", "1"}, {"workload", "y"}}));
  EXPECT_EQ(points[3], (SweepPoint{{"batch", "2"}, {"workload", "x"}}));
  EXPECT_TRUE(sweep_points({}).empty());
}

TEST(SweepAxis, KindsOfAxes) {
  EXPECT_EQ(axis_kind("batch"), AxisKind::batch);
  EXPECT_EQ(axis_kind("workload"), AxisKind::workload);
  EXPECT_EQ(axis_kind("strategy"), AxisKind::strategy);
  EXPECT_EQ(axis_kind("option.opt"), AxisKind::strategy_option);
  EXPECT_EQ(option_name("option.opt"), "opt");
  EXPECT_EQ(axis_kind("system.device_types.dsm_chip.core.scratchpad"), AxisKind::platform);
  // A batch range: 8 * 2^i up to 64.
  EXPECT_EQ(parse_vary("batch=8..64*2").values, (std::vector<std::string>{"8", "16", "32", "64"}));
  EXPECT_EQ(parse_vary("strategy=dp,accpar").kind, AxisKind::strategy);
}

// Issue 41 item 2: several keys in lock-step. Two uplinks with one value each time (2 points, not
// 4), then tp and pp with a value per key ("2|4": tp 2, pp 4), times a batch axis of 2: 3 x 2 = 6
// points, the batch fastest; the lock-step pair moves together.
TEST(SweepAxis, LockStepKeysMoveTogether) {
  const auto links = parse_vary_group("system.graph.links[0].bandwidth,system.graph.links[1].bandwidth=10GB/s,20GB/s");
  ASSERT_EQ(links.size(), 2u);
  EXPECT_FALSE(links[0].with_previous);
  EXPECT_TRUE(links[1].with_previous);
  EXPECT_EQ(sweep_points(links), (std::vector<SweepPoint>{
                                     {{"system.graph.links[0].bandwidth", "10GB/s"}, {"system.graph.links[1].bandwidth", "10GB/s"}},
                                     {{"system.graph.links[0].bandwidth", "20GB/s"}, {"system.graph.links[1].bandwidth", "20GB/s"}}}));
  std::vector<SweepAxis> axes = parse_vary_group("option.tp,option.pp=2|4,4|2,8|1");
  EXPECT_EQ(axes[0].kind, AxisKind::strategy_option);
  EXPECT_EQ(axes[1].values, (std::vector<std::string>{"4", "2", "1"}));
  axes.push_back(parse_vary("batch=8,16"));
  const auto points = sweep_points(axes);
  ASSERT_EQ(points.size(), 6u);
  EXPECT_EQ(points[1], (SweepPoint{{"option.tp", "2"}, {"option.pp", "4"}, {"batch", "16"}}));
  EXPECT_EQ(points[4], (SweepPoint{{"option.tp", "8"}, {"option.pp", "1"}, {"batch", "8"}}));
  // A range gives every key the same values; one key alone is parse_vary's axis.
  const auto range = parse_vary_group("option.tp,option.pp=1..4*2");
  EXPECT_EQ(range[1].values, (std::vector<std::string>{"1", "2", "4"}));
  EXPECT_EQ(parse_vary_group("batch=1,2").size(), 1u);
  EXPECT_THROW(parse_vary_group("option.tp,option.pp=2|4|8"), partsim::InputError);
  EXPECT_THROW(parse_vary_group("option.tp,option.tp=2"), partsim::InputError);
  EXPECT_THROW(parse_vary_group("option.tp,option.pp=2|"), partsim::InputError);
}
