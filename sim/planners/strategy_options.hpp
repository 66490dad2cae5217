#pragma once
// A strategy's options: how one is declared (OptionSpec: key, type, default, allowed values), and
// the resolved values a strategy reads (StrategyOptions). The registry checks --option key=value
// against the declarations and fills in defaults; option_bindings.hpp declares an option and says
// where its value goes in one statement.

#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace partsim::planner {

/// The kind of value an option takes (what --list-strategies prints and --option checks).
enum class OptionType {
  integer,  // a whole number in `range` (or one of `choices`, e.g. "all")
  number,   // a finite number in `range`
  boolean,  // true | false
  choice,   // one of `choices`
  words,    // a comma-separated subset of `choices`, or "all" or "none"
  text,     // any text (a file name, e.g. mcm_rl's checkpoint); "" = not given
};

/// The values an integer or number option allows: min..max, an open end excluding its bound.
/// Checked when the options are resolved, so a strategy never sees a value outside it, and printed
/// by --list-strategies.
struct OptionRange {
  double min = 0;
  double max = std::numeric_limits<double>::infinity();
  bool min_open = false;  // (min, ...: min itself is not allowed
  bool max_open = false;
  bool contains(double v) const { return (min_open ? v > min : v >= min) && (max_open ? v < max : v <= max); }
};

/// One declared option of a strategy.
struct OptionSpec {
  std::string key;
  OptionType type = OptionType::choice;
  std::string default_value;
  std::string description;
  std::vector<std::string> choices;  // choice / words: the allowed values; integer: allowed words
  OptionRange range = {};            // integer / number: the allowed values (default >= 0)
};

/// A strategy's options after resolution: every declared key, with its default where not given.
class StrategyOptions {
 public:
  StrategyOptions() = default;
  explicit StrategyOptions(std::map<std::string, std::string> values) : values_(std::move(values)) {}
  const std::string& text(const std::string& key) const;
  long long integer(const std::string& key) const;  // the option must hold a number
  double number(const std::string& key) const;
  bool flag(const std::string& key) const;
  /// A words option as its list ("all" expanded to every choice, "none" to nothing).
  std::vector<std::string> words(const std::string& key, const std::vector<std::string>& all) const;
  const std::map<std::string, std::string>& values() const noexcept { return values_; }

 private:
  std::map<std::string, std::string> values_;
};

std::string to_string(OptionType type);

}  // namespace partsim::planner
