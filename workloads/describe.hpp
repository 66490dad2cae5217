#pragma once
// Human and machine descriptions of a workload (simplan --describe, --list).
//
// Contract: pure functions of a finalized Graph; the same graph gives byte-identical output.
// Tensor bytes use `bytes_per_element` (4 = fp32, 2 = fp16/bf16).

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

#include "workloads/graph.hpp"
#include "workloads/notation_view.hpp"

namespace partsim::workloads {

/// One row per layer (name, kind, output shape per sample, params, FWD/BWD/UPD FLOP, activation
/// bytes of the minibatch) and a totals row.
std::string describe_table(const Graph& graph, double bytes_per_element = 4);

/// {"workload", "description", "batch", "bytes_per_element", "params", "macs_fwd", "macs",
///  "flops", "primary_flops", "aux_flops", "activation_bytes", "layers": [...]}; each layer carries
/// its shapes and counts, and one block per notation view under the view's name. The paper blocks
/// ("accpar", "dsm", "deepa") come from the views the planner families register with the strategy
/// registry (simplan passes builtin_strategies().notations()); without views a layer has none.
/// Throws Error when two views share a name or a name is one of the layer's own keys.
nlohmann::json describe_json(const Graph& graph, double bytes_per_element = 4,
                             const std::vector<NotationView>& notations = {});

/// One line per zoo model: "name  description".
std::string list_table();

/// 3 significant digits with a k/M/G/T/P suffix: 1234567 -> "1.23M", 0 -> "0".
std::string format_count(double value);

}  // namespace partsim::workloads
