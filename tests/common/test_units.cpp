#include <gtest/gtest.h>

#include "sim/common/units.hpp"

using partsim::units::Dimension;
using partsim::units::format;
using partsim::units::parse;

TEST(Units, ParsesTheIssueExamples) {
  EXPECT_DOUBLE_EQ(*parse("80GB/s", Dimension::bandwidth), 80e9);
  EXPECT_DOUBLE_EQ(*parse("8Gb/s", Dimension::bandwidth), 1e9);  // bits
  EXPECT_DOUBLE_EQ(*parse("500ns", Dimension::time), 500e-9);
  EXPECT_DOUBLE_EQ(*parse("2GHz", Dimension::frequency), 2e9);
  EXPECT_DOUBLE_EQ(*parse("1MiB", Dimension::bytes), 1048576.0);
  EXPECT_DOUBLE_EQ(*parse("180TFLOP/s", Dimension::flop_rate), 180e12);
  EXPECT_DOUBLE_EQ(*parse("256 GBps", Dimension::bandwidth), 256e9);
  EXPECT_DOUBLE_EQ(*parse("1.5us", Dimension::time), 1.5e-6);
  EXPECT_DOUBLE_EQ(*parse("8GB", Dimension::bytes), 8e9);
  EXPECT_DOUBLE_EQ(*parse("4", Dimension::count), 4.0);
}

TEST(Units, RejectsMissingOrWrongUnits) {
  std::string error;
  EXPECT_FALSE(parse("80", Dimension::bandwidth, &error));
  EXPECT_NE(error.find("missing unit"), std::string::npos);
  EXPECT_FALSE(parse("80GHz", Dimension::bandwidth, &error));
  EXPECT_NE(error.find("unknown unit 'GHz'"), std::string::npos);
  EXPECT_FALSE(parse("fast", Dimension::time, &error));
  EXPECT_FALSE(parse("1XB", Dimension::bytes, &error));
}

TEST(Units, FormatRoundTrips) {
  EXPECT_EQ(format(80e9, Dimension::bandwidth), "80GB/s");
  EXPECT_EQ(format(500e-9, Dimension::time), "500ns");
  EXPECT_EQ(format(2e9, Dimension::frequency), "2GHz");
  EXPECT_EQ(format(180e12, Dimension::flop_rate), "180TFLOP/s");
  EXPECT_EQ(format(0.8, Dimension::count), "0.8");
  EXPECT_EQ(format(1048576.0, Dimension::bytes), "1MiB");
  EXPECT_EQ(format(8e9, Dimension::bytes), "8GB");
  for (double v : {1048576.0, 123.0, 3.3e-5, 7.5e11}) {
    for (auto d : {Dimension::bytes, Dimension::bandwidth, Dimension::time}) {
      EXPECT_NEAR(*parse(format(v, d), d), v, v * 1e-14);
    }
  }
}
