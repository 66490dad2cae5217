#include "sim/sweep/si_quantity.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "sim/common/units.hpp"

namespace partsim::sweep {

std::optional<double> si_quantity(std::string_view text) {
  // A plain number first, then every dimension with a unit; a unit belongs to one dimension only
  // ("B" bytes, "B/s" bandwidth, "s" time, "Hz" frequency, "FLOP/s" compute rate).
  for (auto dimension : {units::Dimension::count, units::Dimension::bytes, units::Dimension::bandwidth,
                         units::Dimension::time, units::Dimension::frequency, units::Dimension::flop_rate})
    if (const auto value = units::parse(text, dimension)) return value;
  return std::nullopt;
}

std::string si_number_text(double value) {
  constexpr double kExactIntegers = 9007199254740992.0;  // 2^53: every whole double below is exact
  char buf[64];
  if (value == std::floor(value) && std::fabs(value) <= kExactIntegers) {
    std::snprintf(buf, sizeof buf, "%.0f", value);
    return buf;
  }
  const auto result = std::to_chars(buf, buf + sizeof buf, value);  // shortest round trip
  return std::string(buf, result.ptr);
}

std::string si_text(std::string_view text) {
  const auto value = si_quantity(text);
  return value ? si_number_text(*value) : std::string();
}

}  // namespace partsim::sweep
