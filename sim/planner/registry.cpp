#include "sim/planner/registry.hpp"

#include <algorithm>

#include "sim/common/error.hpp"
#include "topology/system_spec.hpp"

#ifndef PARTSIM_VERSION
#define PARTSIM_VERSION "unknown"
#endif

namespace partsim::planner {

void StrategyRegistry::add(StrategyInfo info) {
  if (contains(info.name)) throw Error("strategy '" + info.name + "' registered twice");
  if (!info.plan) throw Error("strategy '" + info.name + "' has no planning function");
  strategies_.push_back(std::move(info));
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
  std::string out;
  for (const auto& s : strategies_) out += (out.empty() ? "" : ", ") + s.name;
  return out;
}

std::string StrategyRegistry::list_table() const {
  size_t width = 0;
  for (const auto& s : strategies_) width = std::max(width, s.name.size());
  std::string out;
  for (const auto& s : strategies_) out += s.name + std::string(width + 2 - s.name.size(), ' ') + s.description + "\n";
  return out;
}

plan::Plan StrategyRegistry::make_plan(const std::string& name, const PlanInputs& inputs) const {
  const StrategyInfo& info = find(name);
  plan::Plan p = info.plan(inputs);
  p.schema = plan::kSchemaVersion;
  p.strategy = name;
  p.tool_version = PARTSIM_VERSION;
  p.config.name = inputs.spec.name;
  p.config.hash = topology::content_hash(inputs.spec);
  p.config.file = inputs.spec.source_file;
  p.workload.name = inputs.workload_name.empty() ? inputs.graph.name() : inputs.workload_name;
  p.workload.batch = inputs.graph.batch();
  p.workload.mode = inputs.mode;
  return p;
}

std::vector<std::pair<std::string, std::string>> parse_options(const std::vector<std::string>& options,
                                                               const std::vector<std::string>& allowed,
                                                               const std::string& strategy) {
  std::string allowed_text;
  for (const auto& a : allowed) allowed_text += (allowed_text.empty() ? "" : ", ") + a;
  if (allowed_text.empty()) allowed_text = "none";
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& o : options) {
    const auto eq = o.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError("strategy " + strategy + ": option '" + o + "' must be key=value (allowed keys: " +
                       allowed_text + ")");
    std::string key = o.substr(0, eq);
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
      throw InputError("strategy " + strategy + ": unknown option '" + key + "' (allowed: " + allowed_text + ")");
    out.emplace_back(std::move(key), o.substr(eq + 1));
  }
  return out;
}

}  // namespace partsim::planner
