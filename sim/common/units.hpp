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

/// Parses `text` as a quantity of `dimension` into SI units. Returns the error text (without the
/// location, which the caller adds) through `error` and std::nullopt on failure.
std::optional<double> parse(std::string_view text, Dimension dimension, std::string* error = nullptr);

/// Formats an SI value with the largest decimal prefix that keeps the mantissa >= 1 (binary prefixes
/// for sizes that are whole multiples of 1024^k): 8e10 bandwidth -> "80GB/s", 5e-7 time -> "500ns",
/// 1048576 bytes -> "1MiB". The digits are the shortest that read back exactly:
/// parse(format(v, d), d) == v bit for bit.
std::string format(double value, Dimension dimension);

}  // namespace partsim::units
