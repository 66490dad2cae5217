#pragma once
// The strategy registry (DESIGN.md principle 3): one entry owns a strategy's whole pipeline: its
// name and one-line description, its declared options, planning, checking a loaded plan (the codec
// of its family fields), lowering (the shared sharding lowering unless it needs more) and explain.
// Registries describe themselves (principle 5): a miss lists the valid names, list_table() prints
// every strategy with its options.
//
// Contract: a strategy's plan function fills Plan::predicted_iteration_s, layers (every workload
// layer, in order, each with its sharding), memory, family and, where the strategy needs them,
// configuration (mars: device -> design) and schedule (deepa: overlap); make_plan() fills the header
// (schema, strategy, resolved options, seed, tool_version, config name and content hash, workload).
// A family registers itself with ONE call (builtin_strategies.cpp), e.g. accpar::register_strategies(r).
// That call also registers the family's notation view, if it reasons in its paper's symbols
// (workloads/notation_view.hpp): `simplan --describe --json` writes one block per registered view.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <limits>
#include <string>
#include <vector>

#include "sim/common/progress.hpp"
#include "sim/lowering/lowering.hpp"
#include "sim/plan/plan.hpp"
#include "sim/planners/strategy_options.hpp"
#include "sim/program/program.hpp"
#include "topology/system_spec.hpp"
#include "workloads/graph.hpp"
#include "workloads/notation_view.hpp"

namespace partsim::planner {

/// Everything a strategy plans from.
struct PlanInputs {
  PlanInputs(const topology::SystemSpec& spec_, const workloads::Graph& graph_, std::string workload_name_ = {},
             plan::Mode mode_ = plan::Mode::training, std::vector<std::string> options_ = {},
             std::optional<std::uint64_t> seed_ = {})
      : spec(spec_), graph(graph_), workload_name(std::move(workload_name_)), mode(mode_),
        options(std::move(options_)), seed(seed_) {}

  const topology::SystemSpec& spec;
  const workloads::Graph& graph;           // finalized at the batch size
  std::string workload_name;               // zoo name or workload file, as the user gave it
  plan::Mode mode = plan::Mode::training;
  std::vector<std::string> options;        // "key=value" as the user gave them (--option)
  std::optional<std::uint64_t> seed;       // stochastic strategies: the seed (make_plan supplies 1 if none)
  StrategyOptions resolved;                // filled by make_plan / explain: every declared option's value
  /// Searching strategies (megatron search=true, mcm_random, mcm_sa, mcm_rl) report their progress
  /// here (sim/common/progress.hpp); empty: nothing is reported. simplan sets it on a terminal.
  ProgressCallback progress;
  /// The schedule directives the user gave (simplan's --gradient-sync-order, --gradient-bucket, ...,
  /// applied to the defaults), for a strategy that otherwise chooses the schedule itself (search);
  /// empty: none given.
  std::optional<plan::ScheduleDirectives> schedule;
  /// A file a strategy writes beside its plan (the search's log): simplan writes `text` to the
  /// plan's path with ".json" replaced by "." + suffix, together with the plan. Empty: not kept.
  std::function<void(const std::string& suffix, const std::string& text)> side_file;
};

using PlanFunction = std::function<plan::Plan(const PlanInputs&)>;
/// Strategy-specific checks of a loaded plan, including decoding its family fields strictly;
/// throws InputError naming the plan file and JSON path.
using CheckFunction = std::function<void(const plan::Plan&, const topology::SystemSpec&, const workloads::Graph&,
                                         const std::string& file)>;
using LowerFunction = std::function<program::Program(const lowering::Context&)>;
/// Text for `simplan --explain LAYER`: the layer's candidate configurations with their cost terms.
using ExplainFunction = std::function<std::string(const PlanInputs&, const std::string& layer)>;

struct StrategyInfo {
  std::string name;
  std::string description;           // one line, for --list-strategies
  std::vector<OptionSpec> options;   // declared options (--option key=value)
  bool stochastic = false;           // takes --seed; the seed is recorded in plan.json
  PlanFunction plan;
  CheckFunction check;               // may be empty
  LowerFunction lower;               // empty: the shared sharding lowering
  ExplainFunction explain;           // may be empty
  /// A strategy with a lowering of its own that still reads the schedule directives for the plans
  /// it lowers with the shared lowering (search): simplan then accepts --gradient-sync-order etc.
  bool reads_schedule_directives = false;
};

class StrategyRegistry {
 public:
  /// A duplicate name or a bad declaration is an Error (a programming mistake, not user input).
  void add(StrategyInfo info);
  /// Throws UnknownNameError listing the valid names.
  const StrategyInfo& find(const std::string& name) const;
  bool contains(const std::string& name) const;
  const std::vector<StrategyInfo>& strategies() const noexcept { return strategies_; }
  std::string names() const;        // "dp, owt, ..."
  std::string list_table() const;   // each strategy with its description and options

  /// "key=value" options checked against strategy `name`'s declarations (an unknown key or a bad
  /// value is an InputError naming the allowed ones), defaults filled in.
  StrategyOptions resolve_options(const std::string& name, const std::vector<std::string>& key_values) const;

  /// Runs strategy `name` (options resolved first) and fills the plan's header (see the file comment).
  plan::Plan make_plan(const std::string& name, const PlanInputs& inputs) const;

  /// Strategy `name`'s explanation of one layer's choices; InputError when it has none.
  std::string explain(const std::string& name, const PlanInputs& inputs, const std::string& layer) const;

  /// A family's view of a layer in its paper's notation (for describe JSON). A repeated name or an
  /// empty function is an Error (a programming mistake).
  void add_notation(workloads::NotationView view);
  /// The registered views, in registration order.
  const std::vector<workloads::NotationView>& notations() const noexcept { return notations_; }

 private:
  std::vector<StrategyInfo> strategies_;
  std::vector<workloads::NotationView> notations_;
};

}  // namespace partsim::planner
