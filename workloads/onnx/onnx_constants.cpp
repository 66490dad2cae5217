#include "workloads/onnx/onnx_constants.hpp"

#include <onnx/defs/tensor_proto_util.h>

#include <algorithm>
#include <functional>
#include <numeric>
#include <optional>

#include "workloads/onnx/onnx_model.hpp"

namespace partsim::workloads::onnx_import {
namespace {

using Shapes = std::unordered_map<std::string, std::vector<std::int64_t>>;

// The integer element types the folder evaluates (bool as 0/1).
bool is_int_type(std::int32_t type) {
  return type == onnx::TensorProto_DataType_INT64 || type == onnx::TensorProto_DataType_INT32 ||
         type == onnx::TensorProto_DataType_BOOL;
}

std::int64_t count(const std::vector<std::int64_t>& dims) {
  return std::accumulate(dims.begin(), dims.end(), std::int64_t{1}, std::multiplies<>());
}

// An axis attribute or input in [-rank, rank) made non-negative (nullopt when out of range).
std::optional<std::int64_t> normalise_axis(std::int64_t axis, std::int64_t rank) {
  if (axis < -rank || axis >= rank) return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

// Elementwise a op b when one side has one element or both have the same dimensions (the
// broadcasts shape arithmetic uses; others are not folded).
std::optional<IntTensor> broadcast(const IntTensor& a, const IntTensor& b,
                                   const std::function<std::optional<std::int64_t>(std::int64_t, std::int64_t)>& op) {
  IntTensor out;
  if (a.dims == b.dims) {
    out.dims = a.dims;
  } else if (b.data.size() == 1 && a.dims.size() >= b.dims.size()) {
    out.dims = a.dims;
  } else if (a.data.size() == 1 && b.dims.size() >= a.dims.size()) {
    out.dims = b.dims;
  } else {
    return std::nullopt;
  }
  const std::size_t n = static_cast<std::size_t>(count(out.dims));
  for (std::size_t i = 0; i < n; ++i) {
    const auto v = op(a.data[a.data.size() == 1 ? 0 : i], b.data[b.data.size() == 1 ? 0 : i]);
    if (!v) return std::nullopt;
    out.data.push_back(*v);
  }
  return out;
}

std::optional<IntTensor> binary(const std::string& op, const IntTensor& a, const IntTensor& b) {
  using R = std::optional<std::int64_t>;
  if (op == "Add") return broadcast(a, b, [](auto x, auto y) -> R { return x + y; });
  if (op == "Sub") return broadcast(a, b, [](auto x, auto y) -> R { return x - y; });
  if (op == "Mul") return broadcast(a, b, [](auto x, auto y) -> R { return x * y; });
  // Integer Div truncates (ONNX's integer division); shape arithmetic divides non-negative sizes.
  if (op == "Div") return broadcast(a, b, [](auto x, auto y) -> R { return y == 0 ? R{} : R{x / y}; });
  if (op == "Max") return broadcast(a, b, [](auto x, auto y) -> R { return std::max(x, y); });
  if (op == "Min") return broadcast(a, b, [](auto x, auto y) -> R { return std::min(x, y); });
  if (op == "Equal") return broadcast(a, b, [](auto x, auto y) -> R { return x == y ? 1 : 0; });
  return std::nullopt;
}

// ONNX Slice on a 1-D tensor (starts, ends, steps clamped as the operator specifies).
std::optional<IntTensor> slice_1d(const IntTensor& x, std::int64_t start, std::int64_t end, std::int64_t step) {
  if (x.dims.size() != 1 || step == 0) return std::nullopt;
  const std::int64_t n = x.dims[0];
  auto clamp = [&](std::int64_t v, std::int64_t lo, std::int64_t hi) { return std::clamp(v < 0 ? v + n : v, lo, hi); };
  IntTensor out;
  if (step > 0) {
    for (std::int64_t i = clamp(start, 0, n), e = clamp(end, 0, n); i < e; i += step)
      out.data.push_back(x.data[static_cast<std::size_t>(i)]);
  } else {
    for (std::int64_t i = clamp(start, 0, n - 1), e = clamp(end, -1, n - 1); i > e; i += step)
      out.data.push_back(x.data[static_cast<std::size_t>(i)]);
  }
  out.dims = {static_cast<std::int64_t>(out.data.size())};
  return out;
}

class Folder {
 public:
  Folder(const Shapes& shapes, KnownValues& known) : shapes_(shapes), known_(known) {}

  // The output value of `n` when it can be computed from what is known.
  std::optional<IntTensor> evaluate(const onnx::NodeProto& n) const {
    const std::string& op = n.op_type();
    if (op == "Constant") return constant(n);
    if (op == "Shape" || op == "Size") {
      const auto s = shapes_.find(n.input(0));
      if (s == shapes_.end()) return std::nullopt;
      if (op == "Size") return IntTensor{{}, {count(s->second)}};
      const auto rank = static_cast<std::int64_t>(s->second.size());
      // Opset 15's start and end attributes (clamped, negative from the end).
      auto bound = [&](std::int64_t v) { return std::clamp(v < 0 ? v + rank : v, std::int64_t{0}, rank); };
      const std::int64_t begin = bound(int_attribute(n, "start", 0)), end = bound(int_attribute(n, "end", rank));
      IntTensor out;
      for (std::int64_t d = begin; d < end; ++d) out.data.push_back(s->second[static_cast<std::size_t>(d)]);
      out.dims = {static_cast<std::int64_t>(out.data.size())};
      return out;
    }
    std::vector<const IntTensor*> in;
    for (const std::string& name : n.input()) {
      if (name.empty()) {
        in.push_back(nullptr);
        continue;
      }
      const auto it = known_.find(name);
      if (it == known_.end()) return std::nullopt;
      in.push_back(&it->second);
    }
    if (in.empty() || in[0] == nullptr) return std::nullopt;
    const IntTensor& x = *in[0];
    if (op == "Identity") return x;
    if (op == "Cast") return is_int_type(static_cast<std::int32_t>(int_attribute(n, "to", 0))) ? std::optional(x) : std::nullopt;
    if (op == "Neg" || op == "Abs") {
      IntTensor out = x;
      for (auto& v : out.data) v = op == "Neg" ? -v : std::abs(v);
      return out;
    }
    if (in.size() == 2 && in[1] != nullptr && (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" ||
                                               op == "Max" || op == "Min" || op == "Equal"))
      return binary(op, x, *in[1]);
    if (op == "Unsqueeze" || op == "Squeeze") return unsqueeze_or_squeeze(n, in);
    if (op == "Concat") {
      IntTensor out;
      for (const IntTensor* t : in) {
        if (t == nullptr || t->dims.size() != 1) return std::nullopt;
        out.data.insert(out.data.end(), t->data.begin(), t->data.end());
      }
      out.dims = {static_cast<std::int64_t>(out.data.size())};
      return out;
    }
    if (op == "Gather") {
      if (x.dims.size() != 1 || in.size() != 2 || in[1] == nullptr) return std::nullopt;
      IntTensor out{in[1]->dims, {}};
      for (std::int64_t i : in[1]->data) {
        const auto k = normalise_axis(i, x.dims[0]);
        if (!k) return std::nullopt;
        out.data.push_back(x.data[static_cast<std::size_t>(*k)]);
      }
      return out;
    }
    if (op == "Slice") {
      if (in.size() < 3 || in[1] == nullptr || in[2] == nullptr || in[1]->data.size() != 1 || in[2]->data.size() != 1)
        return std::nullopt;
      if (in.size() > 3 && in[3] != nullptr && (in[3]->data.size() != 1 || !normalise_axis(in[3]->data[0], 1)))
        return std::nullopt;
      const std::int64_t step = in.size() > 4 && in[4] != nullptr && in[4]->data.size() == 1 ? in[4]->data[0] : 1;
      return slice_1d(x, in[1]->data[0], in[2]->data[0], step);
    }
    if (op == "Range") {
      if (in.size() != 3 || in[1] == nullptr || in[2] == nullptr || x.data.size() != 1 || in[1]->data.size() != 1 ||
          in[2]->data.size() != 1 || in[2]->data[0] == 0)
        return std::nullopt;
      const std::int64_t start = x.data[0], limit = in[1]->data[0], delta = in[2]->data[0];
      const std::int64_t length = std::max<std::int64_t>(0, (limit - start + delta + (delta > 0 ? -1 : 1)) / delta);
      if (length > kMaxFoldedElements) return std::nullopt;
      IntTensor out{{length}, {}};
      for (std::int64_t i = 0; i < length; ++i) out.data.push_back(start + i * delta);
      return out;
    }
    if (op == "Where") {
      if (in.size() != 3 || in[1] == nullptr || in[2] == nullptr || in[1]->dims != in[2]->dims) return std::nullopt;
      const auto picked = broadcast(x, *in[1], [](auto c, auto v) -> std::optional<std::int64_t> { return c ? v : 0; });
      const auto other = broadcast(x, *in[2], [](auto c, auto v) -> std::optional<std::int64_t> { return c ? 0 : v; });
      if (!picked || !other || picked->dims != in[1]->dims) return std::nullopt;
      return binary("Add", *picked, *other);
    }
    return std::nullopt;
  }

 private:
  const Shapes& shapes_;
  KnownValues& known_;

  static std::optional<IntTensor> constant(const onnx::NodeProto& n) {
    for (const auto& a : n.attribute()) {
      IntTensor out;
      if (a.name() == "value" && read_int_tensor(a.t(), out)) return out;
      if (a.name() == "value_int") return IntTensor{{}, {a.i()}};
      if (a.name() == "value_ints")
        return IntTensor{{static_cast<std::int64_t>(a.ints_size())}, {a.ints().begin(), a.ints().end()}};
    }
    return std::nullopt;
  }

  // Axes from the second input (opset >= 13) or the attribute (older opsets).
  static std::optional<IntTensor> unsqueeze_or_squeeze(const onnx::NodeProto& n, const std::vector<const IntTensor*>& in) {
    const IntTensor& x = *in[0];
    std::vector<std::int64_t> axes = ints_attribute(n, "axes", {});
    if (in.size() > 1 && in[1] != nullptr) axes = in[1]->data;
    IntTensor out{{}, x.data};
    if (n.op_type() == "Unsqueeze") {
      const auto rank = static_cast<std::int64_t>(x.dims.size() + axes.size());
      std::vector<bool> inserted(static_cast<std::size_t>(rank), false);
      for (std::int64_t a : axes) {
        const auto k = normalise_axis(a, rank);
        if (!k) return std::nullopt;
        inserted[static_cast<std::size_t>(*k)] = true;
      }
      auto d = x.dims.begin();
      for (bool one : inserted) out.dims.push_back(one ? 1 : (d == x.dims.end() ? 1 : *d++));
      return out;
    }
    const auto rank = static_cast<std::int64_t>(x.dims.size());
    for (std::int64_t d = 0; d < rank; ++d) {
      const bool named = std::any_of(axes.begin(), axes.end(), [&](std::int64_t a) { return normalise_axis(a, rank) == d; });
      if (!(axes.empty() ? x.dims[static_cast<std::size_t>(d)] == 1 : named)) out.dims.push_back(x.dims[static_cast<std::size_t>(d)]);
    }
    return out;
  }
};

// The element type the folded Constant is written with: the type the node's output has.
std::int32_t output_type(const onnx::NodeProto& n, const onnx::GraphProto& g) {
  const std::string& op = n.op_type();
  if (op == "Shape" || op == "Size") return onnx::TensorProto_DataType_INT64;
  if (op == "Equal") return onnx::TensorProto_DataType_BOOL;
  if (op == "Cast") return static_cast<std::int32_t>(int_attribute(n, "to", onnx::TensorProto_DataType_INT64));
  if (op == "Constant") return 0;  // already one
  // Where's first input is the boolean condition: its type is the second's.
  const std::string& typed = op == "Where" ? n.input(1) : n.input(0);
  for (const auto& t : g.initializer())
    if (t.name() == typed) return t.data_type();
  for (const auto& other : g.node())
    if (other.op_type() == "Constant" && other.output_size() == 1 && other.output(0) == typed)
      for (const auto& a : other.attribute())
        if (a.name() == "value") return a.t().data_type();
  for (const auto& vi : g.value_info())
    if (vi.name() == typed && vi.type().has_tensor_type()) return vi.type().tensor_type().elem_type();
  return onnx::TensorProto_DataType_INT64;
}

void make_constant(onnx::NodeProto& n, const IntTensor& value, std::int32_t type) {
  onnx::TensorProto t;
  t.set_data_type(type);
  for (std::int64_t d : value.dims) t.add_dims(d);
  for (std::int64_t v : value.data) {
    if (type == onnx::TensorProto_DataType_INT64) {
      t.add_int64_data(v);
    } else {
      t.add_int32_data(static_cast<std::int32_t>(v));  // INT32 and BOOL are stored in int32_data
    }
  }
  const std::string output = n.output(0);
  const std::string name = n.name();
  n.Clear();
  n.set_op_type("Constant");
  n.set_name(name);
  n.add_output(output);
  auto* attribute = n.add_attribute();
  attribute->set_name("value");
  attribute->set_type(onnx::AttributeProto_AttributeType_TENSOR);
  *attribute->mutable_t() = std::move(t);
}

}  // namespace

bool read_int_tensor(const onnx::TensorProto& t, IntTensor& value) {
  if (!is_int_type(t.data_type()) || t.data_location() == onnx::TensorProto_DataLocation_EXTERNAL) return false;
  const std::vector<std::int64_t> dims(t.dims().begin(), t.dims().end());
  if (count(dims) > kMaxFoldedElements) return false;
  value.dims = dims;
  value.data.clear();
  if (t.data_type() == onnx::TensorProto_DataType_INT64) {
    for (std::int64_t v : onnx::ParseData<std::int64_t>(&t)) value.data.push_back(v);
  } else if (t.data_type() == onnx::TensorProto_DataType_INT32) {
    for (std::int32_t v : onnx::ParseData<std::int32_t>(&t)) value.data.push_back(v);
  } else {
    // libonnx exports no ParseData<bool>: one byte per element in raw_data, else int32_data.
    if (t.has_raw_data()) {
      for (char byte : t.raw_data()) value.data.push_back(byte != 0 ? 1 : 0);
    } else {
      for (std::int32_t v : t.int32_data()) value.data.push_back(v != 0 ? 1 : 0);
    }
  }
  return static_cast<std::int64_t>(value.data.size()) == count(dims);
}

int fold_shape_arithmetic(onnx::GraphProto& graph, const Shapes& shapes, KnownValues& known) {
  for (const auto& t : graph.initializer()) {
    IntTensor value;
    if (known.count(t.name()) == 0 && read_int_tensor(t, value)) known[t.name()] = std::move(value);
  }
  const Folder folder(shapes, known);
  int folded = 0;
  for (auto& n : *graph.mutable_node()) {
    if (n.output_size() != 1 || n.output(0).empty() || known.count(n.output(0)) > 0) continue;
    std::optional<IntTensor> value = folder.evaluate(n);
    if (!value || count(value->dims) != static_cast<std::int64_t>(value->data.size()) ||
        count(value->dims) > kMaxFoldedElements)
      continue;
    if (n.op_type() != "Constant") {
      const std::int32_t type = output_type(n, graph);
      if (!is_int_type(type)) continue;
      make_constant(n, *value, type);
      ++folded;
    }
    known[n.output(0)] = std::move(*value);
  }
  return folded;
}

}  // namespace partsim::workloads::onnx_import
