#include <gtest/gtest.h>

#include "sim/common/error.hpp"
#include "sim/sweep/work_split.hpp"

using namespace partsim::sweep;

// 10 points in 4 shards: floor(i*10/4) = 0, 2, 5, 7, 10 -> blocks of 2, 3, 2, 3 points.
TEST(WorkSplit, ShardsAreContiguousBlocksCoveringEveryPointOnce) {
  const size_t expected_begin[] = {0, 2, 5, 7};
  const size_t expected_end[] = {2, 5, 7, 10};
  for (size_t i = 0; i < 4; ++i) {
    const auto range = shard_range(10, {i, 4});
    EXPECT_EQ(range.begin, expected_begin[i]);
    EXPECT_EQ(range.end, expected_end[i]);
  }
  // More shards than points: some are empty, none overlaps.
  EXPECT_EQ(shard_range(2, {0, 3}).size(), 0u);
  EXPECT_EQ(shard_range(2, {1, 3}).size(), 1u);
  EXPECT_EQ(shard_range(2, {2, 3}).size(), 1u);
}

// Points 5..9 dealt to 2 ranks: rank 0 gets 5, 7, 9 and rank 1 gets 6, 8.
TEST(WorkSplit, RanksDealTheBlockRoundRobin) {
  EXPECT_EQ(rank_points({5, 10}, 0, 2), (std::vector<size_t>{5, 7, 9}));
  EXPECT_EQ(rank_points({5, 10}, 1, 2), (std::vector<size_t>{6, 8}));
  EXPECT_TRUE(rank_points({5, 10}, 7, 8).empty());
}

TEST(WorkSplit, ParsesShards) {
  const Shard s = parse_shard("3/8");
  EXPECT_EQ(s.index, 3u);
  EXPECT_EQ(s.count, 8u);
  for (const char* bad : {"3", "8/8", "-1/4", "1/0", "a/b", "1/4x", "/4", "1/", "0/100001"})
    EXPECT_THROW(parse_shard(bad), partsim::InputError) << bad;
}
