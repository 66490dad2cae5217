#include "sim/planners/search/registration.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>

#include "sim/common/error.hpp"
#include "sim/lowering/sharding_lowering.hpp"
#include "sim/planners/option_bindings.hpp"
#include "sim/planners/search/search.hpp"
#include "sim/planners/search/search_log.hpp"

namespace partsim::search {
namespace {

struct Options : SearchOptions {
  std::vector<std::string> families;
  EvaluatorKind evaluator = EvaluatorKind::flow;
  double coalesce = 3e-5;
};

planner::OptionBindings<Options> option_bindings() {
  planner::OptionBindings<Options> b;
  b.number("budget_s", &Options::budget_s, "40", "wall-clock limit of the whole search, seeds included, s (0: none)", {});
  b.integer("candidates", &Options::candidates, "2000",
            "distinct candidates priced after the seeds (0: no limit); with the same seed the same count gives the same plan", {});
  b.number("temperature", &Options::temperature, "0.02",
           "relative: a candidate 2 % dearer than the current one is accepted with probability 1/e", {0, 1e9, true});
  b.integer("patience", &Options::patience, "100", "candidates without a new best before the walk restarts from the best", {1});
  b.add({"families", planner::OptionType::words, "all",
         "planner families whose plans seed the search and whose splits the moves may use (docs/model.md \"search\")",
         family_names(), {}},
        [](Options& o, const planner::OptionValue& v) { o.families = v.words(family_names()); });
  b.choice("evaluator", &Options::evaluator, {{"flow", EvaluatorKind::flow}, {"closed", EvaluatorKind::closed}}, "flow",
           "how candidates are timed: flow = the replay's max-min network model, closed = without contention");
  b.number("coalesce", &Options::coalesce, "3e-5",
           "once a plan's exact evaluation passes about a second, the flow evaluator re-solves the events within this "
           "fraction of the time together (0: always exact, as the replay; 3e-5: 2-5x faster on contended 256-chip plans, "
           "within 2 % of exact where measured)",
           {0, 0.1});
  b.integer("finalists", &Options::finalists, "4",
            "best distinct candidates evaluated again at the end, under jittered compute times; the lowest mean wins "
            "(0: none; docs/model.md \"Chaotic plans\")", {0, 64});
  b.integer("samples", &Options::samples, "8",
            "evaluations of each finalist, its exact one included; the prediction is their mean (1: none)", {1, 1000});
  b.number("jitter", &Options::jitter, "1e-6", "relative jitter of the compute times in those evaluations",
           {0, 0.1, true});
  return b;
}

bool allowed(const Options& o, const std::string& family) {
  return std::find(o.families.begin(), o.families.end(), family) != o.families.end();
}

MenuKinds menu_kinds(const Options& o) {
  MenuKinds k{false, false, false, false, false};
  auto any = [&](std::initializer_list<const char*> families) {
    return std::any_of(families.begin(), families.end(), [&](const char* f) { return allowed(o, f); });
  };
  k.batch = any({"accpar", "deepa", "mars", "mcm", "megatron"});
  k.channels = any({"accpar", "deepa", "mars", "megatron"});
  k.spatial = any({"deepa", "dsm"});
  k.two_dim = any({"accpar", "deepa", "megatron"});
  k.subsets = any({"deepa", "mars", "mcm", "megatron"});
  return k;
}

// The plan a search plan stands for when it chose a seed with a lowering of its own.
plan::Plan seed_plan_of(const plan::Plan& p) {
  plan::Plan inner = p;
  inner.strategy = p.family->at("lowered_by").get<std::string>();
  inner.family = p.family->at("seed_family");
  return inner;
}

bool lowered_by_seed(const plan::Plan& p) { return p.family->is_object() && p.family->contains("lowered_by"); }

plan::Plan make_search_plan(const planner::StrategyRegistry& registry, const planner::PlanInputs& in) {
  Options o = option_bindings().read(in.resolved);
  o.seed = in.seed.value_or(1);
  o.kinds = menu_kinds(o);
  o.search_schedule = in.mode == plan::Mode::training && !in.schedule;
  const auto t0 = std::chrono::steady_clock::now();
  std::map<std::string, std::string> refusals, narrowed;
  // A seed planner may take half the budget (the walk needs the rest).
  const std::vector<Candidate> seeds = plan_seeds(registry, in, o.families, refusals, o.budget_s / 2, &narrowed);
  if (seeds.empty())
    throw InputError("strategy search: no strategy of the allowed families (" + nlohmann::json(o.families).dump() +
                     ") plans this platform and workload: " + nlohmann::json(refusals).dump());
  const double seeding_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  SearchOptions walk = o;
  // What the seeds left of the budget (at least a moment: 0 would mean no limit).
  if (walk.budget_s > 0) walk.budget_s = std::max(1e-9, walk.budget_s - seeding_s);
  // One evaluation may take about a quarter of the budget (in flow re-solves, so deterministic); a
  // seed's up to twice that (search.cpp seed_work_limit).
  const double max_work = o.budget_s > 0 ? o.budget_s / 4 * Pricer::kWorkPerSecond : 0;
  const Pricer pricer(registry, in.spec, in.graph, o.evaluator, o.coalesce, max_work);
  const SearchResult r = run_search(seeds, pricer, in.graph, in.spec.device_count(), in.mode, walk, in.progress);

  plan::Plan p = r.best.plan;
  p.predicted_iteration_s = r.best_price.predicted_s;
  p.memory = r.best_price.memory;
  nlohmann::json family = {{"origin", r.best.origin},
                           {"evaluator", to_string(o.evaluator)},
                           {"coalesce", o.coalesce},
                           {"closed_form_s", r.best_price.closed_s},
                           {"candidates", r.candidates},
                           {"seeds_priced", static_cast<long long>(r.log.size()) - r.candidates},
                           {"stopped_by", r.stopped_by},
                           {"seeding_s", seeding_s},
                           {"elapsed_s", seeding_s + r.elapsed_s}};
  if (!refusals.empty()) family["refused"] = nlohmann::json(refusals);
  if (!narrowed.empty()) family["narrowed"] = nlohmann::json(narrowed);
  if (!r.best_price.samples.empty()) {
    const auto [lo, hi] = r.best_price.sample_range();
    family["resampled"] = {{"finalists", r.resampled},
                           {"samples", r.samples},
                           {"jitter", o.jitter},
                           {"exact_s", r.best_price.samples.front()},
                           {"min_s", lo},
                           {"max_s", hi}};
  }
  if (!r.best.lowered_by.empty()) {
    family["lowered_by"] = r.best.lowered_by;
    family["seed_family"] = *r.best.plan.family;
  } else {
    for (auto& layer : p.layers) layer.family = plan::FamilyFields{};
  }
  p.family = std::move(family);
  // Each layer's prediction: the evaluator's time of its passes (they overlap other layers' work).
  for (auto& layer : p.layers) {
    layer.predicted = {};
    layer.passes.clear();
  }
  for (const program::LayerPassSpan& span : r.best_price.spans) {
    if (span.layer < 0 || static_cast<std::size_t>(span.layer) >= p.layers.size()) continue;
    plan::LayerPlan& layer = p.layers[static_cast<std::size_t>(span.layer)];
    plan::PredictedCost cost;
    cost.total_s = span.span();
    cost.compute_s = std::min(span.compute_busy_s, cost.total_s);
    cost.comm_s = cost.total_s - cost.compute_s;
    layer.passes.push_back({span.pass, cost});
    layer.predicted.total_s += cost.total_s;
    layer.predicted.compute_s += cost.compute_s;
    layer.predicted.comm_s += cost.comm_s;
  }
  if (in.side_file) in.side_file("search.csv", search_log_csv(r.log));
  return p;
}

}  // namespace

const std::vector<std::string>& family_names() {
  static const std::vector<std::string> names{"accpar", "deepa", "dsm", "mars", "mcm", "megatron"};
  return names;
}

std::string family_of(const std::string& strategy) {
  static const std::map<std::string, std::string> families{
      {"dp", "accpar"},         {"owt", "accpar"},        {"hypar", "accpar"},   {"accpar", "accpar"},
      {"deepa", "deepa"},       {"dsm", "dsm"},           {"mars", "mars"},      {"h2h", "mars"},
      {"mcm_greedy", "mcm"},    {"mcm_random", "mcm"},    {"mcm_sa", "mcm"},     {"mcm_rl", "mcm"},
      {"megatron", "megatron"}};
  const auto it = families.find(strategy);
  return it == families.end() ? "" : it->second;
}

// A seed planner that bounds its own work up front gets the bound `seconds` allow: DeePa's
// xfer_limit counts the link-load updates its eq. 1 precomputation would make (3-7 ns of CPU each,
// docs/model.md "DeePa"); at 5 ns each. Over it, the planner is tried again on a narrower space
// within a quarter of that: DeePa with dims=n,c (degrees over images and channels only, its own
// option), 10-60x less work on 128-256 chips (tpu_v3_128 vgg16: 1.56e10 -> 2.0e8 updates, 47 s ->
// 1 s) and the same plans where measured (docs/model.md "The `search` strategy", seeds). A rung
// over its bound is refused at once (WorkLimitError), and the next one tried.
std::vector<SeedRung> seed_option_ladder(const std::string& strategy, double seconds) {
  if (strategy != "deepa" || seconds <= 0) return {{}};
  auto limit = [](double s) {
    char text[64];
    std::snprintf(text, sizeof text, "xfer_limit=%.6g", s / 5e-9);
    return std::string(text);
  };
  return {{{limit(seconds)}, ""}, {{limit(seconds / 4), "dims=n,c"}, "dims=n,c"}};
}

std::vector<Candidate> plan_seeds(const planner::StrategyRegistry& registry, const planner::PlanInputs& in,
                                  const std::vector<std::string>& families, std::map<std::string, std::string>& refusals,
                                  double seed_seconds, std::map<std::string, std::string>* narrowed) {
  std::vector<plan::ScheduleDirectives> schedules;
  if (in.schedule) schedules = {*in.schedule};
  else if (in.mode == plan::Mode::training) schedules = {schedule_variants()[0], schedule_variants()[1]};  // the walk tries the third
  std::vector<Candidate> seeds;
  for (const planner::StrategyInfo& info : registry.strategies()) {
    if (info.name == "search") continue;
    const std::string family = family_of(info.name);
    if (!family.empty() && std::find(families.begin(), families.end(), family) == families.end()) continue;
    plan::Plan p;
    bool planned = false;
    std::string over;  // what each rung tried refused, in order
    for (const SeedRung& rung : seed_option_ladder(info.name, seed_seconds)) {
      const auto refused = [&](const Error& e) { over += (over.empty() ? "" : "; then with " + rung.narrowing + ": ") + e.what(); };
      try {
        // Stochastic seeds get the search's seed; deterministic ones refuse any.
        const planner::PlanInputs seed_inputs{in.spec, in.graph, in.workload_name, in.mode, rung.options,
                                              info.stochastic ? in.seed : std::nullopt};
        p = registry.make_plan(info.name, seed_inputs);
      } catch (const WorkLimitError& e) {  // over this rung's bound: the next, narrower rung
        refused(e);
        continue;
      } catch (const Error& e) {  // a refusal (InputError), or a strategy that cannot run here (mcm_rl without its plugin)
        refused(e);
        break;
      }
      planned = true;
      if (!rung.narrowing.empty() && narrowed) (*narrowed)[info.name] = rung.narrowing + " (the full space: " + over + ")";
      break;
    }
    if (!planned) {
      refusals[info.name] = over;
      continue;
    }
    if (info.lower) {
      seeds.push_back({p, info.name, info.name});
      continue;
    }
    if (schedules.empty()) {
      seeds.push_back({p, "", info.name});
      continue;
    }
    for (const plan::ScheduleDirectives& s : schedules) {
      Candidate c{p, "", info.name};
      c.plan.schedule = in.schedule ? s : with_gradient_schedule(p.schedule, s);
      seeds.push_back(std::move(c));
    }
  }
  return seeds;
}

void register_strategies(planner::StrategyRegistry& registry, const planner::StrategyRegistry& (*seeds_from)()) {
  planner::StrategyInfo info;
  info.name = "search";
  info.description = "FlexFlow-style MCMC over every family's splits, seeded with every strategy's plan, "
                     "priced by partsim's lowering and the flow evaluator (issue 44)";
  info.options = option_bindings().specs();
  info.stochastic = true;
  info.reads_schedule_directives = true;
  info.plan = [seeds_from](const planner::PlanInputs& in) { return make_search_plan(seeds_from(), in); };
  info.check = [seeds_from](const plan::Plan& p, const topology::SystemSpec& spec, const workloads::Graph& graph,
                            const std::string& file) {
    if (!lowered_by_seed(p)) return;
    if (!p.family->at("lowered_by").is_string())
      throw InputError(file + ": /family/lowered_by: a strategy name (one with a lowering of its own, e.g. dsm)");
    if (!p.family->contains("seed_family"))
      throw InputError(file + ": /family/seed_family: missing (a search plan lowered by its seed's strategy carries "
                              "that strategy's plan family there)");
    const plan::Plan inner = seed_plan_of(p);
    const planner::StrategyInfo& seed = seeds_from().find(inner.strategy);
    if (!seed.lower)
      throw InputError(file + ": /family/lowered_by: strategy '" + inner.strategy +
                       "' uses the shared lowering (only a strategy with a lowering of its own is named here)");
    if (seed.check) seed.check(inner, spec, graph, file);
  };
  info.lower = [seeds_from](const lowering::Context& context) {
    if (!lowered_by_seed(context.plan)) return lowering::lower_sharding(context);
    const plan::Plan inner = seed_plan_of(context.plan);
    const lowering::Context seed_context{inner, context.spec, context.workload, context.topology, context.max_tasks};
    return seeds_from().find(inner.strategy).lower(seed_context);
  };
  registry.add(std::move(info));
}

}  // namespace partsim::search
