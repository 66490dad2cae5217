#pragma once
// Parametrised transformer presets: today's decoder-only language models as a few numbers, so a
// 96-layer model is one line on the command line (`--workload gpt:layers=96,width=12288,...`) or
// a few lines of a workload file (`preset: {model: gpt, layers: 96, ...}`, workloads/README.md).
//
// Contract: presets() lists every preset with its declared parameters (key, default, meaning), in
// a fixed order. build_preset() checks the values (unknown keys, missing required ones, heads that
// do not divide the width ...) and throws InputError with the preset, the key and what is allowed;
// callers that read a file re-throw it at the file position. Layer names are "block{i}.<part>"
// with i from 0, so a plan or a report names e.g. block11.attn.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "workloads/graph.hpp"
#include "workloads/workload_spec.hpp"

namespace partsim::workloads {

/// One declared parameter. `fallback` says how the default is derived when the value is 0
/// ("4 * width"); a required parameter has required = true and no default.
struct PresetParameter {
  std::string key;
  std::string meaning;
  bool required = false;
  std::int64_t default_value = 0;  // 0: derived, see `fallback`
  std::string fallback;
  std::int64_t max_value = 1'000'000'000;  // values are whole numbers in [1, max_value]
};

/// The most blocks a preset builds: about 11 layers each, so a preset stays within the layer count
/// a 4 MiB workload file can hold (docs/robustness.md, "File size: the memory bound").
inline constexpr std::int64_t kMaxPresetBlocks = 8192;

/// Parameter values by key (whole numbers > 0).
using PresetValues = SpecValues;  // workload_spec.hpp

struct TransformerPreset {
  std::string name;
  std::string description;  // one line, for --list and messages
  std::vector<PresetParameter> parameters;
  std::function<Graph(const PresetValues& values, const std::string& graph_name, std::int64_t batch)> build;
};

/// Every preset (gpt, llama), in a fixed order.
const std::vector<TransformerPreset>& transformer_presets();
/// "gpt, llama" (for messages).
std::string transformer_preset_names();
/// The preset called `name`; UnknownNameError listing the presets otherwise.
const TransformerPreset& find_transformer_preset(std::string_view name);
/// "layers, width, heads, ..." of one preset (for messages).
std::string preset_parameter_keys(const TransformerPreset& preset);

/// Builds preset `name` with `values` (defaults filled in) at minibatch `batch`; InputError on an
/// unknown or missing key or inconsistent values (heads must divide width ...).
Graph build_preset(std::string_view name, const PresetValues& values, const std::string& graph_name,
                   std::int64_t batch);

/// A preset written on the command line: "gpt:layers=12,width=768,heads=12". is_preset_spec()
/// says whether `text` names a preset before a ':'; build_preset_spec() builds it (the graph is
/// named `text`, which a plan records) or throws InputError naming the bad item and the allowed keys.
bool is_preset_spec(std::string_view text);
Graph build_preset_spec(std::string_view text, std::int64_t batch);

}  // namespace partsim::workloads
