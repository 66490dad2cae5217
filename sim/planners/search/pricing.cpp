#include "sim/planners/search/pricing.hpp"

#include <cstdio>

#include "sim/common/error.hpp"
#include "sim/lowering/sharding_lowering.hpp"
#include "sim/memory/footprint.hpp"
#include "sim/planners/check_plan.hpp"
#include "sim/program/closed_form.hpp"
#include "sim/program/flow_evaluator.hpp"

namespace partsim::search {

EvaluatorKind evaluator_from_name(const std::string& name) {
  if (name == "flow") return EvaluatorKind::flow;
  if (name == "closed") return EvaluatorKind::closed;
  throw InputError("evaluator '" + name + "': allowed flow, closed");
}

std::string to_string(EvaluatorKind kind) { return kind == EvaluatorKind::flow ? "flow" : "closed"; }

Pricer::Pricer(const planner::StrategyRegistry& registry, const topology::SystemSpec& spec, const workloads::Graph& graph,
               EvaluatorKind evaluator, double coalesce, double max_work)
    : registry_(registry), spec_(spec), graph_(graph), evaluator_(evaluator), coalesce_(coalesce), max_work_(max_work),
      topology_(spec, topology::Granularity::chip) {}

std::unique_ptr<const LoweredCandidate> Pricer::lower(const Candidate& candidate) const {
  std::unique_ptr<LoweredCandidate> l(new LoweredCandidate());
  const plan::Plan& p = candidate.plan;  // read while lowering only (the Program keeps its own labels)
  const topology::SystemSpec* spec = &spec_;
  l->topology_ = &topology_;
  try {
    // A plan that configures devices (MARS designs) runs on the platform as configured.
    if (!p.configuration.empty()) {
      spec = &l->configured_.emplace(planner::configured_platform(p, spec_));
      l->topology_ = &l->configured_topology_.emplace(*spec, topology::Granularity::chip);
    }
    const lowering::Context context{p, *spec, graph_, *l->topology_, kMaxTasks};
    l->program_ = candidate.lowered_by.empty() ? lowering::lower_sharding(context)
                                               : registry_.find(candidate.lowered_by).lower(context);
  } catch (const InputError& e) {
    l->refused_ = e.what();
    return l;
  } catch (const program::TaskLimitExceeded& e) {
    l->refused_ = "over " + std::to_string(e.limit()) + " tasks (the search prices no larger programs)";
    return l;
  }
  l->memory_ = candidate.lowered_by.empty()
                   ? std::optional(memory::plan_memory(p, *spec, graph_, memory::default_memory_settings(spec->precision)))
                   : p.memory;
  const program::TransferRoutes& routes = l->routes_.emplace(l->program_, *l->topology_);
  const program::Evaluation closed = program::ClosedFormEvaluator(routes).evaluate(l->program_);
  l->closed_s_ = closed.makespan_s;
  if (evaluator_ == EvaluatorKind::closed) l->closed_spans_ = program::layer_pass_spans(l->program_, closed);
  return l;
}

Price Pricer::price(const LoweredCandidate& lowered, double prune_at, double max_work) const {
  Price price;
  if (!lowered.refused_.empty()) {
    price.refused = lowered.refused_;
    return price;
  }
  price.memory = lowered.memory_;
  price.fits = !price.memory || price.memory->fits();
  price.closed_s = lowered.closed_s_;
  if (evaluator_ == EvaluatorKind::closed) {
    price.predicted_s = lowered.closed_s_;
    price.spans = lowered.closed_spans_;
    return price;
  }
  if (lowered.closed_s_ >= prune_at) {
    price.pruned = true;
    price.predicted_s = lowered.closed_s_;
    return price;
  }
  program::FlowEvaluator evaluator(*lowered.routes_, *lowered.topology_, coalesce_, kExactWork);
  evaluator.set_work_limit(max_work > 0 ? max_work : max_work_);
  try {
    const program::Evaluation flow = evaluator.evaluate(lowered.program_);
    price.predicted_s = flow.makespan_s;
    price.spans = program::layer_pass_spans(lowered.program_, flow);
  } catch (const program::WorkLimitExceeded& e) {
    char why[160];
    std::snprintf(why, sizeof why, "not timed: its flow evaluation passed %.3g re-solves (the search's work limit for "
                  "this evaluation)", e.limit());
    price.refused = why;
    price.over_work_limit = true;
  }
  return price;
}

std::vector<double> Pricer::resample(const Candidate& candidate, int count, double relative, std::uint64_t seed) const {
  std::vector<double> makespans;
  if (evaluator_ != EvaluatorKind::flow) return makespans;
  const std::unique_ptr<const LoweredCandidate> lowered = lower(candidate);
  if (!lowered->refused_.empty()) return makespans;
  program::FlowEvaluator flow(*lowered->routes_, *lowered->topology_, coalesce_, kExactWork);
  flow.set_work_limit(max_work_);
  try {
    for (int k = 1; k <= count; ++k) {
      flow.set_jitter({relative, seed + static_cast<std::uint64_t>(k)});
      makespans.push_back(flow.evaluate(lowered->program_).makespan_s);
    }
  } catch (const program::WorkLimitExceeded&) {
    // the samples before it stand
  }
  return makespans;
}

}  // namespace partsim::search
