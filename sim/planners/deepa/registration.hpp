#pragma once
// The `deepa` strategy (seed 001): every layer gets a configuration over n, c, h, w (configuration.hpp)
// chosen by the node/edge elimination search (elimination.hpp) on the eq. 1 cost model
// (cost_model.hpp). Plans use the shared sharding lowering; each layer's family fields record its
// configuration ({"n", "c", "h", "w", "workers"}), the plan's family the search's statistics and the
// data each step transfers.

#include <string>

#include "sim/planners/deepa/cost_model.hpp"
#include "sim/planners/deepa/elimination.hpp"
#include "sim/planners/option_bindings.hpp"
#include "sim/planners/registry.hpp"

namespace partsim::deepa {

/// The `deepa` strategy's options: the cost model's, and what only the plan reads.
struct DeepaOptions : ModelOptions {
  bool overlap = true;  // the plan's schedule.overlap_gradient_sync (§5)
};

/// Every `deepa` option, declared and bound to its field (register_strategies declares their specs,
/// the plan reads them).
planner::OptionBindings<DeepaOptions> option_bindings();

/// A planned network: the model, the search result and timings.
struct DeepaRun {
  std::unique_ptr<CostModel> model;
  SearchResult search;
  double model_s = 0;   // wall time to precompute compute/update/xfer
  double search_s = 0;  // wall time of the §4 search
};
DeepaRun run_deepa(const topology::SystemSpec& spec, const workloads::Graph& graph, plan::Mode mode,
                   const ModelOptions& options);

/// Data each step moves with the chosen configurations: tensors between layers (xfer, forward and
/// backward) and gradient synchronisation (update), bytes (Fig. 8).
struct DataTransferred {
  double xfer_bytes = 0;
  double update_bytes = 0;
  double total() const { return xfer_bytes + update_bytes; }
};
DataTransferred data_transferred(const DeepaRun& run);

plan::Plan make_deepa_plan(const planner::PlanInputs& inputs);

/// Tables 2 and 3 for one layer: every configuration's transfer (from the producers' chosen
/// configurations) + compute + update = total, with the chosen one marked.
std::string explain_layer(const planner::PlanInputs& inputs, const std::string& layer);

void register_strategies(planner::StrategyRegistry& registry);

}  // namespace partsim::deepa
