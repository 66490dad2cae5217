#include "workloads/onnx/onnx_patterns.hpp"

#include <algorithm>
#include <optional>
#include <set>

namespace partsim::workloads::onnx_import {
namespace {

constexpr int kNone = -1;

bool is_graph_output(const OnnxModel& m, const std::string& tensor) {
  return std::any_of(m.graph().output().begin(), m.graph().output().end(),
                     [&](const auto& o) { return o.name() == tensor; });
}

// The one node reading `tensor` (kNone when there are several, none, or the graph returns it).
int sole_consumer(const OnnxModel& m, const std::string& tensor) {
  const auto it = m.consumers.find(tensor);
  if (it == m.consumers.end() || is_graph_output(m, tensor)) return kNone;
  const std::set<int> readers(it->second.begin(), it->second.end());
  return readers.size() == 1 ? *readers.begin() : kNone;
}

int producer_of(const OnnxModel& m, const std::string& tensor) {
  const auto it = m.producer.find(tensor);
  return it == m.producer.end() ? kNone : it->second;
}

bool is_op(const OnnxModel& m, int node, const char* op) { return node != kNone && m.node(node).op_type() == op; }

// For a two-input node reading `tensor`, the other input ("" when the node is not binary).
std::string other_input(const onnx::NodeProto& n, const std::string& tensor) {
  if (n.input_size() != 2) return "";
  return n.input(0) == tensor ? n.input(1) : n.input(1) == tensor ? n.input(0) : "";
}

// A two-input node reading `tensor` whose other input is a constant.
bool with_constant(const OnnxModel& m, int node, const std::string& tensor) {
  if (node == kNone) return false;
  const std::string other = other_input(m.node(node), tensor);
  return !other.empty() && m.is_constant(other);
}

NodeGroup make_group(GroupKind kind, std::vector<int> nodes, int first, int last, std::string input,
                     std::string output) {
  std::sort(nodes.begin(), nodes.end());
  return NodeGroup{kind, std::move(nodes), first, last, std::move(input), std::move(output)};
}

// x -> Div(x, c) | Mul(x, c) -> Erf -> Add(c) -> Mul(x, .) -> Mul(c), or the 0.5 applied to x first:
// Mul(Mul(x, c), .).
std::optional<NodeGroup> gelu_at(const OnnxModel& m, int erf) {
  const int scale = producer_of(m, m.node(erf).input(0));
  if (!(is_op(m, scale, "Div") || is_op(m, scale, "Mul"))) return std::nullopt;
  const std::string x = m.node(scale).input(0);
  if (m.is_constant(x) || !m.is_constant(m.node(scale).input(1)) || sole_consumer(m, m.node(scale).output(0)) != erf)
    return std::nullopt;
  const int plus_one = sole_consumer(m, m.node(erf).output(0));
  if (!is_op(m, plus_one, "Add") || !with_constant(m, plus_one, m.node(erf).output(0))) return std::nullopt;
  const int product = sole_consumer(m, m.node(plus_one).output(0));
  if (!is_op(m, product, "Mul")) return std::nullopt;
  const std::string other = other_input(m.node(product), m.node(plus_one).output(0));
  if (other == x) {
    const int half = sole_consumer(m, m.node(product).output(0));
    if (!is_op(m, half, "Mul") || !with_constant(m, half, m.node(product).output(0))) return std::nullopt;
    return make_group(GroupKind::gelu, {scale, erf, plus_one, product, half}, scale, half, x, m.node(half).output(0));
  }
  const int half = producer_of(m, other);
  if (!is_op(m, half, "Mul") || !with_constant(m, half, x) || sole_consumer(m, other) != product) return std::nullopt;
  return make_group(GroupKind::gelu, {scale, erf, plus_one, half, product}, std::min(scale, half), product, x,
                    m.node(product).output(0));
}

bool reduces_last_axis(const OnnxModel& m, int node) {
  const auto axes = ints_attribute(m.node(node), "axes", {});
  const auto rank = static_cast<std::int64_t>(m.tensor(m.node(node).input(0)).dims.size());
  return axes.size() == 1 && (axes[0] == -1 || axes[0] == rank - 1);
}

// x -> ReduceMean -> Sub(x, mean) -> Pow 2 -> ReduceMean -> Add eps -> Sqrt -> Div(diff, .) -> Mul gamma
// -> Add beta, the mean over the last axis (PyTorch's layer_norm below opset 17).
std::optional<NodeGroup> layer_norm_at(const OnnxModel& m, int mean) {
  const std::string x = m.node(mean).input(0);
  if (m.is_constant(x) || !reduces_last_axis(m, mean)) return std::nullopt;
  const int diff = sole_consumer(m, m.node(mean).output(0));
  if (!is_op(m, diff, "Sub") || m.node(diff).input(0) != x) return std::nullopt;
  const std::string d = m.node(diff).output(0);
  const auto readers_it = m.consumers.find(d);
  if (readers_it == m.consumers.end()) return std::nullopt;
  const std::set<int> readers(readers_it->second.begin(), readers_it->second.end());
  if (readers.size() != 2) return std::nullopt;
  const int square = *readers.begin();
  const int divide = *readers.rbegin();
  if (!(is_op(m, square, "Pow") || is_op(m, square, "Mul")) || !is_op(m, divide, "Div") || m.node(divide).input(0) != d)
    return std::nullopt;
  const int variance = sole_consumer(m, m.node(square).output(0));
  if (!is_op(m, variance, "ReduceMean") || !reduces_last_axis(m, variance)) return std::nullopt;
  const int eps = sole_consumer(m, m.node(variance).output(0));
  if (!is_op(m, eps, "Add") || !with_constant(m, eps, m.node(variance).output(0))) return std::nullopt;
  const int root = sole_consumer(m, m.node(eps).output(0));
  if (!is_op(m, root, "Sqrt") || sole_consumer(m, m.node(root).output(0)) != divide) return std::nullopt;
  const int gamma = sole_consumer(m, m.node(divide).output(0));
  if (!is_op(m, gamma, "Mul") || !with_constant(m, gamma, m.node(divide).output(0))) return std::nullopt;
  const int beta = sole_consumer(m, m.node(gamma).output(0));
  if (!is_op(m, beta, "Add") || !with_constant(m, beta, m.node(gamma).output(0))) return std::nullopt;
  return make_group(GroupKind::layer_norm, {mean, diff, square, variance, eps, root, divide, gamma, beta}, mean, beta,
                    x, m.node(beta).output(0));
}

// MatMul(x, W) -> Add(., b) with W a constant matrix and b a constant vector of its width.
std::optional<NodeGroup> linear_bias_at(const OnnxModel& m, int matmul) {
  const auto& mm = m.node(matmul);
  if (mm.input_size() != 2 || m.is_constant(mm.input(0)) || !m.is_constant(mm.input(1))) return std::nullopt;
  const auto& w = m.tensor(mm.input(1)).dims;
  if (w.size() != 2) return std::nullopt;
  const int add = sole_consumer(m, mm.output(0));
  if (!is_op(m, add, "Add") || !with_constant(m, add, mm.output(0))) return std::nullopt;
  const auto& b = m.tensor(other_input(m.node(add), mm.output(0))).dims;
  if (b.size() != 1 || b[0] != w[1]) return std::nullopt;
  return make_group(GroupKind::linear_bias, {matmul, add}, matmul, add, mm.input(0), m.node(add).output(0));
}

}  // namespace

std::vector<NodeGroup> find_node_groups(const OnnxModel& m) {
  std::vector<NodeGroup> groups;
  std::set<int> taken;
  for (int i = 0; i < m.node_count(); ++i) {
    const std::string& op = m.node(i).op_type();
    std::optional<NodeGroup> g = op == "Erf"          ? gelu_at(m, i)
                                 : op == "ReduceMean" ? layer_norm_at(m, i)
                                 : op == "MatMul"     ? linear_bias_at(m, i)
                                                      : std::nullopt;
    if (!g || std::any_of(g->nodes.begin(), g->nodes.end(), [&](int n) { return taken.count(n) > 0; })) continue;
    taken.insert(g->nodes.begin(), g->nodes.end());
    groups.push_back(std::move(*g));
  }
  return groups;
}

}  // namespace partsim::workloads::onnx_import
