#include "sim/planners/accpar/time_model.hpp"

#include <algorithm>

#include "sim/common/error.hpp"

namespace partsim::accpar {
namespace {

/// Whose sub-tensor each node's inputs are (TimeModel::input_scale): a weighted layer's own; a
/// carrier's, those of the weighted layers its output reaches through carriers only (its own if
/// it reaches none, e.g. a final softmax). Nodes are in topological order.
std::vector<std::vector<int>> scale_owners(const Problem& p) {
  const size_t n = p.nodes.size();
  std::vector<std::vector<int>> consumers(n), owners(n);
  for (size_t v = 0; v < n; ++v)
    for (const Edge& e : p.nodes[v].inputs) consumers[static_cast<size_t>(e.from)].push_back(static_cast<int>(v));
  for (size_t v = n; v-- > 0;) {
    auto& o = owners[v];
    if (!p.nodes[v].weighted)
      for (int c : consumers[v]) o.insert(o.end(), owners[static_cast<size_t>(c)].begin(), owners[static_cast<size_t>(c)].end());
    std::sort(o.begin(), o.end());
    o.erase(std::unique(o.begin(), o.end()), o.end());
    if (o.empty()) o.push_back(static_cast<int>(v));
  }
  return owners;
}

}  // namespace

TimeModel::TimeModel(const Problem& p, const Hierarchy& h, const Typing& typing)
    : p_(p), h_(h), typing_(typing), owners_(scale_owners(p)) {
  if (h.depth >= 64) throw Error("AccPar hierarchy deeper than 63 levels");
}

const Node& TimeModel::node(int v) const {
  return p_.nodes[static_cast<size_t>(v)];
}

LayerTime TimeModel::layer_time(int v, int depth_limit, const Override& o) const {
  return recurse(v, node(v), root(v), depth_limit, o);
}

std::vector<TimeModel::State> TimeModel::partials(int v, int level) const {
  std::vector<State> out;
  collect(v, node(v), root(v), level, out);
  return out;
}

LayerTime TimeModel::layer_time_from(int v, const std::vector<State>& from, int level, const Override& o) const {
  LayerTime worst;
  bool first = true;
  for (const State& s : from) {
    const LayerTime r = recurse(v, node(v), s, level + 1, o);
    if (first || r.total_s > worst.total_s) worst = r;
    first = false;
  }
  return worst;
}

void TimeModel::work(int v, LayerWork& out) const {
  walk(v, node(v), root(v), out);
}

double TimeModel::level_volume(int v, int level, const Override& o) const {
  return volume(v, node(v), root(v), level, o);
}

TimeModel::Eq10Terms TimeModel::eq10_terms(int v, int level, Type t) const {
  const Node& n = p_.nodes[static_cast<size_t>(v)];
  LayerDims dims = n.dims;
  double aux_scale = 1.0;
  Eq10Terms e;
  const int g = find_split(0, level, v, dims, aux_scale);
  if (g < 0) return e;
  const Group& G = h_.groups[static_cast<size_t>(g)];
  const Group& A = h_.groups[static_cast<size_t>(G.a)];
  const Group& B = h_.groups[static_cast<size_t>(G.b)];
  const double flops = (n.weighted ? mode_flops(table6_flops(dims), p_.mode) : 0.0) + n.aux_flops * aux_scale;
  e.cp_a = flops / A.flops;
  e.cp_b = flops / B.flops;
  if (n.weighted) {
    const double intra = intra_layer_elements(t, dims, p_.mode);
    e.cm_a = e_cm(intra, p_.bytes_per_element, h_.side_bandwidth(G, Side::a));
    e.cm_b = e_cm(intra, p_.bytes_per_element, h_.side_bandwidth(G, Side::b));
  }
  return e;
}

double TimeModel::compute_share(int level) const {
  LayerDims dims;
  double aux = 1.0;
  const int g = find_split(0, level, -1, dims, aux);
  if (g < 0) return 0.5;
  const Group& G = h_.groups[static_cast<size_t>(g)];
  const double a = h_.groups[static_cast<size_t>(G.a)].flops;
  return a / (a + h_.groups[static_cast<size_t>(G.b)].flops);
}

double TimeModel::device_share(int level) const {
  LayerDims dims;
  double aux = 1.0;
  const int g = find_split(0, level, -1, dims, aux);
  return g < 0 ? 0.5 : h_.device_share(h_.groups[static_cast<size_t>(g)]);
}

TimeModel::State TimeModel::root(int v) const {
  State s;
  s.dims = node(v).dims;
  return s;
}

LevelChoice TimeModel::choice(int v, int level, const Override& o) const {
  if (level == o.level) return o.self;
  return typing_[static_cast<size_t>(v)][static_cast<size_t>(level)];
}

Type TimeModel::input_type(int v, size_t i, int level, const Override& o) const {
  if (level == o.level) return (*o.inputs)[i];
  const int from = p_.nodes[static_cast<size_t>(v)].inputs[i].from;
  return typing_[static_cast<size_t>(from)][static_cast<size_t>(level)].type;
}

bool TimeModel::mirror_image(int v, const Group& G, int level, const Override& o) const {
  if (!G.mirrored || choice(v, level, o).ratio != 0.5) return false;
  for (int w : owners_[static_cast<size_t>(v)])
    if (w != v && typing_[static_cast<size_t>(w)][static_cast<size_t>(level)].ratio != 0.5) return false;
  return true;
}

double TimeModel::input_scale(int v, int level, Path path) const {
  double largest = 0;
  for (int w : owners_[static_cast<size_t>(v)]) {
    const Node& owner = p_.nodes[static_cast<size_t>(w)];
    double scale = 1.0;
    for (int k = 0; k < level; ++k) {
      const LevelChoice& c = typing_[static_cast<size_t>(w)][static_cast<size_t>(k)];
      scale *= layout_share(node_input_layout(owner, c.type), (path >> k) & 1 ? 1.0 - c.ratio : c.ratio);
    }
    largest = std::max(largest, scale);
  }
  return largest;
}

void TimeModel::split_comm(int v, const Node& n, int level, const LayerDims& dims, Path path, Side side, const Override& o,
                           double& intra, double& inter, double* inter_fwd) const {
  const LevelChoice c = choice(v, level, o);
  intra = n.weighted ? intra_layer_elements(c.type, dims, p_.mode) : 0.0;
  inter = 0.0;
  if (inter_fwd) *inter_fwd = 0.0;
  if (n.inputs.empty()) return;
  const double scale = input_scale(v, level, path);
  const Layout in = node_input_layout(n, c.type);
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const Edge& e = n.inputs[i];
    const Node& pred = p_.nodes[static_cast<size_t>(e.from)];
    const Layout out = node_output_layout(pred, input_type(v, i, level, o));
    const double elements = e.elements * scale;
    const double forward = conversion_fraction(out, in, c.ratio, side) * elements;  // F
    inter += forward;
    if (inter_fwd) *inter_fwd += forward;
    if (p_.mode == Mode::training && !pred.input)
      inter += conversion_fraction(in, out, c.ratio, side) * elements;  // backward: E
  }
}

TimeModel::State TimeModel::descend(int v, const Node& n, const State& s, Side side, const Override& o) const {
  const Group& G = h_.groups[static_cast<size_t>(s.group)];
  const LevelChoice c = choice(v, s.level, o);
  const double share = side == Side::a ? c.ratio : 1.0 - c.ratio;
  double intra = 0, inter = 0;
  split_comm(v, n, s.level, s.dims, s.path, side, o, intra, inter);
  State next = s;
  const double bw = h_.side_bandwidth(G, side);
  next.acc.intra_s += e_cm(intra, p_.bytes_per_element, bw);  // eq. 7
  next.acc.inter_s += e_cm(inter, p_.bytes_per_element, bw);
  next.group = side == Side::a ? G.a : G.b;
  next.level = s.level + 1;
  if (n.weighted) next.dims = split_dims(s.dims, c.type, share);
  next.aux_scale *= n.weighted ? share : layout_share(node_output_layout(n, c.type), share);
  if (side == Side::b) next.path |= Path{1} << s.level;
  return next;
}

LayerTime TimeModel::recurse(int v, const Node& n, const State& s, int depth_limit, const Override& o) const {
  const Group& G = h_.groups[static_cast<size_t>(s.group)];
  if (G.is_leaf() || s.level >= depth_limit) {
    LayerTime t = s.acc;
    t.compute_s = n.weighted ? mode_flops(table6_flops(s.dims), p_.mode) / G.flops : 0.0;  // eq. 8
    t.aux_s = n.aux_flops * s.aux_scale / G.flops;
    t.total_s = t.compute_s + t.aux_s + t.intra_s + t.inter_s;
    return t;
  }
  const bool mirror = mirror_image(v, G, s.level, o);
  LayerTime worst;
  bool first = true;
  for (Side side : {Side::a, Side::b}) {
    if (side == Side::b && mirror) break;
    const LayerTime r = recurse(v, n, descend(v, n, s, side, o), depth_limit, o);
    if (first || r.total_s > worst.total_s) worst = r;
    first = false;
  }
  return worst;
}

void TimeModel::walk(int v, const Node& n, const State& s, LayerWork& out) const {
  const Group& G = h_.groups[static_cast<size_t>(s.group)];
  if (G.is_leaf()) {
    out.leaves.push_back({s.group, n.weighted ? mode_flops(table6_flops(s.dims), p_.mode) : 0.0,
                          n.aux_flops * s.aux_scale, s.dims, s.aux_scale, input_scale(v, s.level, s.path)});
    return;
  }
  SplitTransfers t;
  t.level = s.level;
  t.group = s.group;
  t.bandwidth_a = h_.side_bandwidth(G, Side::a);
  t.bandwidth_b = h_.side_bandwidth(G, Side::b);
  split_comm(v, n, s.level, s.dims, s.path, Side::a, Override{}, t.intra_a, t.inter_a, &t.inter_fwd_a);
  split_comm(v, n, s.level, s.dims, s.path, Side::b, Override{}, t.intra_b, t.inter_b, &t.inter_fwd_b);
  out.splits.push_back(t);
  for (Side side : {Side::a, Side::b}) walk(v, n, descend(v, n, s, side, Override{}), out);
}

void TimeModel::collect(int v, const Node& n, const State& s, int target, std::vector<State>& out) const {
  const Group& G = h_.groups[static_cast<size_t>(s.group)];
  if (G.is_leaf() || s.level >= target) {
    out.push_back(s);
    return;
  }
  const bool mirror = mirror_image(v, G, s.level, Override{});
  for (Side side : {Side::a, Side::b}) {
    if (side == Side::b && mirror) break;
    collect(v, n, descend(v, n, s, side, Override{}), target, out);
  }
}

double TimeModel::volume(int v, const Node& n, const State& s, int target, const Override& o) const {
  const Group& G = h_.groups[static_cast<size_t>(s.group)];
  if (G.is_leaf()) return 0.0;
  double total = 0;
  if (s.level == target) {
    for (Side side : {Side::a, Side::b}) {
      double intra = 0, inter = 0;
      split_comm(v, n, s.level, s.dims, s.path, side, o, intra, inter);
      total += intra + inter;
    }
    return total;
  }
  const bool mirror = mirror_image(v, G, s.level, o);
  for (Side side : {Side::a, Side::b}) {
    if (side == Side::b && mirror) return 2 * total;
    total += volume(v, n, descend(v, n, s, side, o), target, o);
  }
  return total;
}

int TimeModel::find_split(int g, int level, int v, LayerDims& dims, double& aux_scale) const {
  const Group& G = h_.groups[static_cast<size_t>(g)];
  if (G.is_leaf()) return -1;
  if (G.depth == level) return g;
  const Node* n = v >= 0 ? &p_.nodes[static_cast<size_t>(v)] : nullptr;
  for (Side side : {Side::a, Side::b}) {
    LayerDims sub = dims;
    double sub_aux = aux_scale;
    if (n) {
      const LevelChoice c = typing_[static_cast<size_t>(v)][static_cast<size_t>(G.depth)];
      const double share = side == Side::a ? c.ratio : 1.0 - c.ratio;
      if (n->weighted) sub = split_dims(dims, c.type, share);
      sub_aux *= n->weighted ? share : layout_share(node_output_layout(*n, c.type), share);
    }
    const int found = find_split(side == Side::a ? G.a : G.b, level, v, sub, sub_aux);
    if (found >= 0) {
      dims = sub;
      aux_scale = sub_aux;
      return found;
    }
  }
  return -1;
}

PlanResult evaluate_typing(const Problem& problem, const Hierarchy& hierarchy, const Typing& typing) {
  if (typing.size() != problem.nodes.size()) throw Error("evaluate_typing: one entry per node expected");
  for (const auto& levels : typing)
    if (static_cast<int>(levels.size()) < hierarchy.depth) throw Error("evaluate_typing: too few levels");
  TimeModel ev(problem, hierarchy, typing);
  PlanResult r;
  r.typing = typing;
  for (size_t v = 0; v < problem.nodes.size(); ++v) {
    r.layers.push_back(ev.layer_time(static_cast<int>(v), hierarchy.depth, Override{}));
    r.iteration_s += r.layers.back().total_s;
  }
  return r;
}

LayerWork layer_work(const Problem& problem, const Hierarchy& hierarchy, const Typing& typing, int v) {
  if (typing.size() != problem.nodes.size()) throw Error("layer_work: one typing entry per node expected");
  TimeModel ev(problem, hierarchy, typing);
  LayerWork out;
  ev.work(v, out);
  return out;
}

}  // namespace partsim::accpar
