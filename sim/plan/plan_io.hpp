#pragma once
// plan.json: reading and writing Plans (schema in docs/plan-format.md).
//
// Contract: plan_to_json() writes keys in a fixed order, so equal plans give byte-identical files.
// plan_from_json() checks the structure and every value, throwing InputError naming the file and the
// JSON path ("plan.json: /layers/3/levels/0/type: must be one of I, II, III (got "IV")").
// Checking a plan against the workload and platform it names is a separate step (the planners' and
// the replay's), since it needs both.

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

#include "sim/plan/plan.hpp"

namespace partsim::plan {

/// "concurrent", "in_order" (GradientSyncOrder's values in order): the names plan.json and
/// simplan --gradient-sync-order use.
const std::vector<std::string>& gradient_sync_order_names();
/// "all_reduce", "parameter_server" (GradientSyncAlgorithm's values in order).
const std::vector<std::string>& gradient_sync_algorithm_names();
/// "point_to_point", "collective" (Redistribution's values in order).
const std::vector<std::string>& redistribution_names();

nlohmann::ordered_json plan_to_json(const Plan& plan);
Plan plan_from_json(const nlohmann::json& json, const std::string& file);

/// Serialised text (2-space indent, trailing newline).
std::string plan_to_text(const Plan& plan);
/// Parses plan text; `file` names it in errors (a syntax error gives the byte offset).
Plan plan_from_text(const std::string& text, const std::string& file);
/// Reads and parses a plan file.
Plan load_plan(const std::string& file);

}  // namespace partsim::plan
