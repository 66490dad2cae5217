#include "workloads/onnx/onnx_workload.hpp"

#include <algorithm>
#include <charconv>
#include <numeric>
#include <optional>
#include <filesystem>
#include <set>
#include <unordered_map>

#include "sim/common/text.hpp"
#include "workloads/onnx/onnx_attention.hpp"
#include "workloads/onnx/onnx_model.hpp"
#include "workloads/onnx/onnx_operators.hpp"
#include "workloads/onnx/onnx_patterns.hpp"

namespace partsim::workloads {
namespace {

using onnx_import::GroupKind;
using onnx_import::NodeGroup;
using onnx_import::OnnxModel;
using onnx_import::binary_ops;
using onnx_import::int_attribute;
using onnx_import::ints_attribute;
using onnx_import::is_spatial;
using onnx_import::string_attribute;
using onnx_import::supported_ops;
using onnx_import::unary_ops;

// How a tensor's ONNX dimensions (batch 1 first) become partsim's per-sample C x H x W.
enum class Layout {
  channels_first,  // images: N C H W (or N C L): c = C, h = H, w = W
  features_last,   // sequences and matrices: [..., G, M, K]: c = K, h = M, w = the product of the rest
  token_ids,       // integer ids N x S: 1 x S x 1 (what `embedding` reads)
};

std::string dims_text(const std::vector<std::int64_t>& dims) {
  return "[" + join(dims, [](std::int64_t d) { return std::to_string(d); }) + "]";
}

std::int64_t product(const std::vector<std::int64_t>& dims, size_t begin, size_t end) {
  std::int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= dims[i];
  return p;
}

Shape to_shape(const std::vector<std::int64_t>& d, Layout layout) {
  const size_t r = d.size();
  if (layout == Layout::token_ids) return Shape{1, product(d, 0, r), 1};
  if (layout == Layout::channels_first && r >= 2 && r <= 4)
    return Shape{d[1], r >= 3 ? d[2] : 1, r == 4 ? d[3] : 1};
  if (r == 0) return Shape{1, 1, 1};
  if (r == 1) return Shape{d[0], 1, 1};
  return Shape{d[r - 1], d[r - 2], product(d, 0, r - 2)};
}

// Maps the nodes of a shape-inferred model, in their (topological) order, to partsim layers: graph
// inputs first, then one layer per node that carries data (constants and shape arithmetic give none,
// Identity and Dropout alias their input), a folded group as one layer at its last node.
class Importer {
 public:
  explicit Importer(const OnnxModel& model) : m_(model) {
    for (const NodeGroup& g : onnx_import::find_node_groups(m_)) groups_.push_back(g);
    for (size_t k = 0; k < groups_.size(); ++k)
      for (int n : groups_[k].nodes) group_of_[n] = k;
  }

  onnx_import::ImportedLayers run() {
    for (const std::string& in : m_.activation_inputs) add_input(in);
    for (int i = 0; i < m_.node_count(); ++i) {
      if (const auto g = group_of_.find(i); g != group_of_.end()) {
        if (groups_[g->second].last == i) emit_group(groups_[g->second]);
        continue;
      }
      const auto& n = m_.node(i);
      const bool carries_data = std::any_of(n.output().begin(), n.output().end(),
                                            [&](const std::string& o) { return !o.empty() && !m_.is_constant(o); });
      if (carries_data) emit_node(i);
    }
    return std::move(out_);
  }

 private:
  const OnnxModel& m_;
  std::vector<NodeGroup> groups_;
  std::unordered_map<int, size_t> group_of_;
  std::unordered_map<std::string, std::string> layer_of_;  // tensor -> name of the layer that produces it
  std::unordered_map<std::string, Layout> layout_;
  std::set<std::string> names_;
  onnx_import::ImportedLayers out_;

  // ------------------------------------------------------------------ tensors
  Layout layout_of(const std::string& tensor) const {
    const auto it = layout_.find(tensor);
    return it == layout_.end() ? Layout::features_last : it->second;
  }
  const std::vector<std::int64_t>& dims(const std::string& tensor) const { return m_.tensor(tensor).dims; }
  Shape shape_of(const std::string& tensor) const { return to_shape(dims(tensor), layout_of(tensor)); }

  std::vector<std::string> data_inputs(const onnx::NodeProto& n) const {
    std::vector<std::string> data;
    for (const auto& in : n.input())
      if (!in.empty() && !m_.is_constant(in)) data.push_back(in);
    return data;
  }

  const std::string& layer_of(int node, const std::string& tensor) const {
    const auto it = layer_of_.find(tensor);
    if (it == layer_of_.end()) throw InputError(m_.where(node) + ": input '" + tensor + "' is produced by no node");
    return it->second;
  }

  std::string unique_name(const std::string& wanted, int node) {
    std::string name = wanted;
    if (names_.count(name) > 0) name += "_" + std::to_string(node);
    names_.insert(name);
    return name;
  }

  // A tensor that a convolution, pooling or batch norm reads is N C H W; any other is features last.
  // Decided where the tensor is made (a graph input, a Transpose or Reshape), so a transpose from a
  // sequence N x L x C to N x C x L before a Conv1d keeps C as the channels.
  Layout layout_for_readers(const std::string& tensor) const {
    const auto readers = m_.consumers.find(tensor);
    const bool image = readers != m_.consumers.end() &&
                       std::any_of(readers->second.begin(), readers->second.end(),
                                   [&](int c) { return is_spatial(m_.node(c).op_type()); });
    return image ? Layout::channels_first : Layout::features_last;
  }

  // The per-sample axis an ONNX axis of `tensor` is in its layout, when it is one axis of partsim's
  // shape alone (nullopt for the batch axis, or an axis merged with others of size above 1).
  std::optional<ShapeAxis> shape_axis(const std::string& tensor, std::int64_t axis) const {
    const auto& d = dims(tensor);
    const auto rank = static_cast<std::int64_t>(d.size());
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return std::nullopt;
    switch (layout_of(tensor)) {
      case Layout::channels_first:
        if (rank < 2 || rank > 4 || axis == 0) return std::nullopt;
        return axis == 1 ? ShapeAxis::channels : axis == 2 ? ShapeAxis::height : ShapeAxis::width;
      case Layout::token_ids:
        return rank == 2 && axis == 1 ? std::optional(ShapeAxis::height) : std::nullopt;
      case Layout::features_last:
        if (rank == 1 || axis == rank - 1) return ShapeAxis::channels;
        if (axis == rank - 2) return ShapeAxis::height;
        // The width is the product of the leading axes: one of them alone when the others are 1.
        for (std::int64_t k = 0; k < rank - 2; ++k)
          if (k != axis && d[static_cast<size_t>(k)] != 1) return std::nullopt;
        return ShapeAxis::width;
    }
    return std::nullopt;
  }

  // ------------------------------------------------------------------ emitting layers
  void add_input(const std::string& tensor) {
    const onnx_import::TensorInfo& t = m_.tensor(tensor);
    const bool integer = t.elem_type == onnx::TensorProto_DataType_INT64 || t.elem_type == onnx::TensorProto_DataType_INT32;
    layout_[tensor] = integer && t.dims.size() <= 2 ? Layout::token_ids : layout_for_readers(tensor);
    LayerSpec spec;
    spec.name = unique_name(tensor, -1);
    spec.kind = LayerKind::input;
    spec.attr.shape = shape_of(tensor);
    layer_of_[tensor] = spec.name;
    out_.layers.push_back(std::move(spec));
    out_.shapes.push_back(shape_of(tensor));
    out_.onnx_dims.push_back(t.dims);
    out_.nodes.push_back(-1);
  }

  // A layer computing `output` from the data tensors `from`; `layout` is the output's. `name` is the
  // node's unless given.
  LayerSpec& emit(int node, LayerKind kind, const std::vector<std::string>& from, const std::string& output,
                  Layout layout, const std::string& name = "") {
    LayerSpec spec;
    spec.name = unique_name(name.empty() ? m_.node_name(node) : name, node);
    spec.kind = kind;
    for (const std::string& t : from) spec.inputs.push_back(layer_of(node, t));
    layout_[output] = layout;
    if (kind == LayerKind::reshape) spec.attr.shape = shape_of(output);
    layer_of_[output] = spec.name;
    out_.layers.push_back(std::move(spec));
    out_.shapes.push_back(shape_of(output));
    out_.onnx_dims.push_back(dims(output));
    out_.nodes.push_back(node);
    return out_.layers.back();
  }

  void alias(const std::string& output, const std::string& input, int node) {
    layer_of_[output] = layer_of(node, input);
    layout_[output] = layout_of(input);
  }

  [[noreturn]] void unsupported(int node, const std::string& why) const {
    throw InputError(m_.where(node) + ": " + why);
  }

  // A group is named by its first node's scope and what it is: PyTorch's "/layers.0/ffn1/MatMul" and
  // "/layers.0/ffn1/Add" become "/layers.0/ffn1/linear"; nodes without a scope give "linear_12".
  std::string group_name(const NodeGroup& g, const std::string& what) const {
    const std::string first = m_.node_name(g.first);
    const auto slash = first.rfind('/');
    return slash == std::string::npos ? what + "_" + std::to_string(g.first) : first.substr(0, slash + 1) + what;
  }

  void emit_group(const NodeGroup& g) {
    const int node = g.first;
    switch (g.kind) {
      case GroupKind::gelu:
        emit(node, LayerKind::activation, {g.input}, g.output, layout_of(g.input), group_name(g, "gelu"))
            .attr.function = ActivationFn::gelu;
        return;
      case GroupKind::layer_norm:
        emit(node, LayerKind::layer_norm, {g.input}, g.output, Layout::features_last, group_name(g, "layer_norm"));
        return;
      case GroupKind::linear_bias: {
        const auto& w = dims(m_.node(node).input(1));
        LayerSpec& fc = emit(node, LayerKind::fc, {g.input}, g.output, Layout::features_last, group_name(g, "linear"));
        fc.attr.in_channels = w[0];
        fc.attr.out_channels = w[1];
        fc.attr.bias = true;
        return;
      }
    }
  }

  void emit_node(int i) {
    const auto& n = m_.node(i);
    const std::string& op = n.op_type();
    const std::vector<std::string> data = data_inputs(n);
    const std::string& y = n.output(0);
    if (data.empty()) unsupported(i, "has no data input");
    const Layout same = layout_of(data[0]);

    if (op == "Identity" || op == "Dropout") return alias(y, data[0], i);
    if (op == "Conv") return emit_conv(i);
    if (op == "MaxPool" || op == "AveragePool") return emit_pool(i);
    if (op == "GlobalAveragePool" || op == "GlobalMaxPool") {
      LayerSpec& p = emit(i, LayerKind::pool, data, y, Layout::channels_first);
      p.attr.global = true;
      p.attr.pool = op == "GlobalMaxPool" ? PoolOp::max : PoolOp::avg;
      return;
    }
    if (op == "BatchNormalization") {
      emit(i, LayerKind::batch_norm, {data[0]}, y, Layout::channels_first).attr.in_channels = dims(n.input(1)).at(0);
      return;
    }
    if (op == "LayerNormalization") {
      if (int_attribute(n, "axis", -1) != -1 &&
          int_attribute(n, "axis", -1) != static_cast<std::int64_t>(dims(data[0]).size()) - 1)
        unsupported(i, "normalises over more than the last axis (partsim's layer_norm is over the features)");
      emit(i, LayerKind::layer_norm, {data[0]}, y, Layout::features_last);
      return;
    }
    if (op == "Softmax" || op == "LogSoftmax") return void(emit(i, LayerKind::softmax, {data[0]}, y, same));
    if (unary_ops().count(op) > 0) return emit_unary(i, data[0]);
    if (binary_ops().count(op) > 0) return emit_binary(i, data);
    if (op == "Concat") return emit_concat(i, data);
    if (op == "Flatten" || op == "Reshape" || op == "Transpose" || op == "Squeeze" || op == "Unsqueeze") {
      const Layout layout = layout_for_readers(y);
      const Shape out = to_shape(dims(y), layout);
      const bool flat = op == "Flatten" && out.h == 1 && out.w == 1;
      emit(i, flat ? LayerKind::flatten : LayerKind::reshape, {data[0]}, y, layout);
      return;
    }
    if (op == "Gemm") return emit_gemm(i, data);
    if (op == "MatMul") return emit_matmul(i, data);
    if (op == "Gather") return emit_gather(i, data);
    if (op == "Slice") return emit_slice(i, data[0]);
    if (op == "Split") return emit_split(i, data[0]);
    if (op == "Where") return emit_where(i, data);
    if (op == "Expand") {
      if (dims(y) != dims(data[0]))
        unsupported(i, "broadcasts data " + dims_text(dims(data[0])) + " to " + dims_text(dims(y)) +
                           " (an Expand of data is supported only when it copies; of constants it is folded)");
      return alias(y, data[0], i);
    }
    unsupported(i, "operator not supported (supported: " + supported_ops() + ")");
  }

  void emit_unary(int i, const std::string& x) {
    const std::string& op = m_.node(i).op_type();
    const ActivationFn fn = op == "Relu"      ? ActivationFn::relu
                            : op == "Sigmoid" ? ActivationFn::sigmoid
                            : op == "Tanh"    ? ActivationFn::tanh
                            : op == "Gelu"    ? ActivationFn::gelu
                                              : ActivationFn::elementwise;
    emit(i, LayerKind::activation, {x}, m_.node(i).output(0), layout_of(x)).attr.function = fn;
  }

  void emit_binary(int i, const std::vector<std::string>& data) {
    const std::string& y = m_.node(i).output(0);
    if (data.size() == 1) return emit_unary(i, data[0]);  // x op constant (a scale, a bias, an epsilon)
    for (const std::string& t : data)
      if (dims(t) != dims(data[0]))
        unsupported(i, "broadcasts between data tensors " + dims_text(dims(data[0])) + " and " + dims_text(dims(t)) +
                           " (only equal shapes are supported)");
    emit(i, LayerKind::add, data, y, layout_of(data[0]));
  }

  void emit_concat(int i, const std::vector<std::string>& data) {
    const auto& n = m_.node(i);
    const auto rank = static_cast<std::int64_t>(dims(data[0]).size());
    std::int64_t axis = int_attribute(n, "axis", 0);
    if (axis < 0) axis += rank;
    const Layout layout = layout_of(data[0]);
    const std::int64_t channel_axis = layout == Layout::channels_first ? 1 : rank - 1;
    if (axis != channel_axis)
      unsupported(i, "concatenates along axis " + std::to_string(axis) + ", not the channel axis " +
                         std::to_string(channel_axis) + " (partsim's concat joins channels)");
    if (data.size() == 1) return alias(n.output(0), data[0], i);
    emit(i, LayerKind::concat, data, n.output(0), layout);
  }

  void emit_conv(int i) {
    const auto& n = m_.node(i);
    const auto& w = dims(n.input(1));  // O x C/groups x kH [x kW]
    if (w.size() != 3 && w.size() != 4) unsupported(i, "only 1-D and 2-D convolutions are supported");
    const auto ones = std::vector<std::int64_t>(w.size() - 2, 1);
    if (ints_attribute(n, "dilations", ones) != ones) unsupported(i, "dilated convolutions are not supported");
    LayerSpec& c = emit(i, LayerKind::conv, {n.input(0)}, n.output(0), Layout::channels_first);
    c.attr.out_channels = w[0];
    c.attr.groups = int_attribute(n, "group", 1);
    c.attr.in_channels = w[1] * c.attr.groups;
    c.attr.bias = n.input_size() > 2 && !n.input(2).empty();
    set_window(i, c.attr, {w.begin() + 2, w.end()});
  }

  void emit_pool(int i) {
    const auto& n = m_.node(i);
    const auto kernel = ints_attribute(n, "kernel_shape", {});
    const auto ones = std::vector<std::int64_t>(kernel.size(), 1);
    if (ints_attribute(n, "dilations", ones) != ones) unsupported(i, "dilated pooling is not supported");
    const auto zeros = std::vector<std::int64_t>(2 * kernel.size(), 0);
    // A 1 x 1 window with stride 1 copies its input (torchvision VGG's adaptive pool at 7 x 7).
    if (kernel == ones && ints_attribute(n, "strides", ones) == ones && ints_attribute(n, "pads", zeros) == zeros)
      return alias(n.output(0), n.input(0), i);
    LayerSpec& p = emit(i, LayerKind::pool, {n.input(0)}, n.output(0), Layout::channels_first);
    p.attr.pool = n.op_type() == "MaxPool" ? PoolOp::max : PoolOp::avg;
    set_window(i, p.attr, kernel);
  }

  // Kernel, strides and symmetric padding of a 1-D or 2-D window (ONNX pads: all begins, then all ends).
  void set_window(int i, LayerAttributes& a, const std::vector<std::int64_t>& kernel) {
    const auto& n = m_.node(i);
    const size_t r = kernel.size();
    if (r != 1 && r != 2) unsupported(i, "only 1-D and 2-D windows are supported");
    const auto strides = ints_attribute(n, "strides", std::vector<std::int64_t>(r, 1));
    auto pads = ints_attribute(n, "pads", std::vector<std::int64_t>(2 * r, 0));
    const std::string auto_pad = string_attribute(n, "auto_pad", "NOTSET");
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      const auto& in = dims(n.input(0));
      const auto& out = dims(n.output(0));
      for (size_t d = 0; d < r; ++d) {
        const std::int64_t total = std::max<std::int64_t>(0, (out[2 + d] - 1) * strides[d] + kernel[d] - in[2 + d]);
        pads[d] = total / 2;
        pads[r + d] = total - total / 2;
      }
    }
    for (size_t d = 0; d < r; ++d)
      if (pads[d] != pads[r + d])
        unsupported(i, "asymmetric padding " + dims_text(pads) + " is not supported (partsim pads both sides alike)");
    a.kernel_h = kernel[0];
    a.kernel_w = r == 2 ? kernel[1] : 1;
    a.stride_h = strides[0];
    a.stride_w = r == 2 ? strides[1] : 1;
    a.pad_h = pads[0];
    a.pad_w = r == 2 ? pads[1] : 0;
  }

  void emit_gemm(int i, const std::vector<std::string>& data) {
    const auto& n = m_.node(i);
    if (data.size() != 1 || data[0] != n.input(0)) unsupported(i, "Gemm of two data tensors is not supported");
    if (int_attribute(n, "transA", 0) != 0) unsupported(i, "Gemm with transA = 1 is not supported");
    const auto& w = dims(n.input(1));
    const bool trans_b = int_attribute(n, "transB", 0) != 0;
    LayerSpec& fc = emit(i, LayerKind::fc, data, n.output(0), Layout::features_last);
    fc.attr.in_channels = trans_b ? w.at(1) : w.at(0);
    fc.attr.out_channels = trans_b ? w.at(0) : w.at(1);
    fc.attr.bias = n.input_size() > 2 && !n.input(2).empty();
  }

  void emit_matmul(int i, const std::vector<std::string>& data) {
    const auto& n = m_.node(i);
    if (data.size() == 2) return void(emit(i, LayerKind::matmul, data, n.output(0), Layout::features_last));
    const auto& w = dims(n.input(1));
    if (data[0] != n.input(0) || w.size() != 2)
      unsupported(i, "a product with a constant is supported as data x weight matrix only");
    LayerSpec& fc = emit(i, LayerKind::fc, data, n.output(0), Layout::features_last);
    fc.attr.in_channels = w[0];
    fc.attr.out_channels = w[1];
    fc.attr.bias = false;
  }

  // A `slice` of `x` to the output `y` along ONNX axis `axis`, starting at `begin` (normalised);
  // `y`'s inferred dimensions give the end. An axis that keeps its size is no cut: the output is
  // the input.
  void emit_cut(int i, const std::string& x, const std::string& y, std::int64_t axis, std::int64_t begin,
                const std::string& name = "") {
    const auto rank = static_cast<std::int64_t>(dims(x).size());
    if (axis < 0) axis += rank;
    const std::int64_t size = dims(x).at(static_cast<size_t>(axis));
    const std::int64_t kept = dims(y).size() == dims(x).size() ? dims(y)[static_cast<size_t>(axis)] : 1;
    if (kept == size) return alias(y, x, i);
    const std::optional<ShapeAxis> cut = shape_axis(x, axis);
    if (!cut)
      unsupported(i, "cuts axis " + std::to_string(axis) + " of " + dims_text(dims(x)) +
                         ", which is not one of partsim's channel, height or width axes alone in this layout");
    LayerSpec& s = emit(i, LayerKind::slice, {x}, y, layout_of(x), name);
    s.attr.axis = *cut;
    s.attr.begin = begin;
    s.attr.end = begin + kept;
  }

  // The value of a constant integer input, or an error naming what partsim needed it for.
  const onnx_import::IntTensor& constant_value(int i, int slot, const std::string& what) const {
    const auto& n = m_.node(i);
    const onnx_import::IntTensor* v = slot < n.input_size() ? m_.value(n.input(slot)) : nullptr;
    if (v == nullptr) unsupported(i, what + " (input " + std::to_string(slot) + ") is not a constant partsim can evaluate");
    return *v;
  }

  // Slice along one axis with step 1 (PyTorch's x[..., a:b], nn.MultiheadAttention's q, k, v).
  void emit_slice(int i, const std::string& x) {
    const auto& n = m_.node(i);
    const auto& in = dims(x);
    const auto& out = dims(n.output(0));
    const auto rank = static_cast<std::int64_t>(in.size());
    const auto& starts = constant_value(i, 1, "the starts").data;
    std::vector<std::int64_t> axes(starts.size());
    std::iota(axes.begin(), axes.end(), 0);
    if (n.input_size() > 3 && !n.input(3).empty()) axes = constant_value(i, 3, "the axes").data;
    std::vector<std::int64_t> steps(starts.size(), 1);
    if (n.input_size() > 4 && !n.input(4).empty()) steps = constant_value(i, 4, "the steps").data;
    std::optional<size_t> cut;
    for (size_t k = 0; k < axes.size() && k < starts.size(); ++k) {
      const std::int64_t axis = axes[k] < 0 ? axes[k] + rank : axes[k];
      if (axis < 0 || axis >= rank || out[static_cast<size_t>(axis)] == in[static_cast<size_t>(axis)]) continue;
      if (cut) unsupported(i, "cuts more than one axis (partsim's slice cuts one)");
      if (k >= steps.size() || steps[k] != 1) unsupported(i, "slices with a step other than 1");
      cut = k;
    }
    if (!cut) return alias(n.output(0), x, i);
    const std::int64_t axis = axes[*cut] < 0 ? axes[*cut] + rank : axes[*cut];
    const std::int64_t size = in[static_cast<size_t>(axis)];
    const std::int64_t start = starts[*cut] < 0 ? starts[*cut] + size : starts[*cut];
    emit_cut(i, x, n.output(0), axis, std::clamp<std::int64_t>(start, 0, size));
  }

  // Split into consecutive slices (PyTorch's tensor.split / chunk): one `slice` per output.
  void emit_split(int i, const std::string& x) {
    const auto& n = m_.node(i);
    const std::int64_t axis = int_attribute(n, "axis", 0);
    const auto rank = static_cast<std::int64_t>(dims(x).size());
    const auto a = static_cast<size_t>(axis < 0 ? axis + rank : axis);
    std::int64_t begin = 0;
    for (int k = 0; k < n.output_size(); ++k) {
      const std::string& y = n.output(k);
      if (y.empty() || !m_.tensor(y).has_shape) continue;
      emit_cut(i, x, y, axis, begin, m_.node_name(i) + "_" + std::to_string(k));
      begin += dims(y).at(a);
    }
  }

  // Where(condition, x, y): with one data input (a constant mask over data) an element-wise
  // operation on it; with more, an element-wise combination of equal shapes (`add`).
  void emit_where(int i, const std::vector<std::string>& data) {
    const std::string& y = m_.node(i).output(0);
    if (data.size() == 1) {
      if (dims(data[0]) != dims(y))
        unsupported(i, "broadcasts data " + dims_text(dims(data[0])) + " to " + dims_text(dims(y)) +
                           " (only an output of the data input's shape is supported)");
      return emit_unary(i, data[0]);
    }
    emit_binary(i, data);
  }

  void emit_gather(int i, const std::vector<std::string>& data) {
    const auto& n = m_.node(i);
    const auto& table = dims(n.input(0));
    if (!m_.is_constant(n.input(0)) && m_.is_constant(n.input(1))) {
      // Constant indices into data (PyTorch's x[:, 0]): one index, or consecutive ones, is a slice.
      const auto& index = constant_value(i, 1, "the indices").data;
      const std::int64_t axis = int_attribute(n, "axis", 0);
      const auto rank = static_cast<std::int64_t>(table.size());
      const std::int64_t size = table.at(static_cast<size_t>(axis < 0 ? axis + rank : axis));
      for (size_t k = 1; k < index.size(); ++k)
        if (index[k] != index[0] + static_cast<std::int64_t>(k))
          unsupported(i, "gathers indices that are not consecutive from data (only a slice is supported)");
      if (index.empty()) unsupported(i, "gathers no index");
      return emit_cut(i, data[0], n.output(0), axis, index[0] < 0 ? index[0] + size : index[0]);
    }
    if (!m_.is_constant(n.input(0)) || table.size() != 2 || int_attribute(n, "axis", 0) != 0)
      unsupported(i, "only a lookup in a constant 2-D table (an embedding) or constant indices into data (a slice) "
                     "are supported");
    layout_[data[0]] = Layout::token_ids;
    LayerSpec& e = emit(i, LayerKind::embedding, data, n.output(0), Layout::features_last);
    e.attr.vocab = table[0];
    e.attr.dim = table[1];
  }
};

std::int64_t parse_size(const std::string& workload, const std::string& item, const std::string& text) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value <= 0)
    throw InputError(workload + ": option '" + item + "': the size must be a positive integer");
  return value;
}

}  // namespace

bool is_onnx_workload(const std::string& workload) {
  const std::string path = workload.substr(0, workload.find('#'));
  return path.size() > 5 && path.ends_with(".onnx");
}

OnnxWorkloadSpec parse_onnx_workload(const std::string& workload) {
  OnnxWorkloadSpec spec;
  const auto hash = workload.find('#');
  spec.path = workload.substr(0, hash);
  if (hash == std::string::npos) return spec;
  const std::string options = workload.substr(hash + 1);
  size_t begin = 0;
  while (begin <= options.size()) {
    const size_t end = std::min(options.find(',', begin), options.size());
    const std::string item = options.substr(begin, end - begin);
    begin = end + 1;
    if (item == "ops" || item == "granularity=ops") {
      spec.granularity = OnnxGranularity::ops;
    } else if (item == "layers" || item == "granularity=layers") {
      spec.granularity = OnnxGranularity::layers;
    } else if (const auto eq = item.find('='); eq != std::string::npos && eq > 0) {
      spec.dims[item.substr(0, eq)] = parse_size(workload, item, item.substr(eq + 1));
    } else {
      throw InputError(workload + ": unknown option '" + item +
                       "' after '#' (allowed: ops, layers, granularity=ops|layers, NAME=N for a dynamic dimension)");
    }
  }
  return spec;
}

Graph load_onnx_workload(const std::string& workload, std::int64_t batch) {
  const OnnxWorkloadSpec spec = parse_onnx_workload(workload);
  const OnnxModel model = onnx_import::load_onnx_model(spec);
  onnx_import::ImportedLayers imported = Importer(model).run();
  if (spec.granularity == OnnxGranularity::layers) onnx_import::fold_attention(imported);

  const std::string stem = std::filesystem::path(spec.path).stem().string();
  Graph graph(stem, "ONNX model " + std::filesystem::path(spec.path).filename().string() + " (" +
                        (model.proto.producer_name().empty() ? std::string("unknown producer") : model.proto.producer_name()) +
                        "), " + (spec.granularity == OnnxGranularity::ops ? "operation" : "layer") + " granularity");
  for (const LayerSpec& layer : imported.layers) graph.add(layer);
  try {
    graph.finalize(batch);
  } catch (const LayerError& e) {
    throw InputError(spec.path + ": " + e.what());
  }
  // partsim's shape rules must reproduce ONNX's inferred shapes, else the mapping of a node is wrong.
  for (size_t k = 0; k < imported.layers.size(); ++k) {
    const Layer& layer = graph.layer(imported.layers[k].name);
    if (imported.nodes[k] < 0 || layer.output_shape == imported.shapes[k]) continue;
    throw InputError(model.where(imported.nodes[k]) + ": partsim computes an output of " + to_string(layer.output_shape) +
                     " but ONNX infers " + dims_text(imported.onnx_dims[k]) + " (" + to_string(imported.shapes[k]) +
                     "; ceil_mode or another unsupported attribute?)");
  }
  return graph;
}

}  // namespace partsim::workloads
