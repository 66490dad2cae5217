#pragma once
// The way back from a SystemSpec to a platform file: what --dump-config writes and content_hash
// (system_spec.hpp) hashes.
//
// Contract: system_to_yaml writes the fully resolved platform (presets expanded, defaults written,
// star written as the graph it stands for, quantities with units::format), every key as
// spec_fields.hpp declares it and in its order. load_system() reads the text back to an identical
// spec (except source_file, which is not written), and writing that spec again gives the same bytes.

#include <string>

#include "topology/system_spec.hpp"

namespace partsim::topology {

/// The fully resolved platform as YAML (its root map holds `system:`), ending in a newline.
std::string system_to_yaml(const SystemSpec& spec);

}  // namespace partsim::topology
