#include <gtest/gtest.h>

#include "sim/sweep/si_quantity.hpp"

using namespace partsim::sweep;

// The mixed-unit list 512KiB, 1MiB, 2MiB must plot increasing: 512 x 1024 = 524288,
// 1024^2 = 1048576, 2 x 1024^2 = 2097152 bytes.
TEST(SiQuantity, SizesInMixedUnitsOnOneScale) {
  EXPECT_EQ(si_text("512KiB"), "524288");
  EXPECT_EQ(si_text("1MiB"), "1048576");
  EXPECT_EQ(si_text("2MiB"), "2097152");
  EXPECT_EQ(si_text("8GiB"), "8589934592");  // 8 x 1024^3
  EXPECT_EQ(si_text("1MB"), "1000000");
}

TEST(SiQuantity, EveryDimensionInItsBaseUnit) {
  EXPECT_EQ(si_text("30GB/s"), "30000000000");   // 30 x 10^9 bytes/s
  EXPECT_EQ(si_text("8Gb/s"), "1000000000");     // 8 x 10^9 bits/s = 10^9 bytes/s
  EXPECT_EQ(si_text("500ns"), "5e-07");          // 500 x 10^-9 s
  EXPECT_EQ(si_text("2GHz"), "2000000000");
  EXPECT_EQ(si_text("180TFLOP/s"), "180000000000000");  // 1.8 x 10^14
  EXPECT_EQ(si_text("16"), "16");                // a count: the number itself
  EXPECT_EQ(si_text("0.1"), "0.1");              // shortest text that reads back
}

TEST(SiQuantity, NamesAreNoNumber) {
  for (const char* name : {"all", "vgg16", "true", "1XB", "", "[80GB/s, 40GB/s]"}) {
    EXPECT_FALSE(si_quantity(name).has_value()) << name;
    EXPECT_EQ(si_text(name), "") << name;
  }
}
