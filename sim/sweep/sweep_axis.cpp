#include "sim/sweep/sweep_axis.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>
#include <utility>

#include "sim/common/error.hpp"
#include "sim/common/units.hpp"

namespace partsim::sweep {
namespace {

constexpr size_t kMaxValues = 10'000;

// "30GB/s" -> (30, "GB/s"). Only splits the leading number from the unit text; the unit itself is
// parsed by the platform parser when the value is used.
bool split_number(std::string_view text, double& number, std::string& suffix) {
  const char* begin = text.data();
  const char* end = begin + text.size();
  auto [ptr, ec] = std::from_chars(begin, end, number);
  if (ec != std::errc() || !std::isfinite(number)) return false;
  suffix.assign(ptr, end);
  return true;
}

std::string number_text(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.12g", v);
  return buf;
}

std::vector<std::string> split_list(std::string_view text, char separator = ',') {
  std::vector<std::string> out;
  size_t pos = 0;
  while (true) {
    size_t comma = text.find(separator, pos);
    out.emplace_back(text.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos));
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return out;
}

// How many SI units one `unit` is, for a unit of any dimension units::parse knows ("MiB" -> 1048576,
// "GB/s" -> 1e9, "ns" -> 1e-9), together with its dimension; nullopt for an unknown or empty unit.
std::optional<std::pair<double, units::Dimension>> unit_scale(const std::string& unit) {
  if (unit.empty()) return std::nullopt;
  for (auto d : {units::Dimension::bytes, units::Dimension::bandwidth, units::Dimension::time,
                 units::Dimension::frequency, units::Dimension::flop_rate})
    if (const auto v = units::parse("1" + unit, d)) return std::pair{*v, d};
  return std::nullopt;
}

// `number` written in `from` (e.g. 4 MiB), re-expressed in `to` (-> 4096 KiB), when both are units
// of one dimension; false otherwise.
bool convert(double& number, const std::string& from, const std::string& to) {
  const auto a = unit_scale(from), b = unit_scale(to);
  if (!a || !b || a->second != b->second) return false;
  number = number * a->first / b->first;
  return true;
}

constexpr std::string_view kOptionPrefix = "option.";

}  // namespace

AxisKind axis_kind(std::string_view key) {
  if (key == "batch") return AxisKind::batch;
  if (key == "workload") return AxisKind::workload;
  if (key == "strategy") return AxisKind::strategy;
  if (key.starts_with(kOptionPrefix)) {
    if (key.size() == kOptionPrefix.size())
      throw InputError("--vary " + std::string(key) + ": no option name (write option.NAME, e.g. option.opt; "
                       "simplan --list-strategies lists each strategy's options)");
    return AxisKind::strategy_option;
  }
  if (key.starts_with("system.")) return AxisKind::platform;
  throw InputError("--vary " + std::string(key) +
                   ": unknown axis (allowed: batch, workload, strategy, option.NAME, or a platform key "
                   "system.... as --set takes, configs/README.md)");
}

std::string option_name(std::string_view key) {
  return key.starts_with(kOptionPrefix) ? std::string(key.substr(kOptionPrefix.size())) : std::string();
}

SweepAxis parse_vary(std::string_view text) {
  auto bad = [&](const std::string& why) {
    return InputError("--vary " + std::string(text) + ": " + why +
                      " (expected KEY=V1,V2,... or KEY=A..B*FACTOR or KEY=A..B+STEP)");
  };
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0) throw bad("missing KEY=");
  SweepAxis axis;
  axis.key = std::string(text.substr(0, eq));
  axis.kind = axis_kind(axis.key);
  const std::string_view rhs = text.substr(eq + 1);
  if (rhs.empty()) throw bad("no values");

  const size_t dots = rhs.find("..");
  if (dots == std::string_view::npos) {
    axis.values = split_list(rhs);
    for (const auto& v : axis.values)
      if (v.empty()) throw bad("empty value in the list");
    return axis;
  }

  // A range: A..B*F or A..B+S.
  const std::string_view first_text = rhs.substr(0, dots);
  std::string_view rest = rhs.substr(dots + 2);
  const size_t op_pos = rest.find_last_of("*+");
  if (op_pos == std::string_view::npos) throw bad("a range needs *FACTOR or +STEP");
  const char op = rest[op_pos];
  const std::string_view last_text = rest.substr(0, op_pos);
  const std::string_view step_text = rest.substr(op_pos + 1);

  double first = 0, last = 0, step = 0;
  std::string unit, last_unit, step_unit;
  if (!split_number(first_text, first, unit)) throw bad("range start '" + std::string(first_text) + "' is not a number");
  if (!split_number(last_text, last, last_unit)) throw bad("range end '" + std::string(last_text) + "' is not a number");
  if (!split_number(step_text, step, step_unit)) throw bad("'" + std::string(step_text) + "' is not a number");
  if (last_unit.empty()) last_unit = unit;
  // Ends (and step) in different units of one dimension are re-expressed in the start's unit:
  // 512KiB..4MiB*2 gives 512KiB, 1024KiB, 2048KiB, 4096KiB.
  if (last_unit != unit && !convert(last, last_unit, unit))
    throw bad("range ends have units of different kinds ('" + unit + "' and '" + last_unit + "')");
  if (op == '*' && !step_unit.empty()) throw bad("a factor has no unit");
  if (op == '+' && !step_unit.empty() && step_unit != unit && !convert(step, step_unit, unit))
    throw bad("the step's unit ('" + step_unit + "') is not of the range's kind ('" + unit + "')");
  if (last < first) throw bad("range end is below its start");
  if (op == '*' && !(step > 1.0)) throw bad("the factor must be > 1");
  if (op == '*' && !(first > 0.0)) throw bad("a geometric range must start above 0");
  if (op == '+' && !(step > 0.0)) throw bad("the step must be > 0");

  // Values are generated by index (first * F^i, first + i*S), not by accumulation, so rounding does
  // not drift; the end is included when it is hit to 1e-9 relative.
  for (size_t i = 0;; ++i) {
    const double v = op == '*' ? first * std::pow(step, static_cast<double>(i)) : first + step * static_cast<double>(i);
    if (v > last * (1 + 1e-9) + (last == 0 ? 1e-12 : 0)) break;
    if (axis.values.size() >= kMaxValues) throw bad("more than 10000 values");
    axis.values.push_back(number_text(v) + unit);
  }
  return axis;
}

std::vector<SweepAxis> parse_vary_group(std::string_view text) {
  const size_t eq = text.find('=');
  const std::string_view keys_text = eq == std::string_view::npos ? text : text.substr(0, eq);
  if (keys_text.find(',') == std::string_view::npos) return {parse_vary(text)};
  auto bad = [&](const std::string& why) {
    return InputError("--vary " + std::string(text) + ": " + why +
                      " (lock-step: K1,K2,...=V1,V2,... with one value for every key, or V1a|V1b,... one per key)");
  };
  const std::vector<std::string> keys = split_list(keys_text);
  for (size_t k = 0; k < keys.size(); ++k) {
    if (keys[k].empty()) throw bad("empty key in the list");
    for (size_t j = 0; j < k; ++j)
      if (keys[j] == keys[k]) throw bad("key " + keys[k] + " is given twice");
  }
  const std::string_view rhs = text.substr(eq + 1);
  // The values as parse_vary reads them (a list or a range), once, under the first key's name.
  const SweepAxis shared = parse_vary(keys[0] + "=" + std::string(rhs));
  std::vector<SweepAxis> axes;
  for (size_t k = 0; k < keys.size(); ++k) {
    SweepAxis axis;
    axis.key = keys[k];
    axis.kind = axis_kind(axis.key);
    axis.with_previous = k > 0;
    for (const std::string& v : shared.values) {
      if (v.find('|') == std::string::npos) {
        axis.values.push_back(v);
        continue;
      }
      const std::vector<std::string> parts = split_list(v, '|');
      if (parts.size() != keys.size())
        throw bad("value '" + v + "' has " + std::to_string(parts.size()) + " parts for " + std::to_string(keys.size()) +
                  " keys");
      if (parts[k].empty()) throw bad("value '" + v + "' has an empty part");
      axis.values.push_back(parts[k]);
    }
    axes.push_back(std::move(axis));
  }
  return axes;
}

std::vector<SweepPoint> sweep_points(const std::vector<SweepAxis>& axes) {
  std::vector<SweepPoint> points{{}};
  for (size_t a = 0; a < axes.size();) {
    // The group: axis a and the lock-step axes after it, which share its value index.
    size_t end = a + 1;
    while (end < axes.size() && axes[end].with_previous) ++end;
    std::vector<SweepPoint> next;
    next.reserve(points.size() * axes[a].values.size());
    for (const auto& p : points)
      for (size_t i = 0; i < axes[a].values.size(); ++i) {
        SweepPoint q = p;
        for (size_t g = a; g < end; ++g) q.emplace_back(axes[g].key, axes[g].values.at(i));
        next.push_back(std::move(q));
      }
    points = std::move(next);
    a = end;
  }
  if (axes.empty()) points.clear();
  return points;
}

}  // namespace partsim::sweep
