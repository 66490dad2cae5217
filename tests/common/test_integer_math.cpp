#include <gtest/gtest.h>

#include "sim/common/integer_math.hpp"

using partsim::ceil_div;

TEST(CeilDiv, RoundsUpByHand) {
  EXPECT_EQ(ceil_div(0, 4), 0);
  EXPECT_EQ(ceil_div(1, 4), 1);
  EXPECT_EQ(ceil_div(4, 4), 1);
  EXPECT_EQ(ceil_div(5, 4), 2);
  EXPECT_EQ(ceil_div(7, 2), 4);
  EXPECT_EQ(ceil_div(64, 8), 8);
  EXPECT_EQ(ceil_div(65, 8), 9);
  EXPECT_EQ(ceil_div(224 * 224, 3), 16726);  // 50176 / 3 = 16725.33
  EXPECT_EQ(ceil_div(3000000000LL, 7), 428571429);  // beyond 32 bits
}

TEST(CeilDiv, ADivisorOfOneOrLessDividesNothing) {
  EXPECT_EQ(ceil_div(5, 1), 5);
  EXPECT_EQ(ceil_div(5, 0), 5);   // an unset factor: no division by zero
  EXPECT_EQ(ceil_div(5, -3), 5);
  EXPECT_EQ(ceil_div(0, 0), 0);
}

TEST(CeilDiv, IsAConstantExpression) {
  static_assert(ceil_div(10, 3) == 4);
  static_assert(ceil_div(9, 3) == 3);
}
