#include "workloads/onnx/onnx_model.hpp"

#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "sim/common/error.hpp"
#include "sim/common/text.hpp"
#include "workloads/onnx/onnx_constants.hpp"

namespace partsim::workloads::onnx_import {
namespace {

// The input slots of an operator that hold parameters (weights, biases, normalisation statistics),
// by the ONNX operator specification. A graph input used only in these slots is a parameter given
// as an input (the ONNX node tests and models older than IR 4 list their weights among the inputs).
bool is_weight_slot(const std::string& op, int slot) {
  if (op == "Conv" || op == "Gemm") return slot == 1 || slot == 2;
  if (op == "BatchNormalization") return slot >= 1 && slot <= 4;
  if (op == "LayerNormalization") return slot == 1 || slot == 2;
  if (op == "Gather") return slot == 0;
  return false;
}

// Operators whose outputs are known once the shapes are: they compute on shapes, not data.
bool computes_on_shapes(const std::string& op) { return op == "Shape" || op == "Size"; }

// The first line of a library message, so that every error stays on one line.
std::string first_line(const std::string& text) {
  const auto end = text.find('\n');
  return end == std::string::npos ? text : text.substr(0, end);
}

onnx::ModelProto read_proto(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw InputError(path + ": cannot open the ONNX file (no such file)");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open the ONNX file");
  onnx::ModelProto proto;
  if (!proto.ParseFromIstream(&in))
    throw InputError(path + ": not an ONNX model (the protobuf does not parse: a truncated file or another format)");
  if (!proto.has_graph() || proto.graph().node_size() == 0)
    throw InputError(path + ": not an ONNX model (no graph with nodes)");
  try {
    onnx::checker::check_model(proto);
  } catch (const std::exception& e) {
    throw InputError(path + ": not a valid ONNX model: " + first_line(e.what()));
  }
  return proto;
}

std::set<std::string> initializer_names(const onnx::GraphProto& g) {
  std::set<std::string> names;
  for (const auto& t : g.initializer()) names.insert(t.name());
  return names;
}

// True when every use of `tensor` is a weight slot, directly or through Identity nodes (PyTorch
// writes an Identity for every parameter it de-duplicated).
bool only_weight_uses(const onnx::GraphProto& g, const std::string& tensor, int depth = 0) {
  bool used = false;
  for (const auto& n : g.node())
    for (int s = 0; s < n.input_size(); ++s) {
      if (n.input(s) != tensor) continue;
      used = true;
      const bool ok = is_weight_slot(n.op_type(), s) ||
                      (n.op_type() == "Identity" && depth < 8 && only_weight_uses(g, n.output(0), depth + 1));
      if (!ok) return false;
    }
  return used;
}

// Graph inputs that are parameters: initializers, or used only in weight slots.
std::set<std::string> weight_inputs(const onnx::GraphProto& g) {
  std::set<std::string> weights = initializer_names(g);
  for (const auto& in : g.input())
    if (only_weight_uses(g, in.name())) weights.insert(in.name());
  return weights;
}

// Dimension 0 -> 1 (the batch), named dimensions -> the sizes the user gave.
void fix_input_dims(onnx::ValueInfoProto& input, const OnnxWorkloadSpec& spec, std::set<std::string>& used_names) {
  auto* shape = input.mutable_type()->mutable_tensor_type()->mutable_shape();
  for (int d = 0; d < shape->dim_size(); ++d) {
    auto* dim = shape->mutable_dim(d);
    if (d == 0) {
      dim->set_dim_value(1);
      continue;
    }
    if (dim->has_dim_value() && dim->dim_value() > 0) continue;
    const std::string param = dim->has_dim_param() ? dim->dim_param() : "";
    const auto given = spec.dims.find(param);
    if (param.empty() || given == spec.dims.end())
      throw InputError(spec.path + ": input '" + input.name() + "' dimension " + std::to_string(d) + " is dynamic" +
                       (param.empty() ? " and unnamed: export the model with a fixed size there"
                                      : " ('" + param + "'): give its size as " + spec.path + "#" + param + "=N"));
    used_names.insert(param);
    dim->set_dim_value(given->second);
  }
}

TensorInfo info_of(const onnx::TypeProto& type) {
  TensorInfo info;
  if (!type.has_tensor_type()) return info;
  info.elem_type = type.tensor_type().elem_type();
  if (!type.tensor_type().has_shape()) return info;
  info.has_shape = true;
  for (const auto& dim : type.tensor_type().shape().dim()) {
    if (!dim.has_dim_value()) {
      info.has_shape = false;
      break;
    }
    info.dims.push_back(dim.dim_value());
  }
  return info;
}

// The name of the first dynamic dimension of a tensor's inferred type ("" when none has a name).
std::string dynamic_dim_name(const onnx::GraphProto& g, const std::string& tensor) {
  for (const auto& vi : g.value_info())
    if (vi.name() == tensor && vi.type().has_tensor_type())
      for (const auto& dim : vi.type().tensor_type().shape().dim())
        if (dim.has_dim_param()) return dim.dim_param();
  return "";
}

// Rounds of shape inference and folding: PyTorch's exports need two or three (a Slice's ends are
// known only once the Shape feeding them has a shape); the bound keeps a pathological model finite.
constexpr int kMaxFoldRounds = 16;

// Replaces every inferred shape (value_info and the outputs') by a fresh inference.
void infer_shapes(onnx::ModelProto& proto, const std::string& path) {
  onnx::GraphProto& g = *proto.mutable_graph();
  g.clear_value_info();
  for (auto& out : *g.mutable_output())
    if (out.type().has_tensor_type()) out.mutable_type()->mutable_tensor_type()->clear_shape();
  try {
    onnx::shape_inference::InferShapes(proto, onnx::OpSchemaRegistry::Instance(),
                                       onnx::ShapeInferenceOptions(/*check_type=*/false, /*error_mode=*/1,
                                                                   /*data_prop=*/true));
  } catch (const std::exception& e) {
    throw InputError(path + ": ONNX shape inference failed: " + first_line(e.what()));
  }
}

// The dimensions of every tensor whose shape is fully known (inputs, inferred, outputs, initializers).
std::unordered_map<std::string, std::vector<std::int64_t>> known_shapes(const onnx::GraphProto& g) {
  std::unordered_map<std::string, std::vector<std::int64_t>> shapes;
  auto add = [&](const onnx::ValueInfoProto& vi) {
    const TensorInfo info = info_of(vi.type());
    if (info.has_shape) shapes[vi.name()] = info.dims;
  };
  for (const auto& vi : g.input()) add(vi);
  for (const auto& vi : g.value_info()) add(vi);
  for (const auto& vi : g.output()) add(vi);
  for (const auto& t : g.initializer()) shapes[t.name()] = {t.dims().begin(), t.dims().end()};
  return shapes;
}

}  // namespace

std::string OnnxModel::node_name(int index) const {
  const auto& n = node(index);
  return n.name().empty() ? n.op_type() + "_" + std::to_string(index) : n.name();
}

std::string OnnxModel::where(int index) const {
  return file + ": node '" + node_name(index) + "' (" + node(index).op_type() + ")";
}

const TensorInfo& OnnxModel::tensor(const std::string& name) const {
  static const TensorInfo unknown;
  const auto it = tensors.find(name);
  return it == tensors.end() ? unknown : it->second;
}

bool OnnxModel::is_constant(const std::string& name) const { return tensor(name).constant; }

const IntTensor* OnnxModel::value(const std::string& name) const {
  const auto it = values.find(name);
  return it == values.end() ? nullptr : &it->second;
}

std::int64_t OnnxModel::elements(const std::string& name) const {
  std::int64_t n = 1;
  for (std::int64_t d : tensor(name).dims) n *= d;
  return n;
}

OnnxModel load_onnx_model(const OnnxWorkloadSpec& spec) {
  OnnxModel m;
  m.file = spec.path;
  m.proto = read_proto(spec.path);
  onnx::GraphProto& g = *m.proto.mutable_graph();
  const std::set<std::string> weights = weight_inputs(g);

  // Every named dynamic dimension of the graph inputs (for checking the user's NAME=N options).
  std::set<std::string> dynamic_names;
  for (const auto& in : g.input())
    if (weights.count(in.name()) == 0 && in.type().has_tensor_type())
      for (int d = 1; d < in.type().tensor_type().shape().dim_size(); ++d)
        if (in.type().tensor_type().shape().dim(d).has_dim_param())
          dynamic_names.insert(in.type().tensor_type().shape().dim(d).dim_param());
  for (const auto& [name, size] : spec.dims)
    if (dynamic_names.count(name) == 0)
      throw InputError(spec.path + ": option '" + name + "=" + std::to_string(size) +
                       "' names no dynamic dimension of the model's inputs (dynamic: " +
                       (dynamic_names.empty() ? std::string("none") : join({dynamic_names.begin(), dynamic_names.end()})) +
                       ")");

  std::set<std::string> used_names;
  for (auto& in : *g.mutable_input()) {
    if (weights.count(in.name()) > 0) continue;
    if (!in.type().has_tensor_type() || !in.type().tensor_type().has_shape())
      throw InputError(spec.path + ": input '" + in.name() + "' has no tensor shape");
    fix_input_dims(in, spec, used_names);
    m.activation_inputs.push_back(in.name());
  }
  if (m.activation_inputs.empty()) throw InputError(spec.path + ": the graph has no data input (only weights)");

  // Shapes are re-inferred from the fixed inputs: what the exporter wrote (at another batch) goes.
  // Shape arithmetic is folded between rounds (onnx_constants.hpp): each fold can reveal the shape
  // the next needs; a round that folds nothing ends it.
  for (int round = 0;; ++round) {
    infer_shapes(m.proto, spec.path);
    if (round == kMaxFoldRounds || fold_shape_arithmetic(g, known_shapes(g), m.values) == 0) break;
  }

  for (const auto& in : g.input()) m.tensors[in.name()] = info_of(in.type());
  for (const auto& vi : g.value_info()) m.tensors[vi.name()] = info_of(vi.type());
  for (const auto& out : g.output()) m.tensors[out.name()] = info_of(out.type());
  for (const auto& t : g.initializer()) {
    TensorInfo& info = m.tensors[t.name()];
    info.dims.assign(t.dims().begin(), t.dims().end());
    info.has_shape = true;
    info.elem_type = t.data_type();
  }
  for (const std::string& w : weights) m.tensors[w].constant = true;

  for (int i = 0; i < g.node_size(); ++i) {
    const auto& n = g.node(i);
    bool constant = computes_on_shapes(n.op_type());
    if (!constant) {
      constant = true;
      for (const auto& in : n.input())
        if (!in.empty() && !m.is_constant(in)) constant = false;
    }
    for (const auto& in : n.input())
      if (!in.empty()) m.consumers[in].push_back(i);
    for (const auto& out : n.output()) {
      if (out.empty()) continue;
      m.producer[out] = i;
      m.tensors[out].constant = constant;
    }
  }

  // Every tensor that carries data must have a shape from here on.
  for (int i = 0; i < g.node_size(); ++i)
    for (const auto& out : g.node(i).output()) {
      if (out.empty() || m.is_constant(out) || m.tensor(out).has_shape) continue;
      if (m.consumers.count(out) == 0 && !std::any_of(g.output().begin(), g.output().end(),
                                                      [&](const auto& o) { return o.name() == out; }))
        continue;  // an unused optional output (BatchNormalization's running statistics, Dropout's mask)
      const std::string dim = dynamic_dim_name(g, out);
      throw InputError(m.where(i) + ": no shape could be inferred for output '" + out + "'" +
                       (dim.empty() ? std::string(" (a dimension that depends on data?)")
                                    : " (dynamic dimension '" + dim + "': give it as " + spec.path + "#" + dim + "=N)"));
    }
  return m;
}

std::int64_t int_attribute(const onnx::NodeProto& node, const std::string& name, std::int64_t fallback) {
  for (const auto& a : node.attribute())
    if (a.name() == name) return a.i();
  return fallback;
}

std::vector<std::int64_t> ints_attribute(const onnx::NodeProto& node, const std::string& name,
                                         std::vector<std::int64_t> fallback) {
  for (const auto& a : node.attribute())
    if (a.name() == name) return {a.ints().begin(), a.ints().end()};
  return fallback;
}

std::string string_attribute(const onnx::NodeProto& node, const std::string& name, const std::string& fallback) {
  for (const auto& a : node.attribute())
    if (a.name() == name) return a.s();
  return fallback;
}

}  // namespace partsim::workloads::onnx_import
