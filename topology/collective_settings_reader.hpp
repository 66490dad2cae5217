#pragma once
// Reads `system.collectives` (CollectiveSettings, system_spec.hpp): the default algorithm per
// collective (or collective.axis) and the collective parameters of the field table kCollectiveFields.

#include "sim/common/yaml_reader.hpp"
#include "topology/system_spec.hpp"

namespace partsim::topology {

/// Throws InputError (file:line:column, key path) on an unknown collective, an empty algorithm name or
/// a bad parameter.
CollectiveSettings read_collective_settings(const yaml::ConfigNode& node);

}  // namespace partsim::topology
