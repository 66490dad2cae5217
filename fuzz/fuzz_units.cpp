// libFuzzer harness: quantities with units (units::parse, what every platform value and
// `simrun --bytes` go through). For every dimension, a text is either refused with a message or
// gives a value that is 0 or inside the dimension's range (never inf, NaN or denormal), and that
// value, formatted, reads back bit for bit.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "fuzz/harness.hpp"
#include "sim/common/units.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace partsim;
  using units::Dimension;
  const std::string text = fuzz::text_of(data, size);
  for (Dimension d : {Dimension::bytes, Dimension::bandwidth, Dimension::time, Dimension::frequency,
                      Dimension::flop_rate, Dimension::count}) {
    std::string error;
    const auto value = units::parse(text, d, &error);
    if (!value) {
      if (error.empty()) fuzz::finding("refused without a message: " + text);
      continue;
    }
    const double v = *value;
    const units::Range r = units::range(d);
    if (!std::isfinite(v) || (v != 0.0 && (std::fabs(v) < r.min || std::fabs(v) > r.max)))
      fuzz::finding("accepted out of range: '" + text + "' -> " + std::to_string(v));
    const std::string formatted = units::format(v, d);
    const auto back = units::parse(formatted, d, &error);
    if (!back || std::memcmp(&*back, &v, sizeof v) != 0)
      fuzz::finding("'" + text + "' -> '" + formatted + "' does not read back (" + error + ")");
  }
  return 0;
}
