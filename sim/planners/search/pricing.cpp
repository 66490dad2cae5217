#include "sim/planners/search/pricing.hpp"

#include <cstdio>

#include "sim/common/error.hpp"
#include "sim/lowering/sharding_lowering.hpp"
#include "sim/memory/footprint.hpp"
#include "sim/planners/check_plan.hpp"
#include "sim/program/closed_form.hpp"
#include "sim/program/flow_evaluator.hpp"
#include "sim/program/platform_binding.hpp"

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

std::string Pricer::lower(const Candidate& candidate, const UseProgram& use) const {
  const plan::Plan& p = candidate.plan;
  // A plan that configures devices (MARS designs) runs on the platform as configured.
  std::optional<topology::SystemSpec> configured;
  std::optional<topology::TopologyGraph> configured_topology;
  if (!p.configuration.empty()) {
    configured = planner::configured_platform(p, spec_);
    configured_topology.emplace(*configured, topology::Granularity::chip);
  }
  const topology::SystemSpec& spec = configured ? *configured : spec_;
  const topology::TopologyGraph& topology = configured_topology ? *configured_topology : topology_;
  program::Program program;
  try {
    const lowering::Context context{p, spec, graph_, topology, kMaxTasks};
    program = candidate.lowered_by.empty() ? lowering::lower_sharding(context)
                                           : registry_.find(candidate.lowered_by).lower(context);
  } catch (const InputError& e) {
    return e.what();
  } catch (const program::TaskLimitExceeded& e) {
    return "over " + std::to_string(e.limit()) + " tasks (the search prices no larger programs)";
  }
  use(program, topology, spec);
  return "";
}

Price Pricer::price(const Candidate& candidate, double prune_at, double max_work) const {
  Price price;
  const std::string refused = lower(candidate, [&](const program::Program& program, const topology::TopologyGraph& topology,
                                       const topology::SystemSpec& spec) {
    const plan::Plan& p = candidate.plan;
    price.memory = candidate.lowered_by.empty()
                       ? std::optional(memory::plan_memory(p, spec, graph_, memory::default_memory_settings(spec.precision)))
                       : p.memory;
    price.fits = !price.memory || price.memory->fits();
    const program::TransferRoutes routes(program, topology);
    const program::Evaluation closed = program::ClosedFormEvaluator(routes).evaluate(program);
    price.closed_s = closed.makespan_s;
    if (evaluator_ == EvaluatorKind::flow && closed.makespan_s >= prune_at) {
      price.pruned = true;
      price.predicted_s = closed.makespan_s;
      return;
    }
    if (evaluator_ == EvaluatorKind::closed) {
      price.predicted_s = closed.makespan_s;
      price.spans = program::layer_pass_spans(program, closed);
    } else {
      program::FlowEvaluator evaluator(routes, topology, coalesce_, kExactWork);
      evaluator.set_work_limit(max_work > 0 ? max_work : max_work_);
      try {
        const program::Evaluation flow = evaluator.evaluate(program);
        price.predicted_s = flow.makespan_s;
        price.spans = program::layer_pass_spans(program, flow);
      } catch (const program::WorkLimitExceeded& e) {
        char why[160];
        std::snprintf(why, sizeof why, "not timed: its flow evaluation passed %.3g re-solves (the search's limit for "
                      "one evaluation: budget_s / 4 at %.3g re-solves a second)", e.limit(), kWorkPerSecond);
        price.refused = why;
        price.over_work_limit = true;
      }
    }
  });
  if (!refused.empty()) price.refused = refused;
  return price;
}

std::vector<double> Pricer::resample(const Candidate& candidate, int count, double relative, std::uint64_t seed) const {
  std::vector<double> makespans;
  if (evaluator_ != EvaluatorKind::flow) return makespans;
  lower(candidate, [&](const program::Program& program, const topology::TopologyGraph& topology, const topology::SystemSpec&) {
    const program::TransferRoutes routes(program, topology);
    program::FlowEvaluator flow(routes, topology, coalesce_, kExactWork);
    flow.set_work_limit(max_work_);
    try {
      for (int k = 1; k <= count; ++k) {
        flow.set_jitter({relative, seed + static_cast<std::uint64_t>(k)});
        makespans.push_back(flow.evaluate(program).makespan_s);
      }
    } catch (const program::WorkLimitExceeded&) {
      // the samples before it stand
    }
  });
  return makespans;
}

}  // namespace partsim::search
