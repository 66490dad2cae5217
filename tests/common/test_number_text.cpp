#include <gtest/gtest.h>

#include "sim/common/number_text.hpp"

using partsim::fixed;
using partsim::ms_number;
using partsim::ms_text;
using partsim::MsDigits;

TEST(NumberText, FixedDropsTheSignOfZero) {
  EXPECT_EQ(fixed(1.25, 1), "1.2");  // printf's round-half-even on the binary value
  EXPECT_EQ(fixed(3.14159, 3), "3.142");
  EXPECT_EQ(fixed(-2.5, 2), "-2.50");
  EXPECT_EQ(fixed(-0.0001, 2), "0.00");
  EXPECT_EQ(fixed(-0.0, 1), "0.0");
}

TEST(NumberText, MillisecondsAfterThePoint) {
  EXPECT_EQ(ms_number(0.0123456, 3), "12.346");
  EXPECT_EQ(ms_number(0.0, 3), "0.000");
  EXPECT_EQ(ms_number(-1e-9, 3), "0.000");
  EXPECT_EQ(ms_text(0.5, 4), "500.0000 ms");
  EXPECT_EQ(ms_text(1.5e-6, 4), "0.0015 ms");
}

TEST(NumberText, MillisecondsSignificantDigits) {
  EXPECT_EQ(ms_text(0.0123456, 3, MsDigits::significant), "12.3 ms");
  EXPECT_EQ(ms_text(2.5, 3, MsDigits::significant), "2.5e+03 ms");
  EXPECT_EQ(ms_text(1.234e-7, 3, MsDigits::significant), "0.000123 ms");
  EXPECT_EQ(ms_text(-0.004, 3, MsDigits::significant), "-4 ms");
}
