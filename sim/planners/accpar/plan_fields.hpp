#pragma once
// The AccPar family's own plan fields (plan.json layers[i].family, docs/plan-format.md "AccPar
// family") and their codec, and the sharding a typing gives each layer.
//
// A layer's family object is {"levels": [{"type": "I"|"II"|"III", "ratio": alpha}, ...]}, top level
// first, one entry per level of the device hierarchy (seed 000 §5.1). The strategy-neutral sharding
// says the same thing in the lowering's terms: the devices in the hierarchy's leaf order, and per
// level a split of Type I -> batch, II -> in_channels, III -> out_channels into the two sides with
// shares (alpha, 1 - alpha).

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

#include "sim/planners/accpar/accpar_planner.hpp"
#include "sim/planners/accpar/hierarchy.hpp"
#include "sim/plan/json_reader.hpp"
#include "sim/plan/plan.hpp"

namespace partsim::accpar {

std::string to_string(Type type);  // "I", "II", "III"

nlohmann::ordered_json levels_to_json(const std::vector<LevelChoice>& levels);
/// Reads a layer's family value strictly (InputError naming the file and JSON path).
std::vector<LevelChoice> levels_from_json(const plan::JsonReader& family);

/// The typing of a plan's layers (its family objects), checked against the hierarchy's depth.
Typing typing_from_plan(const plan::Plan& plan, const Hierarchy& hierarchy, const std::string& file);

/// The sharding of one layer typed `levels` on `hierarchy`. Throws InputError when the hierarchy's
/// splits cannot be written as one split per level (sides of different sizes at one depth).
plan::Sharding sharding_of(const Hierarchy& hierarchy, const std::vector<LevelChoice>& levels);

}  // namespace partsim::accpar
