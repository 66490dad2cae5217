#include "workloads/workload_file.hpp"

#include <filesystem>
#include <map>

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
        const std::string f = n->as_enum({"relu", "sigmoid", "tanh", "gelu"});
        a.function = f == "relu" ? ActivationFn::relu
                     : f == "sigmoid" ? ActivationFn::sigmoid
                     : f == "tanh" ? ActivationFn::tanh
                                   : ActivationFn::gelu;
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
      opt_positive("seq_len", a.seq_len);
      break;
    case LayerKind::reshape:
      a.shape = read_shape(map.required("shape"));
      break;
    case LayerKind::input:
    case LayerKind::matmul:
    case LayerKind::layer_norm:
    case LayerKind::softmax:
    case LayerKind::add:
    case LayerKind::concat:
    case LayerKind::flatten:
      break;
  }
}

std::string unique_name(const yaml::ConfigNode& node, const std::map<std::string, yaml::ConfigNode>& seen) {
  std::string name = node.as_string();
  if (name.empty()) node.fail("a name must not be empty");
  if (seen.count(name) != 0) node.fail("duplicate name '" + name + "'");
  return name;
}

}  // namespace

Graph parse_workload(const yaml::ConfigNode& root, std::int64_t batch, const std::string& default_name) {
  yaml::MapReader top(root);
  // A misspelt top-level key is reported as such, before the key it was meant to be is missed.
  for (std::string_view key : {"name", "description", "inputs", "layers"}) top.has(key);
  top.finish();
  std::string name = default_name;
  if (auto n = top.optional("name")) name = n->as_string();
  std::string description;
  if (auto n = top.optional("description")) description = n->as_string();
  Graph graph(name, description);
  LayerNodes nodes;

  auto inputs = top.required("inputs");
  if (inputs.elements().empty()) inputs.fail("a workload needs at least one input");
  for (const yaml::ConfigNode& node : inputs.elements()) {
    yaml::MapReader map(node);
    LayerSpec spec;
    spec.name = unique_name(map.required("name"), nodes.layer);
    spec.kind = LayerKind::input;
    spec.attr.shape = read_shape(map.required("shape"));
    map.finish();
    nodes.layer.emplace(spec.name, node);
    graph.add(std::move(spec));
  }

  auto layers = top.required("layers");
  if (layers.elements().empty()) layers.fail("a workload needs at least one layer");
  for (const yaml::ConfigNode& node : layers.elements()) {
    yaml::MapReader map(node);
    LayerSpec spec;
    spec.name = unique_name(map.required("name"), nodes.layer);
    spec.kind = kind_from_name(map.required("kind").as_enum(layer_kinds_in_files()));
    // `input: a` or `inputs: [a, b]`, exactly one of them.
    auto one = map.optional("input");
    auto many = map.optional("inputs");
    if (one && many) many->fail("give either input or inputs, not both");
    if (!one && !many) map.required("input");
    if (one) {
      spec.inputs.push_back(one->as_string());
      nodes.inputs.emplace(spec.name, *one);
    } else {
      for (const yaml::ConfigNode& in : many->elements()) spec.inputs.push_back(in.as_string());
      nodes.inputs.emplace(spec.name, *many);
    }
    read_attributes(map, spec);
    map.finish();
    nodes.layer.emplace(spec.name, node);
    graph.add(std::move(spec));
  }
  top.finish();

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
  if (is_onnx_workload(name_or_file)) return load_onnx_workload(name_or_file, batch);
  const bool looks_like_file = name_or_file.find('/') != std::string::npos || name_or_file.ends_with(".yaml") ||
                               name_or_file.ends_with(".yml") || std::filesystem::exists(name_or_file);
  if (looks_like_file) return load_workload_file(name_or_file, batch);
  throw UnknownNameError("workload", name_or_file, zoo_names() + " (or a workload .yaml file)");
}

}  // namespace partsim::workloads
