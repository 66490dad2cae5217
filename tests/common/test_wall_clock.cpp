#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "sim/common/wall_clock.hpp"

TEST(WallClock, SecondsSinceCountsForward) {
  const auto start = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  const double s = partsim::seconds_since(start);
  EXPECT_GE(s, 0.002);
  EXPECT_LT(s, 60.0);
}
