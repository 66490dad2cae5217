#pragma once
// The strategy registry: name -> one-line description -> planning function (DESIGN principle 4:
// registries describe themselves; a miss lists the valid names).
//
// Contract: a strategy function fills Plan::options, predicted_iteration_s and layers; make_plan()
// fills everything the plan says about its inputs (schema, strategy, tool_version, config name and
// content hash, workload name/batch/mode). A strategy family registers itself with ONE call, e.g.
// accpar::register_strategies(registry) (see strategies.hpp), and may register a checker that
// check_plan() runs on plans of its strategies.

#include <functional>
#include <string>
#include <vector>

#include "sim/plan/plan.hpp"
#include "topology/system_spec.hpp"
#include "workloads/graph.hpp"

namespace partsim::planner {

/// Everything a strategy plans from.
struct PlanInputs {
  const topology::SystemSpec& spec;
  const workloads::Graph& graph;       // finalized at the batch size
  std::string workload_name;           // zoo name or workload file, as the user gave it
  plan::Mode mode = plan::Mode::training;
  std::vector<std::string> options;    // "key=value" strategy options (e.g. "levels=3")
};

using PlanFunction = std::function<plan::Plan(const PlanInputs&)>;
/// Strategy-specific checks of a loaded plan; throws InputError naming the plan file and layer.
using CheckFunction = std::function<void(const plan::Plan&, const topology::SystemSpec&, const workloads::Graph&,
                                         const std::string& file)>;

struct StrategyInfo {
  std::string name;
  std::string description;  // one line, for --list-strategies
  PlanFunction plan;
  CheckFunction check;      // may be empty
};

class StrategyRegistry {
 public:
  /// A duplicate name is an Error (a programming mistake, not user input).
  void add(StrategyInfo info);
  /// Throws UnknownNameError listing the valid names.
  const StrategyInfo& find(const std::string& name) const;
  bool contains(const std::string& name) const;
  const std::vector<StrategyInfo>& strategies() const noexcept { return strategies_; }
  std::string names() const;        // "dp, owt, ..."
  std::string list_table() const;   // one "name  description" line each

  /// Runs strategy `name` and fills the plan's header (see the file comment).
  plan::Plan make_plan(const std::string& name, const PlanInputs& inputs) const;

 private:
  std::vector<StrategyInfo> strategies_;
};

/// Splits "key=value" options, rejecting unknown keys (listing `allowed`) and malformed entries.
/// Returns (key, value) pairs in order.
std::vector<std::pair<std::string, std::string>> parse_options(const std::vector<std::string>& options,
                                                               const std::vector<std::string>& allowed,
                                                               const std::string& strategy);

}  // namespace partsim::planner
