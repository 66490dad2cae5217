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
      EXPECT_EQ(*parse(format(v, d), d), v) << format(v, d);
    }
  }
}

TEST(Units, ParsingIsCorrectlyRoundedSoDumpsReadBackExactly) {
  // 0.1 GiB/s = 107374182.4 B/s; written with a decimal prefix it must still read back bit for bit.
  const double v = *parse("0.1GiB/s", Dimension::bandwidth);
  EXPECT_EQ(format(v, Dimension::bandwidth), "107.3741824MB/s");
  EXPECT_EQ(*parse(format(v, Dimension::bandwidth), Dimension::bandwidth), v);
  // Exponents in the number combine with the prefix: 1.5e3 GB/s = 1.5e12 B/s exactly.
  EXPECT_EQ(*parse("1.5e3GB/s", Dimension::bandwidth), 1.5e12);
  EXPECT_EQ(*parse("2.5e-1us", Dimension::time), 2.5e-7);
  // A sweep of awkward values: every one round-trips exactly.
  double x = 1.0;
  for (int i = 0; i < 2000; ++i) {
    x = x * 1.0137 + 1e-3;
    for (auto d : {Dimension::bytes, Dimension::bandwidth, Dimension::time, Dimension::frequency, Dimension::flop_rate}) {
      const double value = d == Dimension::time ? x * 1e-9 : x * 1e3;
      ASSERT_EQ(*parse(format(value, d), d), value) << format(value, d);
    }
  }
}
