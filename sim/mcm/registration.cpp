#include "sim/mcm/registration.hpp"

#include <nlohmann/json.hpp>
#include <limits>

#include "sim/common/error.hpp"
#include "sim/mcm/constraints.hpp"
#include "sim/mcm/searches.hpp"

namespace partsim::mcm {
namespace {

enum class Search { greedy, random, annealing };

SearchOptions search_options(const planner::PlanInputs& in, Search search) {
  SearchOptions o;
  o.seed = in.seed.value_or(1);
  o.solver = solver_options(in);
  o.progress = in.progress;
  if (search == Search::greedy) o.split = parse_greedy_split(in.resolved.text("split"));
  if (search != Search::greedy) o.samples = static_cast<int>(in.resolved.integer("samples"));
  if (search == Search::annealing) {
    o.t0 = in.resolved.number("t0");
    o.cooling = in.resolved.number("cooling");
    o.move_fraction = in.resolved.number("move_fraction");
    o.sharpness = in.resolved.number("sharpness");
  }
  return o;
}

plan::Plan make_plan(Search search, const planner::PlanInputs& in) {
  const PlacementProblem problem = inference_problem(in);
  const SearchOptions o = search_options(in, search);
  const SearchResult r = search == Search::greedy   ? greedy_search(problem, o)
                         : search == Search::random ? random_search(problem, o)
                                                    : annealing_search(problem, o);
  plan::Plan p = plan_from_search(problem, r, in);
  if (search == Search::greedy) (*p.family)["split"] = to_string(o.split);
  return p;
}

}  // namespace

PlacementProblem inference_problem(const planner::PlanInputs& in) {
  if (in.mode != plan::Mode::inference)
    throw InputError("the mcm strategies place an inference graph (MCM paper pipelines inference on the package): "
                     "use --mode inference");
  return make_problem(in.spec, in.graph);
}

plan::Plan plan_from_search(const PlacementProblem& problem, const SearchResult& r, const planner::PlanInputs& in) {
  if (r.best.empty())
    throw InputError("no valid placement of '" + in.workload_name + "' on '" + in.spec.name + "' in " +
                     std::to_string(r.samples) + " samples (" + std::to_string(r.invalid_samples) +
                     " failed the memory constraint H(G, f)); try more samples");
  plan::Plan p;
  p.predicted_iteration_s = r.best_cost.latency_s;
  for (std::size_t v = 0; v < problem.nodes.size(); ++v) {
    plan::LayerPlan layer;
    layer.name = problem.nodes[v].name;
    layer.sharding.devices = {r.best[v]};
    layer.predicted.compute_s = layer.predicted.total_s = problem.nodes[v].compute_s;
    *layer.family = {{"chip", r.best[v]}};
    p.layers.push_back(std::move(layer));
  }
  nlohmann::json chips = nlohmann::json::array();
  for (const ChipCost& c : r.best_cost.chips) chips.push_back({{"compute_s", c.compute_s}, {"receive_s", c.receive_s}});
  *p.family = {{"model", "analytical: max over chips of compute + receive (MCM paper §5.1)"},
              {"latency_s", r.best_cost.latency_s},
              {"throughput_per_s", r.best_cost.throughput_per_s()},
              {"bottleneck_chip", r.best_cost.bottleneck_chip},
              {"chips", chips},
              {"samples", r.samples},
              {"invalid_samples", r.invalid_samples},
              {"best_throughput_per_sample", r.best_throughput}};
  return p;
}

void check_mcm_plan(const plan::Plan& plan, const topology::SystemSpec& spec, const workloads::Graph& graph,
                const std::string& file) {
  const PlacementProblem problem = make_problem(spec, graph);
  Placement f(problem.nodes.size(), 0);
  for (std::size_t v = 0; v < plan.layers.size() && v < f.size(); ++v) {
    const plan::Sharding& s = plan.layers[v].sharding;
    if (s.devices.size() != 1 || !s.splits.empty())
      throw InputError(file + ": /layers/" + std::to_string(v) + "/sharding: an mcm plan puts each layer on one chip "
                       "(devices: [chip], no splits)");
    f[v] = s.devices[0];
  }
  check_valid(problem, f, file + ": /layers");
}

std::vector<planner::OptionSpec> solver_option_specs() {
  using planner::OptionSpec;
  using planner::OptionType;
  return {{"weights_fit", OptionType::boolean, "true",
           "solver also keeps every chip's weights within its SRAM (part of H(G, f))", {}},
          {"max_backtracks", OptionType::integer, "100000",
           "solver backtracks per placement, restarts included, before it gives up", {}},
          {"restart_backtracks", OptionType::integer, "20",
           "solver backtracks before it restarts with a new random node order", {}}};
}

planner::OptionSpec greedy_split_option_spec() {
  return {"split", planner::OptionType::choice, "compute",
          "greedy baseline: a chip is full at 1/C of the total compute or its SRAM (compute), or at its SRAM "
          "only, weights and live tensors (memory: the fewest chips)",
          {"compute", "memory"}};
}

SolverOptions solver_options(const planner::PlanInputs& in) {
  SolverOptions o;
  o.weights_fit = in.resolved.flag("weights_fit");
  o.max_failures = in.resolved.integer("max_backtracks");
  o.restart_failures = in.resolved.integer("restart_backtracks");
  return o;
}

void register_strategies(planner::StrategyRegistry& registry) {
  using planner::OptionSpec;
  using planner::OptionType;
  const std::vector<OptionSpec> solver = solver_option_specs();
  const OptionSpec& weights_fit = solver[0];
  const OptionSpec& backtracks = solver[1];
  const OptionSpec& restarts = solver[2];
  const OptionSpec samples{"samples", OptionType::integer, "200", "placements drawn and evaluated", {}, {1}};
  const planner::OptionRange positive{0, std::numeric_limits<double>::infinity(), true};
  const planner::OptionRange fraction{0, 1, true};  // (0, 1]
  struct Entry {
    Search search;
    std::string name, description;
    std::vector<OptionSpec> options;
  };
  const std::vector<Entry> entries{
      {Search::greedy, "mcm_greedy",
       "MCM placement baseline (MCM paper §5.3): topological split by equal compute (or SRAM filling), FIX-mode repair",
       {greedy_split_option_spec(), weights_fit, backtracks, restarts}},
      {Search::random, "mcm_random",
       "MCM placement, random search (MCM paper §5.1): uniform distribution, SAMPLE-mode solver",
       {samples, weights_fit, backtracks, restarts}},
      {Search::annealing, "mcm_sa",
       "MCM placement, simulated annealing over per-node distributions (MCM paper §5.1), SAMPLE-mode solver",
       {samples, weights_fit, backtracks, restarts,
        {"t0", OptionType::number, "0.05", "initial temperature, relative to the first valid latency", {}, positive},
        {"cooling", OptionType::number, "0.98", "temperature factor per sample", {}, fraction},
        {"move_fraction", OptionType::number, "0.1", "probability a node gets a new distribution per step", {}, fraction},
        {"sharpness", OptionType::number, "8", "exponent on the uniform weights of a new distribution (peakedness)", {}}}},
  };
  for (const Entry& e : entries) {
    planner::StrategyInfo info;
    info.name = e.name;
    info.description = e.description;
    info.options = e.options;
    info.stochastic = e.search != Search::greedy;
    const Search search = e.search;
    info.plan = [search](const planner::PlanInputs& in) { return make_plan(search, in); };
    info.check = check_mcm_plan;
    registry.add(std::move(info));
  }
}

}  // namespace partsim::mcm
