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

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/plan/plan.hpp"
#include "sim/planners/registry.hpp"
#include "sim/program/evaluation.hpp"
#include "sim/program/platform_binding.hpp"
#include "sim/program/program.hpp"
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
  bool over_work_limit = false;    // refused because its flow evaluation passed the work limit
  std::vector<program::LayerPassSpan> spans;  // per layer and pass, with the evaluator's times
  /// Its closed form already reached the price it had to beat (Pricer::price's `prune_at`), so it
  /// was not timed further: predicted_s is the closed form, a lower bound of the flow evaluator's
  /// time (contention only delays a transfer: max-min never gives a flow more than its lone rate).
  bool pruned = false;
  /// When the search resampled it (search.hpp): every evaluation, the exact one first, and
  /// predicted_s is their mean. Empty otherwise.
  std::vector<double> samples;
  /// The least and greatest of `samples` (both predicted_s when there are none).
  std::pair<double, double> sample_range() const {
    if (samples.empty()) return {predicted_s, predicted_s};
    const auto [lo, hi] = std::minmax_element(samples.begin(), samples.end());
    return {*lo, *hi};
  }
  bool usable() const { return refused.empty() && fits && !pruned; }
};

/// A candidate lowered once: its Program bound to the platform's routes, its closed form and its
/// memory, so that the search can order the seeds by their closed forms and then time them
/// without lowering each again (a 1,024-chip seed of 3.7 M tasks takes about 3 s to lower and 1 s
/// to bind). Not copyable (the routes refer to the Program); Pricer::lower makes one.
class LoweredCandidate {
 public:
  /// Why the lowering refused it ("" when it lowered); the rest is empty then.
  const std::string& refused() const noexcept { return refused_; }
  double closed_s() const noexcept { return closed_s_; }  // the closed form's makespan (s)

  LoweredCandidate(const LoweredCandidate&) = delete;
  LoweredCandidate& operator=(const LoweredCandidate&) = delete;

 private:
  friend class Pricer;
  LoweredCandidate() = default;
  std::string refused_;
  std::optional<topology::SystemSpec> configured_;             // a plan that configures devices (MARS)
  std::optional<topology::TopologyGraph> configured_topology_;
  const topology::TopologyGraph* topology_ = nullptr;          // the platform it runs on
  program::Program program_;
  std::optional<program::TransferRoutes> routes_;
  double closed_s_ = 0;
  std::vector<program::LayerPassSpan> closed_spans_;
  std::optional<plan::MemoryUse> memory_;
};

class Pricer {
 public:
  /// A candidate whose Program would hold more tasks is refused without being timed: a layer that
  /// changes from a batch to a channel split on 1,024 chips redistributes point to point between
  /// every pair of devices (a million transfers), which no search can afford to price. A seed over
  /// it is refused too (logged with this reason).
  static constexpr std::size_t kMaxTasks = 4'000'000;
  /// The flow evaluator re-solves this many flows exactly before it coalesces (about a second):
  /// plans cheap to evaluate exactly are (flow_evaluator.hpp: coalescing can err either way).
  static constexpr double kExactWork = 5e6;

  /// The flow evaluator's re-solves per second of wall time on this machine (the 256-chip plans; the
  /// 1,024-chip pods' large components run at 2-3 M): converts the budget into the work limit.
  static constexpr double kWorkPerSecond = 5e6;

  /// `coalesce`: the flow evaluator's (sim/program/flow_evaluator.hpp; 0: exact, as the replay).
  /// `max_work`: a candidate whose flow evaluation passes that many re-solves is refused, not timed
  /// (FlowEvaluator::set_work_limit; 0: no limit): the search bounds one evaluation to a share of
  /// its budget (a 1,024-chip point-to-point plan took 126 s).
  Pricer(const planner::StrategyRegistry& registry, const topology::SystemSpec& spec, const workloads::Graph& graph,
         EvaluatorKind evaluator, double coalesce = 0, double max_work = 0);
  EvaluatorKind evaluator() const noexcept { return evaluator_; }
  /// Lowers `candidate` on its platform (as configured, for a plan that configures devices), binds
  /// it to the routes and takes its closed form and memory; a refusal is recorded, never thrown.
  std::unique_ptr<const LoweredCandidate> lower(const Candidate& candidate) const;
  /// Times a lowered candidate; one whose closed form reaches `prune_at` (s) is not timed by the
  /// flow evaluator (Price::pruned). `max_work` > 0: this evaluation's work limit instead of the
  /// Pricer's (the search's seeds get their own: search.cpp price_seeds).
  Price price(const LoweredCandidate& lowered, double prune_at = std::numeric_limits<double>::infinity(),
              double max_work = 0) const;
  /// Lowers and times `candidate` (the two above).
  Price price(const Candidate& candidate, double prune_at = std::numeric_limits<double>::infinity(),
              double max_work = 0) const {
    return price(*lower(candidate), prune_at, max_work);
  }
  /// The work limit of one evaluation (re-solves; 0: none).
  double max_work() const noexcept { return max_work_; }
  /// The flow evaluator's makespans (s) of `candidate` (one the lowering accepts) with its timed
  /// tasks jittered by `relative` (program/jitter.hpp), under seeds seed + 1 ... seed + count: a
  /// contended plan's time is a distribution, not a number (docs/model.md "Chaotic plans"). Empty
  /// with the closed form (it has no contention to be chaotic) or when the lowering refuses; fewer
  /// than `count` when an evaluation passes the work limit (those before it).
  std::vector<double> resample(const Candidate& candidate, int count, double relative, std::uint64_t seed) const;

 private:
  const planner::StrategyRegistry& registry_;
  const topology::SystemSpec& spec_;
  const workloads::Graph& graph_;
  EvaluatorKind evaluator_;
  double coalesce_;
  double max_work_;
  topology::TopologyGraph topology_;  // the platform as given (configured platforms get their own)
};

}  // namespace partsim::search
