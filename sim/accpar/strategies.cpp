#include "sim/accpar/strategies.hpp"

#include <charconv>

#include "sim/common/error.hpp"

namespace partsim::accpar {
namespace {

Mode to_mode(plan::Mode m) { return m == plan::Mode::training ? Mode::training : Mode::inference; }

int parse_levels(const std::string& value, const std::string& strategy) {
  int levels = -1;
  const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), levels);
  if (ec != std::errc() || ptr != value.data() + value.size() || levels < 0)
    throw InputError("strategy " + strategy + ": levels must be a whole number >= 0 (got '" + value + "')");
  return levels;
}

}  // namespace

plan::Plan make_accpar_plan(Strategy strategy, const planner::PlanInputs& inputs) {
  const std::string name = to_string(strategy);
  PlanOptions options;
  const std::vector<std::string> keys =
      strategy == Strategy::accpar ? std::vector<std::string>{"levels", "ratio"} : std::vector<std::string>{"levels"};
  std::string ratio_option = "level";
  for (const auto& [key, value] : planner::parse_options(inputs.options, keys, name)) {
    if (key == "levels") options.levels = parse_levels(value, name);
    if (key == "ratio") {
      if (value != "level" && value != "layer")
        throw InputError("strategy accpar: ratio must be level or layer (got '" + value + "')");
      ratio_option = value;
      options.per_layer_ratio = value == "layer";
    }
  }
  const Problem problem = make_problem(inputs.graph, to_mode(inputs.mode),
                                       topology::bytes_per_element(inputs.spec.precision));
  const Hierarchy hierarchy = build_hierarchy(inputs.spec);
  const PlanResult result = plan_layers(problem, hierarchy, strategy, options);

  plan::Plan p;
  p.options = {"levels=" + std::to_string(options.levels < 0 ? hierarchy.depth : options.levels)};
  if (strategy == Strategy::accpar) p.options.push_back("ratio=" + ratio_option);
  p.predicted_iteration_s = result.iteration_s;
  for (size_t v = 0; v < problem.nodes.size(); ++v) {
    const LayerTime& t = result.layers[v];
    plan::LayerPlan layer;
    layer.name = problem.nodes[v].name;
    layer.predicted.compute_s = t.compute_s + t.aux_s;
    layer.predicted.comm_s = t.intra_s + t.inter_s;
    layer.predicted.total_s = t.total_s;
    layer.predicted.breakdown = {{"primary_compute_s", t.compute_s},
                                 {"aux_compute_s", t.aux_s},
                                 {"intra_layer_s", t.intra_s},
                                 {"inter_layer_s", t.inter_s}};
    for (const auto& c : result.typing[v]) layer.levels.push_back({c.type, c.ratio});
    p.layers.push_back(std::move(layer));
  }
  return p;
}

void check_accpar_plan(const plan::Plan& plan, const topology::SystemSpec& spec, const workloads::Graph& graph,
                       const std::string& file) {
  const Strategy strategy = strategy_from_name(plan.strategy);
  const Hierarchy hierarchy = build_hierarchy(spec);
  const Problem problem = make_problem(graph, Mode::training, 2);
  for (size_t i = 0; i < plan.layers.size() && i < problem.nodes.size(); ++i) {
    const auto& layer = plan.layers[i];
    const Node& node = problem.nodes[i];
    const std::string where = file + ": /layers/" + std::to_string(i) + " ('" + layer.name + "')";
    if (static_cast<int>(layer.levels.size()) != hierarchy.depth)
      throw InputError(where + ": has " + std::to_string(layer.levels.size()) + " levels but platform '" + spec.name +
                       "' (" + std::to_string(spec.device_count()) + " devices) has " +
                       std::to_string(hierarchy.depth) + " (re-run simplan)");
    for (size_t k = 0; k < layer.levels.size(); ++k) {
      const auto& level = layer.levels[k];
      const std::string at = where + "/levels/" + std::to_string(k);
      if (!(level.ratio > 0.0 && level.ratio < 1.0))
        throw InputError(at + "/ratio: must be strictly between 0 and 1 (got " + std::to_string(level.ratio) + ")");
      if (!node.weighted) continue;
      const bool ok = strategy == Strategy::accpar || (strategy == Strategy::hypar && level.type != Type::III) ||
                      (strategy == Strategy::dp && level.type == Type::I) ||
                      (strategy == Strategy::owt && level.type == (node.conv ? Type::I : Type::II)) ||
                      level.type == Type::I;  // levels below the searched ones are data parallel
      if (!ok)
        throw InputError(at + "/type: Type-" + plan::to_string(level.type) + " is not in strategy " + plan.strategy +
                         "'s space (dp: I; owt: conv I, other weighted II; hypar: I, II; accpar: I, II, III)");
    }
  }
}

void register_strategies(planner::StrategyRegistry& registry) {
  const std::vector<std::pair<Strategy, std::string>> family{
      {Strategy::dp, "data parallelism: every layer Type-I, devices share work equally (seed 000 §6.1 baseline)"},
      {Strategy::owt, "one weird trick: conv Type-I, fc Type-II, equal split (seed 000 §3.5, §6.1)"},
      {Strategy::hypar, "HyPar: Types I/II per layer by DP minimising communication volume, equal split (seed 000 §3.5)"},
      {Strategy::accpar, "AccPar: Types I/II/III by DP minimising time, ratio from eq. 10 (seed 000 §4-§5)"},
  };
  for (const auto& [strategy, description] : family) {
    const Strategy s = strategy;
    registry.add({to_string(s), description,
                  [s](const planner::PlanInputs& inputs) { return make_accpar_plan(s, inputs); },
                  check_accpar_plan});
  }
}

}  // namespace partsim::accpar
