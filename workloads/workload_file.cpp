#include "workloads/workload_file.hpp"

#include <filesystem>
#include <map>
#include <optional>

#include "sim/common/yaml_reader.hpp"
#include "workloads/random_dag.hpp"
#include "workloads/transformer_presets.hpp"
#include "workloads/onnx/onnx_workload.hpp"
#include "workloads/zoo.hpp"

namespace partsim::workloads {
namespace {

// The file node of every layer (and its inputs list), to report graph errors at the layer.
struct LayerNodes {
  std::map<std::string, yaml::ConfigNode> layer;
  std::map<std::string, yaml::ConfigNode> inputs;
};

std::int64_t positive(const yaml::ConfigNode& node) { return node.as_positive_int(); }

std::int64_t non_negative(const yaml::ConfigNode& node) { return node.as_int(0, yaml::ConfigNode::kMaxPositiveInt); }

// A size written as one number (square) or as [height, width].
template <class Read>
void read_pair(const yaml::ConfigNode& node, std::int64_t& h, std::int64_t& w, Read read) {
  if (node.is_sequence()) {
    auto hw = node.elements(2, "[height, width]");
    h = read(hw[0]);
    w = read(hw[1]);
  } else {
    h = w = read(node);
  }
}

template <class Read>
void read_pair(yaml::MapReader& map, std::string_view key, std::int64_t& h, std::int64_t& w, Read read) {
  if (auto node = map.optional(key)) read_pair(*node, h, w, read);
}

Shape read_shape(const yaml::ConfigNode& node) {
  auto dims = node.elements();
  if (dims.empty() || dims.size() > 3) node.fail("expected [channels], [channels, height] or [channels, height, width]");
  Shape s;
  s.c = positive(dims[0]);
  if (dims.size() > 1) s.h = positive(dims[1]);
  if (dims.size() > 2) s.w = positive(dims[2]);
  return s;
}

std::vector<std::string> layer_kinds_in_files() {
  std::vector<std::string> kinds;
  for (const std::string& k : layer_kind_names())
    if (k != "input") kinds.push_back(k);
  return kinds;
}

LayerKind kind_from_name(const std::string& name) {
  const auto& names = layer_kind_names();
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<LayerKind>(i);
  return LayerKind::input;  // unreachable: the name was checked with as_enum
}

// Reads the kind's attributes; every key a kind accepts is asked for, so finish() rejects others.
void read_attributes(yaml::MapReader& map, LayerSpec& spec) {
  LayerAttributes& a = spec.attr;
  auto opt_bool = [&](std::string_view key, bool& out) {
    if (auto n = map.optional(key)) out = n->as_bool();
  };
  auto opt_positive = [&](std::string_view key, std::int64_t& out) {
    if (auto n = map.optional(key)) out = positive(*n);
  };
  switch (spec.kind) {
    case LayerKind::conv:
      a.out_channels = positive(map.required("out_channels"));
      opt_positive("in_channels", a.in_channels);
      read_pair(map.required("kernel"), a.kernel_h, a.kernel_w, positive);
      read_pair(map, "stride", a.stride_h, a.stride_w, positive);
      read_pair(map, "padding", a.pad_h, a.pad_w, non_negative);
      opt_positive("groups", a.groups);
      opt_bool("bias", a.bias);
      break;
    case LayerKind::fc:
      a.out_channels = positive(map.required("out_features"));
      opt_positive("in_features", a.in_channels);
      opt_bool("bias", a.bias);
      break;
    case LayerKind::pool: {
      a.pool = map.required("op").as_enum({"max", "avg"}) == "max" ? PoolOp::max : PoolOp::avg;
      opt_bool("global", a.global);
      if (a.global)
        read_pair(map, "kernel", a.kernel_h, a.kernel_w, positive);
      else
        read_pair(map.required("kernel"), a.kernel_h, a.kernel_w, positive);
      a.stride_h = a.kernel_h;  // default stride = window, as in most frameworks
      a.stride_w = a.kernel_w;
      read_pair(map, "stride", a.stride_h, a.stride_w, positive);
      read_pair(map, "padding", a.pad_h, a.pad_w, non_negative);
      break;
    }
    case LayerKind::activation:
      if (auto n = map.optional("function")) {
        const std::string f = n->as_enum({"relu", "sigmoid", "tanh", "gelu", "silu"});
        a.function = f == "relu" ? ActivationFn::relu
                     : f == "sigmoid" ? ActivationFn::sigmoid
                     : f == "tanh" ? ActivationFn::tanh
                     : f == "gelu" ? ActivationFn::gelu
                                   : ActivationFn::silu;
      }
      break;
    case LayerKind::batch_norm:
      opt_positive("channels", a.in_channels);
      break;
    case LayerKind::lstm:
      a.hidden = positive(map.required("hidden"));
      opt_positive("input_size", a.in_channels);
      opt_positive("timesteps", a.timesteps);
      opt_bool("bidirectional", a.bidirectional);
      break;
    case LayerKind::embedding:
      a.vocab = positive(map.required("vocab"));
      a.dim = positive(map.required("dim"));
      break;
    case LayerKind::attention:
      opt_positive("heads", a.heads);
      opt_positive("kv_heads", a.kv_heads);
      opt_positive("seq_len", a.seq_len);
      opt_bool("bias", a.bias);
      break;
    case LayerKind::reshape:
      a.shape = read_shape(map.required("shape"));
      break;
    case LayerKind::slice: {
      if (auto n = map.optional("axis")) {
        const std::string axis = n->as_enum({"channels", "height", "width"});
        a.axis = axis == "channels" ? ShapeAxis::channels : axis == "height" ? ShapeAxis::height : ShapeAxis::width;
      }
      if (auto n = map.optional("begin")) a.begin = non_negative(*n);
      a.end = positive(map.required("end"));
      break;
    }
    case LayerKind::input:
    case LayerKind::matmul:
    case LayerKind::layer_norm:
    case LayerKind::rms_norm:
    case LayerKind::softmax:
    case LayerKind::add:
    case LayerKind::multiply:
    case LayerKind::concat:
    case LayerKind::flatten:
      break;
  }
}

// One copy of a repeat block: what {i} and {prev} stand for in its names and inputs.
struct Repetition {
  std::int64_t index = 0;
  std::optional<std::string> previous;  // {prev}: `from` in the first copy, then the last copy's output
};

// A name as written, with {i} and {prev} replaced inside a repeat block (outside one, as is).
std::string expand(const yaml::ConfigNode& node, const Repetition* repetition) {
  const std::string text = node.as_string();
  if (repetition == nullptr) return text;
  std::string out;
  for (size_t pos = 0; pos < text.size();) {
    const size_t open = text.find('{', pos);
    if (open == std::string::npos) {
      out += text.substr(pos);
      break;
    }
    out += text.substr(pos, open - pos);
    const size_t close = text.find('}', open);
    if (close == std::string::npos) node.fail("'{' without '}' in '" + text + "' (placeholders: {i}, {prev})");
    const std::string placeholder = text.substr(open + 1, close - open - 1);
    if (placeholder == "i") {
      out += std::to_string(repetition->index);
    } else if (placeholder == "prev") {
      if (!repetition->previous) node.fail("{prev} in the first repetition needs the block's 'from' key");
      out += *repetition->previous;
    } else {
      node.fail("unknown placeholder {" + placeholder + "} (allowed: {i}, {prev})");
    }
    pos = close + 1;
  }
  return out;
}

std::string unique_name(const yaml::ConfigNode& node, const std::map<std::string, yaml::ConfigNode>& seen,
                        const Repetition* repetition = nullptr) {
  std::string name = expand(node, repetition);
  if (name.empty()) node.fail("a name must not be empty");
  if (seen.count(name) != 0) node.fail("duplicate name '" + name + "'");
  return name;
}

// Everything read so far: the graph and where each layer was written.
struct WorkloadReader {
  Graph graph;
  LayerNodes nodes;
  std::int64_t max_layers = 0;  // WorkloadLimits::max_layers

  // One `layers` entry that is a layer (not a repeat block); returns its name.
  std::string read_layer(const yaml::ConfigNode& node, const Repetition* repetition) {
    yaml::MapReader map(node);
    LayerSpec spec;
    spec.name = unique_name(map.required("name"), nodes.layer, repetition);
    spec.kind = kind_from_name(map.required("kind").as_enum(layer_kinds_in_files()));
    // `input: a` or `inputs: [a, b]`, exactly one of them.
    auto one = map.optional("input");
    auto many = map.optional("inputs");
    if (one && many) many->fail("give either input or inputs, not both");
    if (!one && !many) map.required("input");
    if (one) {
      spec.inputs.push_back(expand(*one, repetition));
      nodes.inputs.emplace(spec.name, *one);
    } else {
      for (const yaml::ConfigNode& in : many->elements()) spec.inputs.push_back(expand(in, repetition));
      nodes.inputs.emplace(spec.name, *many);
    }
    read_attributes(map, spec);
    map.finish();
    nodes.layer.emplace(spec.name, node);
    std::string name = spec.name;
    graph.add(std::move(spec));
    return name;
  }

  // A repeat block (workloads/README.md, "Repeat blocks"): `repeat: N` copies of its `layers`,
  // with {i} the copy's index (from `start`, default 0) and {prev} the previous copy's `output`
  // (default: its last layer), `from` in the first copy.
  void read_repeat(const yaml::ConfigNode& node) {
    yaml::MapReader map(node);
    const std::int64_t count = map.required("repeat").as_int(1, kMaxRepeat);
    const std::int64_t start = map.optional("start") ? map.optional("start")->as_int(0, kMaxRepeat) : 0;
    Repetition repetition{start, std::nullopt};
    if (auto from = map.optional("from")) repetition.previous = from->as_string();
    const auto output = map.optional("output");
    const yaml::ConfigNode layers = map.required("layers");
    const std::vector<yaml::ConfigNode> body = layers.elements();
    map.finish();
    if (body.empty()) layers.fail("a repeat block needs at least one layer");
    const double total = static_cast<double>(nodes.layer.size()) + static_cast<double>(count) * static_cast<double>(body.size());
    if (total > static_cast<double>(max_layers))
      node.fail("repeat " + std::to_string(count) + " x " + std::to_string(body.size()) + " layers: the workload would have more than " +
                std::to_string(max_layers) + " layers");
    for (const yaml::ConfigNode& entry : body) {
      if (entry.is_map() && entry.node()["repeat"]) entry.fail("repeat blocks do not nest (write the inner block out)");
      // A name without {i} would be the same in every copy.
      if (count > 1 && entry.is_map() && entry.node()["name"] && entry.node()["name"].IsScalar() &&
          entry.node()["name"].Scalar().find("{i}") == std::string::npos)
        yaml::MapReader(entry).required("name").fail("a layer name in a repeat block must contain {i} (else the " +
                                                     std::to_string(count) + " copies collide)");
    }
    for (std::int64_t copy = 0; copy < count; ++copy) {
      std::string last;
      for (const yaml::ConfigNode& entry : body) last = read_layer(entry, &repetition);
      if (output) {
        last = expand(*output, &repetition);
        if (nodes.layer.count(last) == 0) output->fail("'" + last + "' is not a layer of this repeat block");
      }
      repetition.previous = last;
      ++repetition.index;
    }
  }

  static constexpr long long kMaxRepeat = 100'000;
};

// `preset: {model: gpt, layers: 12, ...}`: the whole workload from a transformer preset.
Graph read_preset(const yaml::ConfigNode& node, const std::string& name, std::int64_t batch, std::int64_t max_blocks) {
  yaml::MapReader map(node);
  std::vector<std::string> models;
  for (const TransformerPreset& p : transformer_presets()) models.push_back(p.name);
  const std::string model = map.required("model").as_enum(models);
  const TransformerPreset& preset = find_transformer_preset(model);
  PresetValues values;
  for (const PresetParameter& p : preset.parameters)
    if (auto n = map.optional(p.key)) values[p.key] = n->as_int(1, p.key == "layers" ? std::min(p.max_value, max_blocks) : p.max_value);
  map.finish();
  try {
    return build_preset(model, values, name, batch);
  } catch (const InputError& e) {
    node.fail(e.what());
  }
}

}  // namespace

Graph parse_workload(const yaml::ConfigNode& root, std::int64_t batch, const std::string& default_name,
                     const WorkloadLimits& limits) {
  yaml::MapReader top(root);
  // A misspelt top-level key is reported as such, before the key it was meant to be is missed.
  for (std::string_view key : {"name", "description", "inputs", "layers", "preset"}) top.has(key);
  top.finish();
  std::string name = default_name;
  if (auto n = top.optional("name")) name = n->as_string();
  std::string description;
  if (auto n = top.optional("description")) description = n->as_string();
  if (auto preset = top.optional("preset")) {
    for (std::string_view key : {"inputs", "layers"})
      if (auto other = top.optional(key)) other->fail("a workload is either a preset or inputs and layers, not both");
    Graph graph = read_preset(*preset, name, batch, limits.max_preset_blocks);
    if (!description.empty()) graph.set_description(description);
    return graph;
  }
  // A repeat block may not build more layers than a 4 MiB file of one-line layers holds (about
  // 90000), which keeps the memory bound of docs/robustness.md ("File size: the memory bound").
  WorkloadReader reader{Graph(name, description), {}, limits.max_layers};

  auto inputs = top.required("inputs");
  if (inputs.elements().empty()) inputs.fail("a workload needs at least one input");
  for (const yaml::ConfigNode& node : inputs.elements()) {
    yaml::MapReader map(node);
    LayerSpec spec;
    spec.name = unique_name(map.required("name"), reader.nodes.layer);
    spec.kind = LayerKind::input;
    spec.attr.shape = read_shape(map.required("shape"));
    map.finish();
    reader.nodes.layer.emplace(spec.name, node);
    reader.graph.add(std::move(spec));
  }

  auto layers = top.required("layers");
  if (layers.elements().empty()) layers.fail("a workload needs at least one layer");
  for (const yaml::ConfigNode& node : layers.elements()) {
    if (node.is_map() && node.node()["repeat"])
      reader.read_repeat(node);
    else
      reader.read_layer(node, nullptr);
  }
  top.finish();

  Graph& graph = reader.graph;
  LayerNodes& nodes = reader.nodes;
  try {
    graph.finalize(batch);
  } catch (const LayerError& e) {
    // Report at the layer (or its inputs, for a missing producer) in the file.
    const bool about_inputs = e.message().find("is not a layer of this workload") != std::string::npos;
    if (about_inputs) {
      if (auto it = nodes.inputs.find(e.layer()); it != nodes.inputs.end()) it->second.fail(e.what());
    }
    if (auto it = nodes.layer.find(e.layer()); it != nodes.layer.end()) it->second.fail(e.what());
    throw;
  }
  return graph;
}

Graph load_workload_file(const std::string& path, std::int64_t batch, const std::vector<std::string>& overrides) {
  const yaml::ConfigNode root = yaml::load_file(path, overrides);
  return parse_workload(root, batch, std::filesystem::path(path).stem().string());
}

Graph load_workload(const std::string& name_or_file, std::int64_t batch) {
  if (in_zoo(name_or_file)) return build_zoo(name_or_file, batch);
  if (is_preset_spec(name_or_file)) return build_preset_spec(name_or_file, batch);
  if (is_random_dag_spec(name_or_file)) return build_random_dag_spec(name_or_file, batch);
  if (is_onnx_workload(name_or_file)) return load_onnx_workload(name_or_file, batch);
  const bool looks_like_file = name_or_file.find('/') != std::string::npos || name_or_file.ends_with(".yaml") ||
                               name_or_file.ends_with(".yml") || std::filesystem::exists(name_or_file);
  if (looks_like_file) return load_workload_file(name_or_file, batch);
  throw UnknownNameError("workload", name_or_file,
                         zoo_names() + " (or a workload .yaml file, or a preset " + transformer_preset_names() +
                             " with parameters, e.g. gpt:layers=12,width=768,heads=12, or a seeded random graph, "
                             "e.g. random_dag:seed=1904,min_nodes=10,max_nodes=120)");
}

}  // namespace partsim::workloads
