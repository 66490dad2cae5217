#include <gtest/gtest.h>

#include <cmath>

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
  // Each within its dimension's range (a size of 3.3e-5 bytes is less than a bit, see Bounds*).
  for (double v : {1048576.0, 123.0, 3.3e-1, 7.5e11}) {
    for (auto d : {Dimension::bytes, Dimension::bandwidth}) {
      EXPECT_EQ(parse(format(v, d), d), v) << format(v, d);
    }
  }
  for (double v : {1048.576, 123.0, 3.3e-5, 7.5e-11}) EXPECT_EQ(parse(format(v, Dimension::time), Dimension::time), v);
}

// Bounds: a quantity is 0 or within its dimension's physical range; nothing denormal, infinite or
// NaN gets through, and a binary prefix cannot overflow a value to infinity.
TEST(Units, BoundsRefuseDenormalZeroishHugeAndNonFiniteValues) {
  std::string error;
  EXPECT_FALSE(parse("1e-320GB/s", Dimension::bandwidth, &error));
  EXPECT_EQ(error, "out of range: a bandwidth must be between 1b/s and 1EB/s (got '1e-320GB/s')");
  EXPECT_FALSE(parse("1e306PiB", Dimension::bytes, &error));  // 1e306 * 2^50 is inf as a double
  EXPECT_EQ(error, "out of range: a size must be between 1b and 1EB (got '1e306PiB')");
  EXPECT_FALSE(parse("1e-400GB/s", Dimension::bandwidth, &error));  // underflows a double
  EXPECT_NE(error.find("out of range"), std::string::npos) << error;
  EXPECT_FALSE(parse("1e400GB/s", Dimension::bandwidth, &error));  // overflows one
  EXPECT_NE(error.find("out of range"), std::string::npos) << error;
  EXPECT_FALSE(parse("1e9223372036854775807B", Dimension::bytes, &error));  // the exponent sum would overflow
  EXPECT_FALSE(parse("1e-9223372036854775808s", Dimension::time, &error));
  EXPECT_FALSE(parse("1e99999999999999999999999B", Dimension::bytes, &error));
  for (const char* text : {"nanGB/s", "infGB/s", "-infGB/s", "NaN GB/s", "infinityGB/s", "nan(0x1)GB/s"}) {
    EXPECT_FALSE(parse(text, Dimension::bandwidth, &error)) << text;
  }
  EXPECT_FALSE(parse("0.5ps", Dimension::time, &error));
  EXPECT_EQ(error, "out of range: a time must be between 1ps and 1000000s (got '0.5ps')");
  EXPECT_FALSE(parse("2PHz", Dimension::frequency, &error));
  EXPECT_FALSE(parse("0.5Hz", Dimension::frequency, &error));
  EXPECT_FALSE(parse("2000EFLOP/s", Dimension::flop_rate, &error));
  EXPECT_FALSE(parse("1e16", Dimension::count, &error));
  EXPECT_FALSE(parse("1e-310", Dimension::count, &error));  // denormal
  EXPECT_EQ(error, "out of range: a number must be 0 or a normal double of magnitude at most 9007199254740992 (2^53) "
                   "(got '1e-310')");
  // Negative values out of range are refused by magnitude; the sign is the caller's business.
  EXPECT_FALSE(parse("-1e-320GB/s", Dimension::bandwidth, &error));
  EXPECT_EQ(parse("-3GB/s", Dimension::bandwidth), -3e9);
  // Exactly 0 is a value (a latency may be 0; callers refuse 0 where it makes no sense).
  EXPECT_EQ(parse("0GB/s", Dimension::bandwidth), 0.0);
  EXPECT_EQ(parse("0e999999999s", Dimension::time), 0.0);
  EXPECT_EQ(parse("0", Dimension::count), 0.0);
  // -0 is 0, without a sign that would print as "0s" and read back as +0 (found by fuzz_units).
  EXPECT_FALSE(std::signbit(*parse("-0us", Dimension::time)));
  EXPECT_FALSE(std::signbit(*parse("-0e5GB/s", Dimension::bandwidth)));
  // A denormal that a bit's 1/8 takes to -0 is still out of range, not 0 (found by fuzz_units).
  EXPECT_FALSE(parse("-01e-323b", Dimension::bytes, &error));
  EXPECT_FALSE(parse("1e-323", Dimension::count, &error));
}

TEST(Units, EveryRangeBoundIsAcceptedAndReadsBack) {
  EXPECT_EQ(parse("1b/s", Dimension::bandwidth), 0.125);
  EXPECT_EQ(parse("1EB/s", Dimension::bandwidth), 1e18);
  EXPECT_EQ(parse("1EB", Dimension::bytes), 1e18);
  EXPECT_FALSE(parse("1024PiB", Dimension::bytes));
  EXPECT_EQ(parse("1ps", Dimension::time), 1e-12);
  EXPECT_EQ(parse("1000000s", Dimension::time), 1e6);
  EXPECT_EQ(parse("1PHz", Dimension::frequency), 1e15);
  EXPECT_EQ(parse("1000EFLOP/s", Dimension::flop_rate), 1e21);
  EXPECT_EQ(parse("9007199254740992", Dimension::count), 9007199254740992.0);
  for (auto d : {Dimension::bytes, Dimension::bandwidth, Dimension::time, Dimension::frequency, Dimension::flop_rate,
                 Dimension::count}) {
    const auto r = partsim::units::range(d);
    EXPECT_TRUE(std::isnormal(r.min) && std::isnormal(r.max) && r.min < r.max);
    EXPECT_EQ(parse(format(r.min, d), d), r.min) << format(r.min, d);
    EXPECT_EQ(parse(format(r.max, d), d), r.max) << format(r.max, d);
    EXPECT_FALSE(parse(format(std::nextafter(r.max, INFINITY), d), d)) << format(std::nextafter(r.max, INFINITY), d);
    EXPECT_FALSE(parse(format(std::nextafter(r.min, 0.0), d), d)) << format(std::nextafter(r.min, 0.0), d);
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
