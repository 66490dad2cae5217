#include "sim/common/units.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <utility>

namespace partsim::units {
namespace {

struct Prefix {
  std::string_view symbol;
  double factor;
};

// Longest symbols first so "Ki" is tried before "K"/"k".
constexpr std::array<Prefix, 12> kBinaryAndDecimal{{
    {"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0}, {"Ti", 1099511627776.0},
    {"Pi", 1125899906842624.0}, {"k", 1e3}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12},
    {"P", 1e15}, {"E", 1e18},
}};

constexpr std::array<Prefix, 5> kTimeUnits{{{"ps", 1e-12}, {"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1.0}}};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Splits "80 GB/s" into 80 and "GB/s". Returns false if no number leads the text.
bool split_number(std::string_view text, double& number, std::string_view& unit) {
  text = trim(text);
  const char* begin = text.data();
  const char* end = begin + text.size();
  auto [ptr, ec] = std::from_chars(begin, end, number);
  if (ec != std::errc() || !std::isfinite(number)) return false;
  unit = trim(std::string_view(ptr, static_cast<size_t>(end - ptr)));
  return true;
}

// Strips a multiplier prefix from `unit`; returns its factor (1 when there is none).
double take_prefix(std::string_view& unit, std::string_view base) {
  if (unit == base) return 1.0;
  for (const auto& p : kBinaryAndDecimal) {
    if (unit.size() == p.symbol.size() + base.size() && unit.substr(0, p.symbol.size()) == p.symbol &&
        unit.substr(p.symbol.size()) == base) {
      unit = unit.substr(p.symbol.size());
      return p.factor;
    }
  }
  return 0.0;
}

std::optional<double> parse_with_bases(std::string_view unit, std::initializer_list<std::pair<std::string_view, double>> bases) {
  for (const auto& [base, scale] : bases) {
    std::string_view u = unit;
    double f = take_prefix(u, base);
    if (f > 0.0) return f * scale;
  }
  return std::nullopt;
}

std::optional<double> unit_factor(std::string_view unit, Dimension dimension) {
  switch (dimension) {
    case Dimension::bytes:
      return parse_with_bases(unit, {{"B", 1.0}, {"b", 0.125}, {"bytes", 1.0}, {"bits", 0.125}});
    case Dimension::bandwidth:
      return parse_with_bases(unit, {{"B/s", 1.0}, {"b/s", 0.125}, {"Bps", 1.0}, {"bps", 0.125}});
    case Dimension::time:
      for (const auto& t : kTimeUnits)
        if (unit == t.symbol) return t.factor;
      if (unit == "µs") return 1e-6;
      return std::nullopt;
    case Dimension::frequency:
      return parse_with_bases(unit, {{"Hz", 1.0}});
    case Dimension::flop_rate:
      return parse_with_bases(unit, {{"FLOP/s", 1.0}, {"FLOPS", 1.0}, {"flop/s", 1.0}});
    case Dimension::count:
      if (unit.empty()) return 1.0;
      return parse_with_bases(unit, {{"", 1.0}});
  }
  return std::nullopt;
}

std::string_view base_symbol(Dimension dimension) {
  switch (dimension) {
    case Dimension::bytes: return "B";
    case Dimension::bandwidth: return "B/s";
    case Dimension::time: return "s";
    case Dimension::frequency: return "Hz";
    case Dimension::flop_rate: return "FLOP/s";
    case Dimension::count: return "";
  }
  return "";
}

// 15 significant digits: reads back within one rounding of v, and hides the rounding of the
// prefix division (500e-9 / 1e-9 prints as 500, not 499.99999999999994).
std::string shortest(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  return buf;
}

}  // namespace

std::string describe(Dimension dimension) {
  switch (dimension) {
    case Dimension::bytes: return "a size such as 1MiB, 8GB or 512B";
    case Dimension::bandwidth: return "a bandwidth such as 80GB/s or 8Gb/s";
    case Dimension::time: return "a time such as 500ns, 2us or 1ms";
    case Dimension::frequency: return "a frequency such as 2GHz";
    case Dimension::flop_rate: return "a compute rate such as 180TFLOP/s";
    case Dimension::count: return "a number";
  }
  return "a quantity";
}

std::optional<double> parse(std::string_view text, Dimension dimension, std::string* error) {
  double number = 0.0;
  std::string_view unit;
  if (!split_number(text, number, unit)) {
    if (error) *error = "expected " + describe(dimension) + " (got '" + std::string(text) + "')";
    return std::nullopt;
  }
  if (unit.empty() && dimension != Dimension::count) {
    if (error)
      *error = "missing unit: expected " + describe(dimension) + " (got '" + std::string(text) + "')";
    return std::nullopt;
  }
  auto factor = unit_factor(unit, dimension);
  if (!factor) {
    if (error)
      *error = "unknown unit '" + std::string(unit) + "': expected " + describe(dimension) + " (got '" +
               std::string(text) + "')";
    return std::nullopt;
  }
  return number * *factor;
}

std::string format(double value, Dimension dimension) {
  const std::string_view base = base_symbol(dimension);
  if (dimension == Dimension::count) return shortest(value);
  if (dimension == Dimension::time) {
    if (value == 0.0) return "0s";
    for (auto it = kTimeUnits.rbegin(); it != kTimeUnits.rend(); ++it)
      if (std::fabs(value) >= it->factor * (1.0 - 1e-12)) return shortest(value / it->factor) + std::string(it->symbol);
    return shortest(value / 1e-12) + "ps";
  }
  if (dimension == Dimension::bytes) {
    // Sizes that are whole multiples of a power of 1024 read best in binary units: 1MiB, 64GiB.
    static constexpr std::array<std::pair<std::string_view, double>, 4> kBinary{
        {{"Ti", 1099511627776.0}, {"Gi", 1073741824.0}, {"Mi", 1048576.0}, {"Ki", 1024.0}}};
    for (const auto& [sym, f] : kBinary)
      if (value >= f && std::fmod(value, f) == 0.0 && std::fmod(value, f * 1000.0 / 1024.0) != 0.0)
        return shortest(value / f) + std::string(sym) + "B";
  }
  static constexpr std::array<std::pair<std::string_view, double>, 6> kDecimal{
      {{"E", 1e18}, {"P", 1e15}, {"T", 1e12}, {"G", 1e9}, {"M", 1e6}, {"k", 1e3}}};
  for (const auto& [sym, f] : kDecimal)
    if (std::fabs(value) >= f * (1.0 - 1e-12)) return shortest(value / f) + std::string(sym) + std::string(base);
  return shortest(value) + std::string(base);
}

}  // namespace partsim::units
