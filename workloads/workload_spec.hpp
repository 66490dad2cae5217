#pragma once
// A workload written on the command line as "model:key=value,key=value": a transformer preset
// (`gpt:layers=12,width=768,heads=12`, transformer_presets.hpp) or a seeded random graph
// (`random_dag:seed=1904`, random_dag.hpp). The graph is named by the whole text, as a zoo model is
// by its zoo name, so a plan records it and a replay rebuilds the same workload from it.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

namespace partsim::workloads {

using SpecValues = std::map<std::string, std::int64_t, std::less<>>;

/// The model name before the first ':' of `text` (all of it when there is none).
std::string_view spec_model(std::string_view text);

/// The key=value items after the ':' of `text`, as whole numbers. InputError naming `text` when an
/// item has no '=', a key is given twice or a value is not a whole number; `allowed_keys` is named
/// in the first message. Which keys a model takes is its own check.
SpecValues parse_spec_values(std::string_view text, const std::string& allowed_keys);

}  // namespace partsim::workloads
