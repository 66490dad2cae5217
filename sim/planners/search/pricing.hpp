#pragma once
// Pricing one candidate of the `search` strategy (issue 44): the candidate plan is lowered to a
// Program exactly as simrun lowers it (the shared sharding lowering, or the lowering of the family
// whose seed it is) and timed by a fast evaluator on the platform's routes at chip granularity,
// the granularity simrun replays by default. Its memory is the footprint model's (shared lowering)
// or the seed planner's own (a family with its own lowering).
//
// The evaluator is the contention part of the search (DESIGN.md principle 1: the search reads no
// planner formula): `flow` is the replay's max-min flow model without SimGrid
// (sim/program/flow_evaluator.hpp), `closed` the closed form (no contention, a lower bound).
//
// Contract: deterministic; a candidate the lowering refuses (InputError) is priced as refused with
// the reason, never thrown. The registry, spec and graph must outlive the Pricer.

#include <optional>
#include <string>
#include <vector>

#include "sim/plan/plan.hpp"
#include "sim/planners/registry.hpp"
#include "sim/program/evaluation.hpp"
#include "topology/system_spec.hpp"
#include "topology/topology_graph.hpp"
#include "workloads/graph.hpp"

namespace partsim::search {

enum class EvaluatorKind { flow, closed };
EvaluatorKind evaluator_from_name(const std::string& name);  // "flow" | "closed"
std::string to_string(EvaluatorKind kind);

/// A plan the search considers: the plan (its header is the seed's) and, when it came from a family
/// with a lowering of its own, that family's strategy name (its plan is then never mutated).
struct Candidate {
  plan::Plan plan;
  std::string lowered_by;  // empty: the shared sharding lowering
  std::string origin;      // the seed strategy it descends from
};

struct Price {
  double predicted_s = 0;          // the evaluator's makespan (s)
  double closed_s = 0;             // the closed form's (s): what contention adds is the difference
  bool fits = true;                // memory within every device's capacity
  std::optional<plan::MemoryUse> memory;
  std::string refused;             // why the lowering refused it ("" when priced)
  std::vector<program::LayerPassSpan> spans;  // per layer and pass, with the evaluator's times
  bool usable() const { return refused.empty() && fits; }
};

class Pricer {
 public:
  /// A candidate whose Program would hold more tasks is refused without being timed: a layer that
  /// changes from a batch to a channel split on 1,024 chips redistributes point to point between
  /// every pair of devices (a million transfers), which no search can afford to price. A seed over
  /// it is refused too (logged with this reason).
  static constexpr std::size_t kMaxTasks = 4'000'000;

  Pricer(const planner::StrategyRegistry& registry, const topology::SystemSpec& spec, const workloads::Graph& graph,
         EvaluatorKind evaluator);
  Price price(const Candidate& candidate) const;

 private:
  const planner::StrategyRegistry& registry_;
  const topology::SystemSpec& spec_;
  const workloads::Graph& graph_;
  EvaluatorKind evaluator_;
  topology::TopologyGraph topology_;  // the platform as given (configured platforms get their own)
};

}  // namespace partsim::search
