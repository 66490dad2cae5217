// Shardings: boxes computed by hand from the rules in sim/plan/sharding.hpp.
#include <gtest/gtest.h>

#include "sim/common/error.hpp"
#include "sim/plan/sharding.hpp"

using namespace partsim::plan;

namespace {
std::string error_of(const Sharding& s, int devices) {
  try {
    validate(s, devices);
  } catch (const partsim::InputError& e) {
    return e.what();
  }
  return "<no error>";
}
}  // namespace

TEST(Sharding, MeshCutsDevicesRowMajorAndRangesEvenly) {
  // 2 x 2 mesh over batch 10 and out_channels 6: device order 0..3, batch outermost.
  const Sharding s = mesh_sharding({0, 1, 2, 3}, {{ShardDim::batch, 2}, {ShardDim::out_channels, 2}});
  const LoopExtent e{10, 6, 3, 4, 4};
  const auto boxes = shard_boxes(s, e, 4);
  ASSERT_EQ(boxes.size(), 4u);
  EXPECT_EQ(boxes[0].device, 0);
  EXPECT_EQ(boxes[0].box.batch, (Range{0, 5}));
  EXPECT_EQ(boxes[0].box.out_channels, (Range{0, 3}));
  EXPECT_EQ(boxes[1].box.batch, (Range{0, 5}));
  EXPECT_EQ(boxes[1].box.out_channels, (Range{3, 6}));
  EXPECT_EQ(boxes[3].box.batch, (Range{5, 10}));
  EXPECT_EQ(boxes[3].box.in_channels, (Range{0, 3}));  // not split: whole
  EXPECT_DOUBLE_EQ(boxes[3].box.fraction(e), 0.25);
}

TEST(Sharding, SharesAndUnevenChunksFollowTheHierarchy) {
  // 3 devices, one split of batch 100 with shares 0.6 / 0.4: the first chunk has 2 devices (as
  // equal as possible, earlier larger), the second 1; then out_channels 8 in two: only the 2-device
  // chunk splits (a chunk of one device keeps its box).
  Sharding s{{7, 4, 5}, {{ShardDim::batch, 2, {0.6, 0.4}, {}}, {ShardDim::out_channels, 2, {}, {}}}};
  EXPECT_EQ(error_of(s, 8), "<no error>");
  const auto boxes = shard_boxes(s, LoopExtent{100, 8, 1, 1, 1}, 8);
  ASSERT_EQ(boxes.size(), 3u);
  EXPECT_EQ(boxes[0].device, 7);
  EXPECT_EQ(boxes[0].box.batch, (Range{0, 60}));
  EXPECT_EQ(boxes[0].box.out_channels, (Range{0, 4}));
  EXPECT_EQ(boxes[1].device, 4);
  EXPECT_EQ(boxes[1].box.out_channels, (Range{4, 8}));
  EXPECT_EQ(boxes[2].device, 5);
  EXPECT_EQ(boxes[2].box.batch, (Range{60, 100}));
  EXPECT_EQ(boxes[2].box.out_channels, (Range{0, 8}));
  // Explicit sizes: 1 + 2.
  s.splits[0].sizes = {1, 2};
  const auto sized = shard_boxes(s, LoopExtent{100, 8, 1, 1, 1}, 8);
  EXPECT_EQ(sized[0].box.out_channels, (Range{0, 8}));
  EXPECT_EQ(sized[1].box.batch, (Range{60, 100}));
  EXPECT_EQ(sized[2].box.out_channels, (Range{4, 8}));
}

TEST(Sharding, SequenceIsTheHeightAxis) {
  const Sharding s = mesh_sharding({}, {{ShardDim::sequence, 2}});
  const auto boxes = shard_boxes(s, LoopExtent{1, 1, 1, 10, 1}, 2);
  EXPECT_EQ(boxes[1].box.height, (Range{5, 10}));
  const Sharding both = mesh_sharding({0, 1, 2, 3}, {{ShardDim::sequence, 2}, {ShardDim::height, 2}});
  EXPECT_EQ(error_of(both, 4), "height and sequence name the same axis: split it under one name");
}

TEST(Sharding, ValidateNamesWhatIsWrong) {
  EXPECT_EQ(error_of({{0, 9}, {{ShardDim::batch, 2, {}, {}}}}, 4),
            "device 9 does not exist (the platform has 4 devices: 0..3)");
  EXPECT_EQ(error_of({{1, 1}, {{ShardDim::batch, 2, {}, {}}}}, 4), "device 1 is listed twice");
  EXPECT_EQ(error_of({{}, {{ShardDim::batch, 2, {}, {}}}}, 4),
            "the splits leave 2 devices on one box (the parts of the splits must cut the device list down to one "
            "device per box)");
  EXPECT_EQ(error_of({{0, 1}, {{ShardDim::batch, 2, {0.5, 0.6}, {}}}}, 4),
            "split 0 (batch): shares must add up to 1 (got 1.100000)");
  EXPECT_EQ(error_of({{0, 1}, {{ShardDim::batch, 3, {}, {}}}}, 4), "split 0 (batch): cannot cut 2 devices into 3 parts");
  EXPECT_EQ(error_of({{0, 1, 2}, {{ShardDim::batch, 2, {}, {1, 1}}}}, 4),
            "split 0 (batch): sizes add up to 2 devices, the chunk has 3");
  EXPECT_EQ(error_of({{0}, {}}, 4), "<no error>");  // everything on one device
}
