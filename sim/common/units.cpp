#include "sim/common/units.hpp"

#include <array>
#include <charconv>
#include <cctype>
#include <cmath>
#include <algorithm>
#include <limits>
#include <utility>

namespace partsim::units {
namespace {

// A unit's factor as 10^exp10 x binary, binary being a power of two (1024^k, 1/8 for bits). Decimal
// factors are applied through the decimal exponent of the number's text, so "107.3741824MB/s" reads
// as the double nearest to 107374182.4 (correctly rounded, as from_chars is), and multiplying by a
// power of two is exact: a dumped value always reads back bit for bit.
struct Factor {
  int exp10 = 0;
  double binary = 1.0;
};

struct Prefix {
  std::string_view symbol;
  Factor factor;
};

// Longest symbols first so "Ki" is tried before "K"/"k".
constexpr std::array<Prefix, 12> kPrefixes{{
    {"Ki", {0, 1024.0}}, {"Mi", {0, 1048576.0}}, {"Gi", {0, 1073741824.0}}, {"Ti", {0, 1099511627776.0}},
    {"Pi", {0, 1125899906842624.0}}, {"k", {3, 1}}, {"K", {3, 1}}, {"M", {6, 1}}, {"G", {9, 1}}, {"T", {12, 1}},
    {"P", {15, 1}}, {"E", {18, 1}},
}};

struct TimeUnit {
  std::string_view symbol;
  int exp10;
  double factor;  // 10^exp10, for formatting
};
constexpr std::array<TimeUnit, 5> kTimeUnits{
    {{"ps", -12, 1e-12}, {"ns", -9, 1e-9}, {"us", -6, 1e-6}, {"ms", -3, 1e-3}, {"s", 0, 1.0}}};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Splits "80 GB/s" into the number's text "80" and the unit "GB/s". False if no finite number
// leads ("nan", "inf"); a number too large or too small for a double still splits, and scaled()
// then finds it out of range.
bool split_number(std::string_view text, std::string_view& number, std::string_view& unit) {
  text = trim(text);
  double value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range) value = 0;  // the text is a number; its value is judged later
  else if (ec != std::errc() || !std::isfinite(value)) return false;
  number = text.substr(0, static_cast<size_t>(ptr - text.data()));
  unit = trim(text.substr(number.size()));
  return true;
}

// The number's text times 10^exp10, correctly rounded: the exponent is added to the text's own.
std::optional<double> scaled(std::string_view number, int exp10) {
  std::string_view mantissa = number;
  long exponent = exp10;
  if (size_t e = number.find_first_of("eE"); e != std::string_view::npos) {
    mantissa = number.substr(0, e);
    std::string_view exp_text = number.substr(e + 1);
    if (!exp_text.empty() && exp_text.front() == '+') exp_text.remove_prefix(1);
    long own = 0;
    auto [p, ec] = std::from_chars(exp_text.data(), exp_text.data() + exp_text.size(), own);
    if (ec != std::errc() || p != exp_text.data() + exp_text.size()) return std::nullopt;
    // Beyond +-10^6 every mantissa (but 0, which stays 0) is out of any double's range anyway;
    // clamping keeps the sum from overflowing a long.
    exponent += std::clamp(own, -1'000'000L, 1'000'000L);
  }
  const std::string text = std::string(mantissa) + "e" + std::to_string(exponent);
  double value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || !std::isfinite(value)) return std::nullopt;
  return value;
}

// Strips a multiplier prefix from `unit` ending in `base`; nullopt when `unit` is not prefix+base.
std::optional<Factor> take_prefix(std::string_view unit, std::string_view base) {
  if (unit == base) return Factor{};
  for (const auto& p : kPrefixes) {
    if (unit.size() == p.symbol.size() + base.size() && unit.substr(0, p.symbol.size()) == p.symbol &&
        unit.substr(p.symbol.size()) == base)
      return p.factor;
  }
  return std::nullopt;
}

std::optional<Factor> parse_with_bases(std::string_view unit,
                                       std::initializer_list<std::pair<std::string_view, double>> bases) {
  for (const auto& [base, scale] : bases) {
    if (auto f = take_prefix(unit, base)) return Factor{f->exp10, f->binary * scale};
  }
  return std::nullopt;
}

std::optional<Factor> unit_factor(std::string_view unit, Dimension dimension) {
  switch (dimension) {
    case Dimension::bytes:
      return parse_with_bases(unit, {{"B", 1.0}, {"b", 0.125}, {"bytes", 1.0}, {"bits", 0.125}});
    case Dimension::bandwidth:
      return parse_with_bases(unit, {{"B/s", 1.0}, {"b/s", 0.125}, {"Bps", 1.0}, {"bps", 0.125}});
    case Dimension::time:
      for (const auto& t : kTimeUnits)
        if (unit == t.symbol) return Factor{t.exp10, 1.0};
      if (unit == "µs") return Factor{-6, 1.0};
      return std::nullopt;
    case Dimension::frequency:
      return parse_with_bases(unit, {{"Hz", 1.0}});
    case Dimension::flop_rate:
      return parse_with_bases(unit, {{"FLOP/s", 1.0}, {"FLOPS", 1.0}, {"flop/s", 1.0}});
    case Dimension::count:
      if (unit.empty()) return Factor{};
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

// The shortest decimal text that reads back as exactly v (std::to_chars), with its decimal point
// moved `exp10` places left: decimal_shifted(107374182.4, 6) == "107.3741824". Moving the point in
// the text, rather than dividing, keeps parse(format(v)) == v bit for bit (parse adds the exponent
// back in the text, see scaled()).
std::string decimal_shifted(double v, int exp10) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  if (ec != std::errc()) return "nan";
  std::string text(buf, end);  // "-1.073741824e+08"
  std::string sign;
  if (!text.empty() && text[0] == '-') {
    sign = "-";
    text.erase(0, 1);
  }
  const size_t e = text.find('e');
  std::string digits = text.substr(0, e);
  digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
  const int exponent = std::stoi(text.substr(e + 1)) - exp10;  // value = d.ddd x 10^exponent
  if (exponent > 20 || exponent < -20)
    return sign + digits.substr(0, 1) + (digits.size() > 1 ? "." + digits.substr(1) : "") + "e" + std::to_string(exponent);
  if (exponent >= 0) {
    const size_t int_len = static_cast<size_t>(exponent) + 1;
    if (digits.size() <= int_len) return sign + digits + std::string(int_len - digits.size(), '0');
    return sign + digits.substr(0, int_len) + "." + digits.substr(int_len);
  }
  return sign + "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
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

Range range(Dimension dimension) {
  switch (dimension) {
    case Dimension::bytes: return {0.125, 1e18, "a size must be between 1b and 1EB"};
    case Dimension::bandwidth: return {0.125, 1e18, "a bandwidth must be between 1b/s and 1EB/s"};
    case Dimension::time: return {1e-12, 1e6, "a time must be between 1ps and 1000000s"};
    case Dimension::frequency: return {1.0, 1e15, "a frequency must be between 1Hz and 1PHz"};
    case Dimension::flop_rate: return {1.0, 1e21, "a compute rate must be between 1FLOP/s and 1000EFLOP/s"};
    case Dimension::count:
      return {std::numeric_limits<double>::min(), 9007199254740992.0,
              "a number must be 0 or a normal double of magnitude at most 9007199254740992 (2^53)"};
  }
  return {1.0, 1.0, ""};
}

std::optional<double> parse(std::string_view text, Dimension dimension, std::string* error) {
  std::string_view number, unit;
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
  // A value is 0 or within the dimension's range; a text whose value a double cannot hold (scaled()
  // fails) or that overflows with a binary prefix (1e306PiB) is out of that range too.
  const auto value = scaled(number, factor->exp10);
  if (value && *value == 0.0) return 0.0;  // "0", "-0", "0e999": plain 0, no sign
  // Not 0 as written, so a product that underflows to 0 (1e-323b) is out of range too.
  const double si = value ? *value * factor->binary : 0.0;
  const Range r = range(dimension);
  if (!value || !(std::fabs(si) >= r.min && std::fabs(si) <= r.max)) {
    if (error) *error = "out of range: " + std::string(r.text) + " (got '" + std::string(text) + "')";
    return std::nullopt;
  }
  return si;
}

bool written_in_bits(std::string_view text, Dimension dimension) {
  if (dimension != Dimension::bytes) return false;
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text.ends_with("bits") || text.ends_with('b');
}

std::string format(double value, Dimension dimension) {
  const std::string_view base = base_symbol(dimension);
  if (dimension == Dimension::count) return decimal_shifted(value, 0);
  if (dimension == Dimension::time) {
    if (value == 0.0) return "0s";
    for (auto it = kTimeUnits.rbegin(); it != kTimeUnits.rend(); ++it)
      if (std::fabs(value) >= it->factor * (1.0 - 1e-12)) return decimal_shifted(value, it->exp10) + std::string(it->symbol);
    return decimal_shifted(value, -12) + "ps";
  }
  if (dimension == Dimension::bytes) {
    // Sizes that are whole multiples of a power of 1024 read best in binary units: 1MiB, 64GiB.
    // Dividing by a power of two is exact.
    static constexpr std::array<std::pair<std::string_view, double>, 4> kBinary{
        {{"Ti", 1099511627776.0}, {"Gi", 1073741824.0}, {"Mi", 1048576.0}, {"Ki", 1024.0}}};
    for (const auto& [sym, f] : kBinary)
      if (value >= f && std::fmod(value, f) == 0.0 && std::fmod(value, f * 1000.0 / 1024.0) != 0.0)
        return decimal_shifted(value / f, 0) + std::string(sym) + "B";
  }
  static constexpr std::array<std::pair<std::string_view, int>, 6> kDecimal{
      {{"E", 18}, {"P", 15}, {"T", 12}, {"G", 9}, {"M", 6}, {"k", 3}}};
  for (const auto& [sym, exp10] : kDecimal)
    if (std::fabs(value) >= std::pow(10.0, exp10) * (1.0 - 1e-12))
      return decimal_shifted(value, exp10) + std::string(sym) + std::string(base);
  return decimal_shifted(value, 0) + std::string(base);
}

}  // namespace partsim::units
