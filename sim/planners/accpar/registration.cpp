#include "sim/planners/accpar/registration.hpp"

#include <nlohmann/json.hpp>

#include "sim/planners/accpar/notation.hpp"
#include "sim/planners/accpar/plan_fields.hpp"
#include "sim/common/error.hpp"
#include "sim/planners/compute_check.hpp"

namespace partsim::accpar {
namespace {

/// compute=device: each layer's compute is what the platform's device model takes for the plan's
/// shards (per pass the slowest shard, planner::check_compute_by_layer, the function simplan's
/// warning uses) instead of eq. 8's FLOPs at peak. The layer's communication is kept, so its total
/// becomes communication + device compute, and the iteration stays the sum over layers (eq. 9).
/// The search is not changed: it chose types and ratios with eq. 8; this prices the chosen plan.
void price_compute_with_device_model(plan::Plan& p, const planner::PlanInputs& inputs) {
  p.workload.mode = inputs.mode;  // check_compute_by_layer reads which passes run
  const auto device = planner::check_compute_by_layer(p, inputs.spec, inputs.graph);
  p.predicted_iteration_s = 0;
  for (size_t v = 0; v < p.layers.size(); ++v) {
    plan::PredictedCost& cost = p.layers[v].predicted;
    cost.total_s += device[v].device_compute_s - cost.compute_s;
    cost.compute_s = device[v].device_compute_s;
    cost.breakdown["device_compute_s"] = device[v].device_compute_s;
    p.predicted_iteration_s += cost.total_s;
  }
}

}  // namespace

planner::OptionBindings<AccparOptions> option_bindings(Strategy strategy) {
  planner::OptionBindings<AccparOptions> b;
  b.integer("levels", &AccparOptions::levels, "all", "hierarchy levels searched, top first; the levels below are Type-I",
            {}, {{"all", -1}});
  if (strategy == Strategy::accpar)
    b.choice("ratio", &AccparOptions::per_layer_ratio, {{"level", false}, {"layer", true}}, "level",
             "eq. 10 once per hierarchy level for all layers, or per layer");
  b.choice("bandwidth", &AccparOptions::bandwidth, {"cut", "device"}, bandwidth_reading_from_name, "cut",
           "eq. 7's b at a split: cut = the smaller side's summed b_i (what the star delivers), device = the "
           "fetching side's own b_i (the paper's A(T)/b_i)");
  b.choice("compute", &AccparOptions::device_compute, {{"peak", false}, {"device", true}}, "peak",
           "eq. 8's computation: peak = FLOPs at the devices' peak (the paper), device = the chosen plan's shards "
           "priced by the platform's device model (PE-array mapping, memory-bound layers; the search still uses eq. 8)");
  return b;
}

plan::Plan make_accpar_plan(Strategy strategy, const planner::PlanInputs& inputs) {
  const AccparOptions options = option_bindings(strategy).read(inputs.resolved);
  const Problem problem = make_problem(inputs.graph, inputs.mode,
                                       topology::bytes_per_element(inputs.spec.precision));
  const Hierarchy hierarchy = build_hierarchy(inputs.spec, options.bandwidth);
  const PlanResult result = plan_layers(problem, hierarchy, strategy, options);

  plan::Plan p;
  p.predicted_iteration_s = result.iteration_s;
  for (size_t v = 0; v < problem.nodes.size(); ++v) {
    const LayerTime& t = result.layers[v];
    plan::LayerPlan layer;
    layer.name = problem.nodes[v].name;
    layer.sharding = sharding_of(hierarchy, result.typing[v]);
    layer.predicted.compute_s = t.compute_s + t.aux_s;
    layer.predicted.comm_s = t.intra_s + t.inter_s;
    layer.predicted.total_s = t.total_s;
    layer.predicted.breakdown = {{"primary_compute_s", t.compute_s},
                                 {"aux_compute_s", t.aux_s},
                                 {"intra_layer_s", t.intra_s},
                                 {"inter_layer_s", t.inter_s}};
    *layer.family = levels_to_json(result.typing[v]);
    p.layers.push_back(std::move(layer));
  }
  if (options.device_compute) price_compute_with_device_model(p, inputs);
  return p;
}

void check_accpar_plan(const plan::Plan& plan, const topology::SystemSpec& spec, const workloads::Graph& graph,
                       const std::string& file) {
  const Strategy strategy = strategy_from_name(plan.strategy);
  const Hierarchy hierarchy = build_hierarchy(spec);
  const Typing typing = typing_from_plan(plan, hierarchy, file);
  const Problem problem = make_problem(graph, Mode::training, 2);
  for (size_t i = 0; i < plan.layers.size() && i < problem.nodes.size(); ++i) {
    const auto& layer = plan.layers[i];
    const Node& node = problem.nodes[i];
    const std::string where = file + ": /layers/" + std::to_string(i);
    for (size_t k = 0; k < typing[i].size() && node.weighted; ++k) {
      const Type type = typing[i][k].type;
      const bool ok = strategy == Strategy::accpar || (strategy == Strategy::hypar && type != Type::III) ||
                      (strategy == Strategy::dp && type == Type::I) ||
                      (strategy == Strategy::owt && type == (node.conv ? Type::I : Type::II)) ||
                      type == Type::I;  // levels below the searched ones are data parallel
      if (!ok)
        throw InputError(where + "/family/levels/" + std::to_string(k) + "/type: Type-" + to_string(type) +
                         " is not in strategy " + plan.strategy +
                         "'s space (dp: I; owt: conv I, other weighted II; hypar: I, II; accpar: I, II, III)");
    }
    // The sharding must say what the levels say: the lowering reads the sharding.
    if (!(layer.sharding == sharding_of(hierarchy, typing[i])))
      throw InputError(where + "/sharding: does not match the layer's AccPar levels (family.levels) on platform '" +
                       spec.name + "' (re-run simplan)");
  }
}

void register_strategies(planner::StrategyRegistry& registry) {
  const std::vector<std::pair<Strategy, std::string>> family{
      {Strategy::dp, "data parallelism: every layer Type-I, devices share work equally (AccPar §6.1 baseline)"},
      {Strategy::owt, "one weird trick: conv Type-I, fc Type-II, equal split (AccPar §3.5, §6.1)"},
      {Strategy::hypar, "HyPar: Types I/II per layer by DP minimising communication volume, equal split (AccPar §3.5)"},
      {Strategy::accpar, "AccPar: Types I/II/III by DP minimising time, ratio from eq. 10 (AccPar §4-§5)"},
  };
  for (const auto& [strategy, description] : family) {
    const Strategy s = strategy;
    planner::StrategyInfo info;
    info.name = to_string(s);
    info.description = description;
    info.options = option_bindings(s).specs();
    info.plan = [s](const planner::PlanInputs& inputs) { return make_accpar_plan(s, inputs); };
    info.check = check_accpar_plan;
    registry.add(std::move(info));
  }
  registry.add_notation(notation_view());  // AccPar's B, D_i, D_o, ... in describe JSON
}

}  // namespace partsim::accpar
