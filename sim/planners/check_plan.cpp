#include "sim/planners/check_plan.hpp"

#include "sim/common/error.hpp"
#include "topology/system_spec.hpp"
#include "workloads/onnx/onnx_workload.hpp"

namespace partsim::planner {

void check_plan(const plan::Plan& plan, const topology::SystemSpec& spec, const workloads::Graph& graph,
                const StrategyRegistry& registry, const std::string& file, bool allow_config_change) {
  auto fail = [&](const std::string& message) { throw InputError(file + ": " + message); };
  if (plan.config.name != spec.name)
    fail("made for platform '" + plan.config.name + "' but the platform is '" + spec.name + "' (re-run simplan)");
  const std::string hash = topology::content_hash(spec);
  if (plan.config.hash != hash && !allow_config_change)
    fail("made for a different version of platform '" + spec.name + "' (config hash " + plan.config.hash +
         ", now " + hash + "; --set overrides count too): re-run simplan, or replay it anyway with --allow-config-change");
  if (plan.workload.batch != graph.batch())
    fail("made for batch " + std::to_string(plan.workload.batch) + " but the workload is at batch " +
         std::to_string(graph.batch()));
  const bool is_file = plan.workload.name.find('/') != std::string::npos ||
                       plan.workload.name.find(".yaml") != std::string::npos ||
                       plan.workload.name.find(".yml") != std::string::npos ||
                       workloads::is_onnx_workload(plan.workload.name);
  if (!is_file && !graph.name().empty() && plan.workload.name != graph.name())
    fail("made for workload '" + plan.workload.name + "' but the workload is '" + graph.name() + "'");
  // Every layer, in the workload's topological order.
  const size_t n = std::min(plan.layers.size(), graph.size());
  for (size_t i = 0; i < n; ++i)
    if (plan.layers[i].name != graph.layer(i).name) {
      const auto in_graph = graph.index_of(plan.layers[i].name);
      if (!in_graph)
        fail("/layers/" + std::to_string(i) + ": layer '" + plan.layers[i].name + "' is not in workload '" +
             graph.name() + "'");
      fail("/layers/" + std::to_string(i) + ": expected layer '" + graph.layer(i).name + "' (the workload's order) but found '" +
           plan.layers[i].name + "'");
    }
  if (plan.layers.size() < graph.size())
    fail("layer '" + graph.layer(plan.layers.size()).name + "' of workload '" + graph.name() +
         "' is missing from the plan (" + std::to_string(plan.layers.size()) + " of " + std::to_string(graph.size()) +
         " layers)");
  if (plan.layers.size() > graph.size())
    fail("/layers/" + std::to_string(graph.size()) + ": layer '" + plan.layers[graph.size()].name +
         "' is not in workload '" + graph.name() + "' (it has " + std::to_string(graph.size()) + " layers)");
  for (size_t i = 0; i < plan.layers.size(); ++i) {
    try {
      plan::validate(plan.layers[i].sharding, spec.device_count());
    } catch (const InputError& e) {
      fail("/layers/" + std::to_string(i) + "/sharding: " + e.what() + " (platform '" + spec.name + "')");
    }
  }
  if (!registry.contains(plan.strategy))
    fail("/strategy: unknown strategy '" + plan.strategy + "' (valid: " + registry.names() + ")");
  const auto& info = registry.find(plan.strategy);
  // Options: every key declared and every value allowed (the strategy's declarations).
  std::vector<std::string> key_values;
  for (const auto& [k, v] : plan.options) key_values.push_back(k + "=" + v);
  try {
    registry.resolve_options(plan.strategy, key_values);
  } catch (const InputError& e) {
    fail(std::string("/options: ") + e.what());
  }
  if (plan.seed && !info.stochastic) fail("/seed: strategy " + plan.strategy + " is deterministic and takes no seed");
  if (info.check) info.check(plan, spec, graph, file);
}

topology::SystemSpec configured_platform(const plan::Plan& plan, const topology::SystemSpec& spec,
                                         const std::string& file) {
  topology::SystemSpec out = spec;
  for (const auto& [device, type] : plan.configuration) {
    const std::string where = file + ": /configuration/" + device + ": ";
    const int index = spec.device_index(device);
    if (index < 0) throw InputError(where + "no device of that name on platform '" + spec.name + "'");
    if (!spec.device_types.count(type)) {
      std::string names;
      for (const auto& [name, t] : spec.device_types) names += (names.empty() ? "" : ", ") + name;
      throw InputError(where + "unknown device type '" + type + "' (the platform's: " + names + ")");
    }
    out.device_type_of[static_cast<std::size_t>(index)] = type;
  }
  return out;
}

}  // namespace partsim::planner
