#include "sim/planners/registry.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>

#include "sim/common/error.hpp"
#include "sim/common/text.hpp"
#include "topology/system_spec.hpp"

#ifndef PARTSIM_VERSION
#define PARTSIM_VERSION "unknown"
#endif

namespace partsim::planner {
namespace {

std::string joined(const std::vector<std::string>& v, std::string_view sep = ", ") { return join(v, sep); }

bool parse_integer(const std::string& text, long long& value) {
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && ptr == text.data() + text.size();
}

bool parse_number(const std::string& text, double& value) {
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && ptr == text.data() + text.size() && std::isfinite(value);
}

std::vector<std::string> split_words(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string w;
  while (std::getline(in, w, ','))
    if (!w.empty()) out.push_back(w);
  return out;
}

/// A bound as written in messages: integers without a decimal point.
std::string bound_text(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<long long>(v));
  std::ostringstream out;
  out << v;
  return out.str();
}

/// ">= 0", "in 1..100000", "in (0, 1]".
std::string range_text(const OptionRange& r, bool whole) {
  const bool unbounded = std::isinf(r.max);
  if (unbounded) return (r.min_open ? "> " : ">= ") + bound_text(r.min);
  if (whole && !r.min_open && !r.max_open) return "in " + bound_text(r.min) + ".." + bound_text(r.max);
  return std::string("in ") + (r.min_open ? "(" : "[") + bound_text(r.min) + ", " + bound_text(r.max) +
         (r.max_open ? ")" : "]");
}

/// What values an option allows, for messages and --list-strategies.
std::string allowed_values(const OptionSpec& o) {
  switch (o.type) {
    case OptionType::integer:
      return "a whole number " + range_text(o.range, true) +
             (o.choices.empty() ? std::string() : " or " + joined(o.choices, " or "));
    case OptionType::number: return "a number " + range_text(o.range, false);
    case OptionType::boolean: return "true or false";
    case OptionType::choice: return joined(o.choices, " | ");
    case OptionType::words: return "comma-separated " + joined(o.choices, ",") + ", or all, or none";
    case OptionType::text: return "any text (empty: not given)";
  }
  return "";
}

/// Checks one value; returns it normalised (words in declaration order).
std::string check_value(const std::string& strategy, const OptionSpec& o, const std::string& value) {
  auto bad = [&]() -> std::string {
    throw InputError("strategy " + strategy + ": option " + o.key + "='" + value + "' is not allowed (allowed: " +
                     allowed_values(o) + ")");
  };
  const bool is_choice = std::find(o.choices.begin(), o.choices.end(), value) != o.choices.end();
  switch (o.type) {
    case OptionType::integer: {
      long long v = 0;
      if (is_choice) return value;
      if (!parse_integer(value, v) || !o.range.contains(static_cast<double>(v))) return bad();
      return value;
    }
    case OptionType::number: {
      double v = 0;
      if (!parse_number(value, v) || !o.range.contains(v)) return bad();
      return value;
    }
    case OptionType::boolean:
      if (value != "true" && value != "false") return bad();
      return value;
    case OptionType::choice:
      if (!is_choice) return bad();
      return value;
    case OptionType::text:
      return value;  // "" = not given (what a plan records for an option left at an empty default)
    case OptionType::words: {
      if (value == "all" || value == "none") return value;
      const auto words = split_words(value);
      if (words.empty()) return bad();
      for (const auto& w : words)
        if (std::find(o.choices.begin(), o.choices.end(), w) == o.choices.end()) return bad();
      std::vector<std::string> ordered;
      for (const auto& c : o.choices)
        if (std::find(words.begin(), words.end(), c) != words.end()) ordered.push_back(c);
      return ordered.size() == o.choices.size() ? "all" : joined(ordered, ",");
    }
  }
  return value;
}

}  // namespace

std::string to_string(OptionType type) {
  switch (type) {
    case OptionType::integer: return "integer";
    case OptionType::number: return "number";
    case OptionType::boolean: return "boolean";
    case OptionType::choice: return "choice";
    case OptionType::words: return "words";
    case OptionType::text: return "text";
  }
  return "";
}

// ---- StrategyOptions --------------------------------------------------------------------------

const std::string& StrategyOptions::text(const std::string& key) const {
  auto it = values_.find(key);
  if (it == values_.end()) throw Error("strategy option '" + key + "' was not declared");
  return it->second;
}

long long StrategyOptions::integer(const std::string& key) const {
  long long v = 0;
  if (!parse_integer(text(key), v)) throw Error("strategy option '" + key + "' is not a whole number");
  return v;
}

double StrategyOptions::number(const std::string& key) const {
  double v = 0;
  if (!parse_number(text(key), v)) throw Error("strategy option '" + key + "' is not a number");
  return v;
}

bool StrategyOptions::flag(const std::string& key) const { return text(key) == "true"; }

std::vector<std::string> StrategyOptions::words(const std::string& key, const std::vector<std::string>& all) const {
  const std::string& v = text(key);
  if (v == "all") return all;
  if (v == "none") return {};
  return split_words(v);
}

// ---- StrategyRegistry -------------------------------------------------------------------------

void StrategyRegistry::add(StrategyInfo info) {
  if (contains(info.name)) throw Error("strategy '" + info.name + "' registered twice");
  if (!info.plan) throw Error("strategy '" + info.name + "' has no planning function");
  for (const auto& o : info.options) check_value(info.name, o, o.default_value);  // a bad default is a bug
  strategies_.push_back(std::move(info));
}

void StrategyRegistry::add_notation(workloads::NotationView view) {
  const auto same_name = [&](const workloads::NotationView& v) { return v.name == view.name; };
  if (std::any_of(notations_.begin(), notations_.end(), same_name))
    throw Error("notation view '" + view.name + "' registered twice");
  if (view.name.empty() || !view.describe) throw Error("notation view '" + view.name + "' has no name or no function");
  notations_.push_back(std::move(view));
}

bool StrategyRegistry::contains(const std::string& name) const {
  return std::any_of(strategies_.begin(), strategies_.end(), [&](const StrategyInfo& s) { return s.name == name; });
}

const StrategyInfo& StrategyRegistry::find(const std::string& name) const {
  for (const auto& s : strategies_)
    if (s.name == name) return s;
  throw UnknownNameError("strategy", name, names());
}

std::string StrategyRegistry::names() const {
  std::vector<std::string> v;
  for (const auto& s : strategies_) v.push_back(s.name);
  return joined(v);
}

std::string StrategyRegistry::list_table() const {
  size_t width = 0;
  for (const auto& s : strategies_) width = std::max(width, s.name.size());
  std::string out;
  for (const auto& s : strategies_) {
    out += s.name + std::string(width + 2 - s.name.size(), ' ') + s.description + "\n";
    const std::string indent(width + 2, ' ');
    for (const auto& o : s.options)
      out += indent + "--option " + o.key + "=<" + allowed_values(o) + "> (default " +
             (o.default_value.empty() ? std::string("none") : o.default_value) + "): " +
             o.description + "\n";
    if (s.stochastic) out += indent + "--seed N: seeds the search (recorded in plan.json; same seed, same plan)\n";
  }
  return out;
}

StrategyOptions StrategyRegistry::resolve_options(const std::string& name,
                                                  const std::vector<std::string>& key_values) const {
  const StrategyInfo& info = find(name);
  std::vector<std::string> keys;
  for (const auto& o : info.options) keys.push_back(o.key);
  const std::string allowed = keys.empty() ? "none: this strategy has no options" : joined(keys);
  std::map<std::string, std::string> values;
  for (const auto& o : info.options) values[o.key] = o.default_value;
  for (const auto& kv : key_values) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError("strategy " + name + ": option '" + kv + "' must be key=value (allowed keys: " + allowed + ")");
    const std::string key = kv.substr(0, eq);
    const auto it = std::find_if(info.options.begin(), info.options.end(), [&](const OptionSpec& o) { return o.key == key; });
    if (it == info.options.end())
      throw InputError("strategy " + name + ": unknown option '" + key + "' (allowed: " + allowed + ")");
    values[key] = check_value(name, *it, kv.substr(eq + 1));
  }
  return StrategyOptions(std::move(values));
}

plan::Plan StrategyRegistry::make_plan(const std::string& name, const PlanInputs& inputs) const {
  const StrategyInfo& info = find(name);
  PlanInputs in = inputs;
  in.resolved = resolve_options(name, inputs.options);
  if (info.stochastic && !in.seed) in.seed = 1;
  if (!info.stochastic && in.seed)
    throw InputError("strategy " + name + " is deterministic: it takes no --seed");
  plan::Plan p = info.plan(in);
  p.schema = plan::kSchemaVersion;
  p.strategy = name;
  p.options = in.resolved.values();
  p.seed = in.seed;
  p.tool_version = PARTSIM_VERSION;
  p.config.name = in.spec.name;
  p.config.hash = topology::content_hash(in.spec);
  p.config.file = in.spec.source_file;
  p.workload.name = in.workload_name.empty() ? in.graph.name() : in.workload_name;
  p.workload.batch = in.graph.batch();
  p.workload.mode = in.mode;
  return p;
}

std::string StrategyRegistry::explain(const std::string& name, const PlanInputs& inputs, const std::string& layer) const {
  const StrategyInfo& info = find(name);
  if (!info.explain) {
    std::vector<std::string> with;
    for (const auto& s : strategies_)
      if (s.explain) with.push_back(s.name);
    throw InputError("--explain: strategy " + name + " has no explanation of its choices (strategies with one: " +
                     (with.empty() ? std::string("none") : joined(with)) + ")");
  }
  PlanInputs in = inputs;
  in.resolved = resolve_options(name, inputs.options);
  return info.explain(in, layer);
}

}  // namespace partsim::planner
