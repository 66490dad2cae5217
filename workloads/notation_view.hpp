#pragma once
// A notation view: one paper's symbols for a layer, derived from its paper-neutral quantities
// (workloads/layer.hpp LayerQuantities). The planner family that reasons in those symbols owns the
// view and registers it with the strategy registry (StrategyRegistry::add_notation); describe_json
// writes one block per registered view, so workloads/ itself knows no paper's notation.
//
// Contract: `describe` is a pure function of a finalized layer; it returns a JSON object whose keys
// are the paper's symbols and whose values are numbers (integers where a symbol counts whole
// things, as the paper's dimensions do).

#include <nlohmann/json_fwd.hpp>

#include <functional>
#include <string>

namespace partsim::workloads {

struct Layer;

struct NotationView {
  std::string name;  // the key of the view's block in describe JSON: "accpar", "dsm", "deepa"
  std::function<nlohmann::json(const Layer&)> describe;
};

}  // namespace partsim::workloads
