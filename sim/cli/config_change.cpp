#include "sim/cli/config_change.hpp"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <map>
#include <utility>

#include "sim/common/error.hpp"
#include "sim/common/yaml_reader.hpp"
#include "topology/system_parser.hpp"
#include "topology/system_writer.hpp"

namespace partsim::cli {
namespace {

using Scalars = std::vector<std::pair<std::string, std::string>>;  // key path, value; file order

// Every scalar of a YAML tree with its key path ("system.torus.bandwidth[1]"), in document order.
void flatten(const YAML::Node& node, const std::string& path, Scalars& out) {
  if (node.IsMap()) {
    for (const auto& entry : node)
      flatten(entry.second, path.empty() ? entry.first.as<std::string>() : path + "." + entry.first.as<std::string>(), out);
  } else if (node.IsSequence()) {
    for (size_t i = 0; i < node.size(); ++i) flatten(node[i], path + "[" + std::to_string(i) + "]", out);
  } else if (node.IsScalar()) {
    out.emplace_back(path, node.Scalar());
  } else {
    out.emplace_back(path, "null");
  }
}

Scalars scalars(const topology::SystemSpec& spec) {
  Scalars out;
  flatten(YAML::Load(topology::system_to_yaml(spec)), "", out);
  return out;
}

}  // namespace

std::vector<std::string> changed_keys(const topology::SystemSpec& before, const topology::SystemSpec& after) {
  const Scalars old_values = scalars(before);
  const Scalars new_values = scalars(after);
  const std::map<std::string, std::string> old_by_key(old_values.begin(), old_values.end());
  const std::map<std::string, std::string> new_by_key(new_values.begin(), new_values.end());
  std::vector<std::string> changes;
  for (const auto& [key, value] : new_values) {
    const auto it = old_by_key.find(key);
    const std::string old_value = it == old_by_key.end() ? "(none)" : it->second;
    if (old_value != value) changes.push_back(key + ": " + old_value + " -> " + value);
  }
  for (const auto& [key, value] : old_values)
    if (!new_by_key.count(key)) changes.push_back(key + ": " + value + " -> (none)");
  return changes;
}

std::vector<std::string> config_changes(const plan::Plan& plan, const topology::SystemSpec& now) {
  if (plan.config.hash == topology::content_hash(now)) return {};
  std::error_code ec;
  if (!plan.config.file.empty() && std::filesystem::is_regular_file(plan.config.file, ec)) {
    try {
      const topology::SystemSpec planned = topology::load_system(plan.config.file);
      if (topology::content_hash(planned) == plan.config.hash) return changed_keys(planned, now);
    } catch (const Error&) {
      // The file no longer loads: fall through to the line that cannot name the keys.
    }
  }
  return {"the plan was made for platform hash " + plan.config.hash + "; its file '" + plan.config.file +
          "' is not that platform now (edited since, or planned with --set overrides), so the changed keys cannot "
          "be listed"};
}

}  // namespace partsim::cli
