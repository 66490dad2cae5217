#include "sim/planners/accpar/problem.hpp"

#include <algorithm>

#include "sim/planners/accpar/notation.hpp"

namespace partsim::accpar {

Layout node_input_layout(const Node& n, Type t) {
  return n.weighted ? needed_input_layout(t) : output_layout(t);
}

Layout node_output_layout(const Node&, Type t) { return output_layout(t); }

Problem make_problem(const workloads::Graph& graph, Mode mode, double bytes_per_element) {
  using workloads::LayerKind;
  Problem p;
  p.mode = mode;
  p.bytes_per_element = bytes_per_element;
  for (size_t i = 0; i < graph.size(); ++i) {
    const auto& layer = graph.layer(i);
    const auto& q = layer.q;
    const LayerNotation v = notation_of(layer);  // B, D_i, D_o, ... (§3.1, §4.3)
    Node n;
    n.name = layer.name;
    n.input = layer.kind == LayerKind::input;
    n.conv = layer.kind == LayerKind::conv;
    n.weighted = (layer.kind == LayerKind::conv || layer.kind == LayerKind::fc || layer.kind == LayerKind::lstm ||
                  layer.kind == LayerKind::attention) &&
                 v.A_W > 0 && v.D_i > 0 && v.D_o > 0;
    if (n.weighted) {
      n.dims.B = static_cast<double>(v.B);
      n.dims.D_i = static_cast<double>(v.D_i);
      n.dims.D_o = static_cast<double>(v.D_o);
      n.dims.S_in = static_cast<double>(v.feature_in_2d);
      n.dims.S_out = static_cast<double>(v.feature_out_2d);
      // K = A(W) / (D_i * D_o): the 2-D kernel size, divided by the groups of a grouped convolution.
      n.dims.K = v.A_W / (n.dims.D_i * n.dims.D_o);
    }
    // Every FLOP of the layer is charged: Table 6 of the weighted product, and the rest (bias,
    // activation, pooling, attention scores, matmul, ...) as auxiliary work.
    const auto flops = q.flops();
    const double total = mode == Mode::training ? flops.total() : flops.fwd;
    n.aux_flops = n.weighted ? std::max(0.0, total - mode_flops(table6_flops(n.dims), mode)) : total;
    const auto preds = graph.predecessors(i);
    for (size_t slot = 0; slot < preds.size(); ++slot) {
      Edge e;
      e.from = static_cast<int>(preds[slot]);
      const auto& shape = slot < layer.input_shapes.size() ? layer.input_shapes[slot] : layer.output_shape;
      e.elements = static_cast<double>(v.B) * static_cast<double>(shape.elements());
      n.inputs.push_back(e);
    }
    p.nodes.push_back(std::move(n));
  }
  return p;
}

}  // namespace partsim::accpar
