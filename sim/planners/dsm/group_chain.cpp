#include "sim/planners/dsm/group_chain.hpp"

#include <algorithm>
#include <map>

#include "sim/planners/dsm/notation.hpp"

namespace partsim::dsm {

namespace {

using workloads::Layer;
using workloads::LayerKind;

// Scratchpad accesses per element of an auxiliary op: read + write, three for a residual add or a
// gating product (two reads, one write).
double accesses_of(LayerKind kind) { return kind == LayerKind::add || kind == LayerKind::multiply ? 3.0 : 2.0; }

void add_aux(DsmLayer& L, const Layer& layer, double per_step) {
  const auto& q = layer.q;
  const double elements = std::max(q.output_elements, q.input_elements) * per_step;
  if (elements <= 0) return;
  const double flops[3] = {q.aux_flops.fwd, q.aux_flops.bwd, q.aux_flops.upd};
  for (std::size_t p = 0; p < 3; ++p) {
    if (flops[p] <= 0) continue;
    const double ops = flops[p] * per_step / elements;
    AuxOp op{layer.name, elements, ops, accesses_of(layer.kind)};
    // Normalizations reduce across the cores that split the reduced dimension (Fig. 5): FWD its
    // statistics, BWD the matching sums of the error (softmax: sum y dy; norms: sum dy, sum dy x^).
    if (p != 2) {
      switch (layer.kind) {
        case LayerKind::softmax: op.reduction = AuxReduction::over_features, op.statistics = 1; break;
        case LayerKind::layer_norm: op.reduction = AuxReduction::over_features, op.statistics = 2; break;
        case LayerKind::rms_norm: op.reduction = AuxReduction::over_features, op.statistics = 1; break;  // no mean
        case LayerKind::batch_norm: op.reduction = AuxReduction::over_samples, op.statistics = 2; break;
        default: break;
      }
    }
    L.aux[p].push_back(op);
  }
}

/// `n`: the layer's N_in, N_out, N_ij, ... (§II-A, notation_of).
DsmLayer primary_layer(const Layer& layer, const LayerNotation& n) {
  DsmLayer L;
  L.name = layer.name;
  L.primary = true;
  L.mb = std::max<long long>(1, n.N_mb);
  L.in = std::max<long long>(1, n.N_in);
  L.out = std::max<long long>(1, n.N_out);
  L.kij = std::max<long long>(1, n.N_kij);
  L.ts = std::max<long long>(1, n.N_ts);
  // The output's positions per feature: N_ij of the input reduced by the stride and padding.
  const long long out_ij = std::max<long long>(1, layer.q.out_positions);
  switch (layer.kind) {
    case LayerKind::conv:
      L.in = std::max<long long>(1, n.N_in / std::max<std::int64_t>(1, layer.attr.groups));
      L.ij_in = std::max<long long>(1, n.N_ij);
      L.ij = out_ij;
      break;
    case LayerKind::lstm:
      L.lstm = true;
      L.bidirectional = layer.attr.bidirectional;
      L.ij = L.ij_in = 1;
      break;
    default: {
      // fc / matmul / attention: a matrix product at every position; out chosen so that the MAC
      // count is the layer's (attention's several products folded into one, docs/model.md).
      L.ij = L.ij_in = out_ij;
      const double per_out = fprod({L.in, L.mb, L.ij});
      if (layer.kind != LayerKind::fc && per_out > 0)
        L.out = std::max<long long>(1, static_cast<long long>(layer.q.macs.fwd / per_out + 0.5));
      break;
    }
  }
  return L;
}

/// A bidirectional LSTM's two directions one after the other (layer_model.hpp `directions`): an
/// iteration is one direction's timestep, with half the gates, output and cell work of the fused step.
void run_directions_in_turn(DsmLayer& L) {
  L.directions = 2;
  L.out /= 2;
  L.ts *= 2;
  L.out_elements /= 2;
  for (auto& ops : L.aux)
    for (auto& op : ops) op.elements /= 2;
}

}  // namespace

GroupChain build_group_chain(const workloads::Graph& graph) {
  GroupChain net;
  net.name = graph.name();
  const auto& layers = graph.layers();
  std::vector<std::ptrdiff_t> group_of(layers.size(), -1);
  std::vector<bool> is_input(layers.size(), false);
  std::vector<std::size_t> last_member(0);

  for (std::size_t i = 0; i < layers.size(); ++i) {
    const Layer& layer = layers[i];
    if (layer.kind == LayerKind::input) {
      is_input[i] = true;
      continue;
    }
    const auto preds = graph.predecessors(i);
    std::ptrdiff_t first_group = -1;  // primary layers: the group of the first input
    std::ptrdiff_t join_group = -1;   // auxiliary layers: the latest group among the inputs
    if (!preds.empty()) first_group = group_of[preds.front()];
    for (std::size_t p : preds) join_group = std::max(join_group, group_of[p]);
    const LayerNotation n = notation_of(layer);  // N_in, N_out, N_ij, ... (§II-A)
    const double steps = std::max<double>(1.0, static_cast<double>(n.N_ts));
    if (layer.q.primary) {
      ChainGroup g;
      g.layer = primary_layer(layer, n);
      g.layer.first = !preds.empty() && std::all_of(preds.begin(), preds.end(),
                                                    [&](std::size_t p) { return is_input[p]; });
      g.members.push_back(layer.name);
      g.primary_producer = first_group;
      add_aux(g.layer, layer, 1.0 / steps);
      g.layer.out_elements = layer.q.output_elements / steps;
      if (g.layer.lstm && g.layer.bidirectional) run_directions_in_turn(g.layer);
      net.groups.push_back(std::move(g));
      group_of[i] = static_cast<std::ptrdiff_t>(net.groups.size() - 1);
    } else if (join_group >= 0) {
      // Joining the latest producing group keeps groups in dependency order (a residual add runs
      // after both its operands, e.g. after ResNet's down-sampling short-cut conv).
      ChainGroup& g = net.groups[static_cast<std::size_t>(join_group)];
      const double gsteps = static_cast<double>(g.layer.ts);
      g.members.push_back(layer.name);
      add_aux(g.layer, layer, 1.0 / gsteps);
      if (layer.kind != LayerKind::flatten)  // flatten keeps the tensor
        g.layer.out_elements = layer.q.output_elements / gsteps;
      group_of[i] = join_group;
    } else {
      // Auxiliary layer fed by graph inputs only (an embedding lookup): its own group.
      ChainGroup g;
      g.layer.name = layer.name;
      g.layer.primary = false;
      g.layer.mb = std::max<long long>(1, n.N_mb);
      g.layer.first = true;
      g.members.push_back(layer.name);
      add_aux(g.layer, layer, 1.0);
      g.layer.out_elements = layer.q.output_elements;
      net.groups.push_back(std::move(g));
      group_of[i] = static_cast<std::ptrdiff_t>(net.groups.size() - 1);
    }
  }

  // Edges between groups, extra inputs of auxiliary ops and live short-cut tensors.
  for (std::size_t i = 0; i < layers.size(); ++i) {
    if (group_of[i] < 0) continue;
    const auto gi = static_cast<std::size_t>(group_of[i]);
    const auto preds = graph.predecessors(i);
    for (std::size_t pred : preds) {
      const std::ptrdiff_t gp = group_of[pred];
      if (gp < 0 || static_cast<std::size_t>(gp) == gi) continue;
      auto& prods = net.groups[gi].producers;
      if (std::find(prods.begin(), prods.end(), static_cast<std::size_t>(gp)) == prods.end())
        prods.push_back(static_cast<std::size_t>(gp));
      const auto& pl = net.groups[static_cast<std::size_t>(gp)].layer;
      // Per timestep of the workload (a bidirectional LSTM's ts counts both directions' steps).
      const double elements = layers[pred].q.output_elements / static_cast<double>(pl.ts / pl.directions);
      // An operand of an auxiliary op (residual add, concat) produced by another group is read
      // from memory.
      if (!layers[i].q.primary) net.groups[gi].layer.extra_in_elements += elements;
      // A tensor skipping groups stays alive in between (§III-B residual retention).
      for (std::size_t between = static_cast<std::size_t>(gp) + 1; between < gi; ++between)
        net.groups[between].retained_elements += elements;
    }
  }
  for (auto& g : net.groups) std::sort(g.producers.begin(), g.producers.end());
  return net;
}

DsmLayer with_minibatch(const DsmLayer& layer, long long s_mb) {
  if (s_mb >= layer.mb || s_mb <= 0) return layer;
  DsmLayer L = layer;
  const double r = static_cast<double>(s_mb) / static_cast<double>(layer.mb);
  L.mb = s_mb;
  L.out_elements *= r;
  L.extra_in_elements *= r;
  for (auto& ops : L.aux)
    for (auto& op : ops) op.elements *= r;
  return L;
}

}  // namespace partsim::dsm
