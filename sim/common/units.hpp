#pragma once
// Physical quantities written with their unit ("80GB/s", "8Gb/s", "500ns", "2GHz", "1MiB",
// "180TFLOP/s") are parsed here and nowhere else. Inside partsim every quantity is a double in SI
// base units: bytes, seconds, bytes per second, hertz, FLOP per second.
//
// Prefixes: k M G T P (powers of 1000) and Ki Mi Gi Ti Pi (powers of 1024); time also takes
// ms us ns ps. A lower-case 'b' means bits (8 Gb/s = 1e9 bytes/s); 'B' means bytes.

#include <optional>
#include <string>
#include <string_view>

namespace partsim::units {

enum class Dimension {
  bytes,       // B, KiB, MB, Gb (bits are converted to bytes)
  bandwidth,   // B/s, GB/s, Gb/s, GiB/s, also GBps
  time,        // s, ms, us, ns, ps
  frequency,   // Hz, MHz, GHz
  flop_rate,   // FLOP/s, TFLOP/s, also FLOPS
  count,       // a plain number, no unit
};

/// Human name of a dimension with an example, for error messages: "a bandwidth such as 80GB/s".
std::string describe(Dimension dimension);

/// The magnitudes a quantity of a dimension may have, in SI units: a parsed value is exactly 0 or
/// has min <= |value| <= max. The bounds are physical (nothing below one bit, one bit per second, one
/// picosecond, one hertz, one FLOP per second; nothing beyond 1 EB, 1 EB/s, 10^6 s, 1 PHz,
/// 10^21 FLOP/s); a count is a normal double no larger than 2^53, so whole numbers stay exact. Every
/// bound is a normal double, so no parsed value is infinite, NaN or denormal.
struct Range {
  double min;
  double max;
  std::string_view text;  // "a bandwidth must be between 1b/s and 1EB/s", for messages
};
Range range(Dimension dimension);

/// Parses `text` as a quantity of `dimension` into SI units. Returns the error text (without the
/// location, which the caller adds) through `error` and std::nullopt on failure. A value outside
/// range(dimension) (including one whose text overflows or underflows a double) is refused:
/// "out of range: a bandwidth must be between 1b/s and 1EB/s (got '1e-320GB/s')". Negative values
/// in range are returned; the caller decides whether a sign makes sense.
std::optional<double> parse(std::string_view text, Dimension dimension, std::string* error = nullptr);

/// True when `text` is a size (Dimension::bytes) written in bits: a unit ending in a lower-case b
/// ("80Gb", "512b") or "bits". Sizes are usually bytes, so callers warn.
bool written_in_bits(std::string_view text, Dimension dimension);

/// Formats an SI value with the largest decimal prefix that keeps the mantissa >= 1 (binary prefixes
/// for sizes that are whole multiples of 1024^k): 8e10 bandwidth -> "80GB/s", 5e-7 time -> "500ns",
/// 1048576 bytes -> "1MiB". The digits are the shortest that read back exactly:
/// parse(format(v, d), d) == v bit for bit.
std::string format(double value, Dimension dimension);

}  // namespace partsim::units
