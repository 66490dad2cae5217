#include "sim/planners/mcm/registration.hpp"

#include <nlohmann/json.hpp>
#include <limits>

#include "sim/common/error.hpp"
#include "sim/planners/mcm/constraints.hpp"
#include "sim/planners/mcm/searches.hpp"

namespace partsim::mcm {
namespace {

enum class Search { greedy, random, annealing };

/// The options of one search, declared and bound to their fields.
planner::OptionBindings<SearchOptions> option_bindings(Search search) {
  using O = SearchOptions;
  planner::OptionBindings<O> b;
  if (search == Search::greedy) bind_greedy_split(b, &O::split);
  if (search != Search::greedy) b.integer("samples", &O::samples, "200", "placements drawn and evaluated", {1});
  b.nest(&O::solver, solver_option_bindings());
  if (search == Search::annealing) {
    const planner::OptionRange positive{0, std::numeric_limits<double>::infinity(), true};
    const planner::OptionRange fraction{0, 1, true};  // (0, 1]
    b.number("t0", &O::t0, "0.05", "initial temperature, relative to the first valid latency", positive);
    b.number("cooling", &O::cooling, "0.98", "temperature factor per sample", fraction);
    b.number("move_fraction", &O::move_fraction, "0.1", "probability a node gets a new distribution per step", fraction);
    b.number("sharpness", &O::sharpness, "8", "exponent on the uniform weights of a new distribution (peakedness)", {});
  }
  return b;
}

SearchOptions search_options(const planner::PlanInputs& in, Search search) {
  SearchOptions o = option_bindings(search).read(in.resolved);
  o.seed = in.seed.value_or(1);
  o.progress = in.progress;
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

planner::OptionBindings<SolverOptions> solver_option_bindings(const std::string& max_backtracks_default) {
  planner::OptionBindings<SolverOptions> b;
  b.flag("weights_fit", &SolverOptions::weights_fit, "true",
         "solver also keeps every chip's weights within its SRAM (part of H(G, f))");
  b.integer("max_backtracks", &SolverOptions::max_failures, max_backtracks_default,
            "solver backtracks per placement, restarts included, before it gives up", {});
  b.integer("restart_backtracks", &SolverOptions::restart_failures, "20",
            "solver backtracks before it restarts with a new random node order", {});
  return b;
}

void register_strategies(planner::StrategyRegistry& registry) {
  struct Entry {
    Search search;
    std::string name, description;
  };
  const std::vector<Entry> entries{
      {Search::greedy, "mcm_greedy",
       "MCM placement baseline (MCM paper §5.3): topological split by equal compute (or SRAM filling), FIX-mode repair"},
      {Search::random, "mcm_random",
       "MCM placement, random search (MCM paper §5.1): uniform distribution, SAMPLE-mode solver"},
      {Search::annealing, "mcm_sa",
       "MCM placement, simulated annealing over per-node distributions (MCM paper §5.1), SAMPLE-mode solver"},
  };
  for (const Entry& e : entries) {
    planner::StrategyInfo info;
    info.name = e.name;
    info.description = e.description;
    info.options = option_bindings(e.search).specs();
    info.stochastic = e.search != Search::greedy;
    const Search search = e.search;
    info.plan = [search](const planner::PlanInputs& in) { return make_plan(search, in); };
    info.check = check_mcm_plan;
    registry.add(std::move(info));
  }
}

}  // namespace partsim::mcm
