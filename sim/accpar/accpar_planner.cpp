#include "sim/accpar/accpar_planner.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include "sim/accpar/search.hpp"
#include "sim/common/error.hpp"

namespace partsim::accpar {
namespace {

/// At one level, a candidate choice for the node being typed and its inputs' types.
struct Override {
  int level = -1;
  LevelChoice self;
  const std::vector<Type>* inputs = nullptr;
};

/// Bit k set: the path through the hierarchy takes side b of the split at depth k.
using Path = std::uint64_t;

/// Whose sub-tensor each node's inputs are (Evaluator::input_scale): a weighted layer's own; a
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

class Evaluator {
 public:
  Evaluator(const Problem& p, const Hierarchy& h, const Typing& typing)
      : p_(p), h_(h), typing_(typing), owners_(scale_owners(p)) {
    if (h.depth >= 64) throw Error("AccPar hierarchy deeper than 63 levels");
  }

  /// Where node v's recursion stands at a group: the sub-layer there, the share of the node's
  /// output (and auxiliary work) it holds, the path that led there and the time accumulated.
  struct State {
    int group = 0;
    int level = 0;
    LayerDims dims;
    double aux_scale = 1.0;
    Path path = 0;
    LayerTime acc;
  };

  /// The slowest device's time for node v, counting the levels above `depth_limit` (groups at
  /// that depth compute as one aggregate device).
  LayerTime layer_time(int v, int depth_limit, const Override& o) const {
    return recurse(v, node(v), root(v), depth_limit, o);
  }

  /// Where node v's recursion stands when it reaches depth `level` (the levels above fixed): one
  /// entry per distinct group there (mirror images are dropped), with the time accumulated so far.
  std::vector<State> partials(int v, int level) const {
    std::vector<State> out;
    collect(v, node(v), root(v), level, out);
    return out;
  }
  /// layer_time(v, level + 1, o) from the partials of `level` (the levels above are not redone).
  LayerTime layer_time_from(int v, const std::vector<State>& from, int level, const Override& o) const {
    LayerTime worst;
    bool first = true;
    for (const State& s : from) {
      const LayerTime r = recurse(v, node(v), s, level + 1, o);
      if (first || r.total_s > worst.total_s) worst = r;
      first = false;
    }
    return worst;
  }

  /// Every split and leaf of node v (both sides of every split, no shortcuts).
  void work(int v, LayerWork& out) const { walk(v, node(v), root(v), out); }

  /// Elements exchanged at `level` by all groups that split there (HyPar's objective).
  double level_volume(int v, int level, const Override& o) const {
    return volume(v, node(v), root(v), level, o);
  }

  /// Eq. 10's four terms for node v of type t on the first group that splits at `level` (leftmost
  /// in the hierarchy): E_cp = the whole sub-layer's compute on a side, E_cm = its Table 4
  /// communication over the split's cut. A carrier has no communication of its own.
  struct Eq10Terms {
    double cp_a = 0, cm_a = 0, cp_b = 0, cm_b = 0;
  };
  Eq10Terms eq10_terms(int v, int level, Type t) const {
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

  /// Compute share of side a of the first group that splits at `level`: eq. 10 with no
  /// communication, c_a / (c_a + c_b).
  double compute_share(int level) const {
    LayerDims dims;
    double aux = 1.0;
    const int g = find_split(0, level, -1, dims, aux);
    if (g < 0) return 0.5;
    const Group& G = h_.groups[static_cast<size_t>(g)];
    const double a = h_.groups[static_cast<size_t>(G.a)].flops;
    return a / (a + h_.groups[static_cast<size_t>(G.b)].flops);
  }

  /// Per-device (equal) share of side a of the first group that splits at `level`.
  double device_share(int level) const {
    LayerDims dims;
    double aux = 1.0;
    const int g = find_split(0, level, -1, dims, aux);
    return g < 0 ? 0.5 : h_.device_share(h_.groups[static_cast<size_t>(g)]);
  }

 private:
  const Node& node(int v) const { return p_.nodes[static_cast<size_t>(v)]; }
  State root(int v) const {
    State s;
    s.dims = node(v).dims;
    return s;
  }
  LevelChoice choice(int v, int level, const Override& o) const {
    if (level == o.level) return o.self;
    return typing_[static_cast<size_t>(v)][static_cast<size_t>(level)];
  }
  Type input_type(int v, size_t i, int level, const Override& o) const {
    if (level == o.level) return (*o.inputs)[i];
    const int from = p_.nodes[static_cast<size_t>(v)].inputs[i].from;
    return typing_[static_cast<size_t>(from)][static_cast<size_t>(level)].type;
  }

  /// Side b of split G at depth `level` is the mirror image of side a for node v: the sides are
  /// alike and v, and the layers whose sub-tensor v's inputs are (input_scale), split them 50/50.
  bool mirror_image(int v, const Group& G, int level, const Override& o) const {
    if (!G.mirrored || choice(v, level, o).ratio != 0.5) return false;
    for (int w : owners_[static_cast<size_t>(v)])
      if (w != v && typing_[static_cast<size_t>(w)][static_cast<size_t>(level)].ratio != 0.5) return false;
    return true;
  }

  /// Share of its input tensors node v holds at depth `level` on `path` (bit k: side b at level k).
  /// A weighted layer holds its own sub-layer's F_l: the product of its input layout's shares
  /// (split_dims). A carrier has no sub-layer: it holds what its weighted consumers hold (the
  /// largest, when they differ), so converting a tensor in a carrier costs what Table 5 charges
  /// for the tensor entering the consumer (docs/model.md "Which tensor").
  double input_scale(int v, int level, Path path) const {
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

  /// Elements `side` fetches at a split of level `level`: Table 4 + Table 5 (as layout conversions).
  void split_comm(int v, const Node& n, int level, const LayerDims& dims, Path path, Side side, const Override& o,
                  double& intra, double& inter, double* inter_fwd = nullptr) const {
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

  /// Node v's recursion on `side` of the split of s.group (at depth s.level), with what that side
  /// fetches at the split charged over its bandwidth (eq. 7).
  State descend(int v, const Node& n, const State& s, Side side, const Override& o) const {
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

  LayerTime recurse(int v, const Node& n, const State& s, int depth_limit, const Override& o) const {
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

  void walk(int v, const Node& n, const State& s, LayerWork& out) const {
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

  void collect(int v, const Node& n, const State& s, int target, std::vector<State>& out) const {
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

  double volume(int v, const Node& n, const State& s, int target, const Override& o) const {
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

  /// The leftmost group at depth `level` that splits, and node v's sub-layer there (v < 0: none).
  int find_split(int g, int level, int v, LayerDims& dims, double& aux_scale) const {
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

  const Problem& p_;
  const Hierarchy& h_;
  const Typing& typing_;
  const std::vector<std::vector<int>> owners_;  // scale_owners(p_)
};

Allowed allowed_types(const Problem& p, Strategy s) {
  Allowed allowed;
  for (const auto& n : p.nodes) {
    if (!n.weighted) {
      allowed.push_back(s == Strategy::dp ? std::vector<Type>{Type::I} : std::vector<Type>{Type::I, Type::II, Type::III});
      continue;
    }
    switch (s) {
      case Strategy::dp: allowed.push_back({Type::I}); break;
      case Strategy::owt: allowed.push_back({n.conv ? Type::I : Type::II}); break;
      case Strategy::hypar: allowed.push_back({Type::I, Type::II}); break;
      case Strategy::accpar: allowed.push_back({Type::I, Type::II, Type::III}); break;
    }
  }
  return allowed;
}

}  // namespace

Strategy strategy_from_name(const std::string& name) {
  if (name == "dp") return Strategy::dp;
  if (name == "owt") return Strategy::owt;
  if (name == "hypar") return Strategy::hypar;
  if (name == "accpar") return Strategy::accpar;
  throw UnknownNameError("AccPar strategy", name, "dp, owt, hypar, accpar");
}

std::string to_string(Strategy s) {
  switch (s) {
    case Strategy::dp: return "dp";
    case Strategy::owt: return "owt";
    case Strategy::hypar: return "hypar";
    case Strategy::accpar: return "accpar";
  }
  return "dp";
}

PlanResult evaluate_typing(const Problem& problem, const Hierarchy& hierarchy, const Typing& typing) {
  if (typing.size() != problem.nodes.size()) throw Error("evaluate_typing: one entry per node expected");
  for (const auto& levels : typing)
    if (static_cast<int>(levels.size()) < hierarchy.depth) throw Error("evaluate_typing: too few levels");
  Evaluator ev(problem, hierarchy, typing);
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
  Evaluator ev(problem, hierarchy, typing);
  LayerWork out;
  ev.work(v, out);
  return out;
}

PlanResult plan_layers(const Problem& problem, const Hierarchy& hierarchy, Strategy strategy,
                       const PlanOptions& options) {
  const int depth = hierarchy.depth;
  const int searched = options.levels < 0 ? depth : options.levels;
  if (searched > depth)
    throw InputError("levels=" + std::to_string(searched) + ": the platform's hierarchy has only " +
                     std::to_string(depth) + " levels (" + std::to_string(hierarchy.groups[0].devices.size()) +
                     " devices)");
  const size_t n = problem.nodes.size();
  Typing typing(n, std::vector<LevelChoice>(static_cast<size_t>(depth)));
  Evaluator ev(problem, hierarchy, typing);
  const Allowed allowed = allowed_types(problem, strategy);

  for (int level = 0; level < depth; ++level) {
    const double equal = ev.device_share(level);
    // Eq. 10 for accpar. Per level (default): one alpha for every layer, balancing the two sides'
    // summed costs of the chosen types (§5.3), so adjacent layers share alpha as Table 5 assumes.
    // Per layer (ratio=layer): each layer's own eq. 10 for its type.
    auto level_alpha = [&](const std::vector<Type>& types) {
      double a = 0, b = 0;
      for (size_t v = 0; v < n; ++v) {
        const auto e = ev.eq10_terms(static_cast<int>(v), level, types[v]);
        a += e.cp_a + e.cm_a;
        b += e.cp_b + e.cm_b;
      }
      return alpha_eq10(a, 0, b, 0);
    };
    std::vector<std::array<double, 3>> alpha(n, {equal, equal, equal});
    auto set_alpha = [&](double value) {
      for (auto& a : alpha) a = {value, value, value};
    };
    if (strategy == Strategy::accpar) {
      if (options.per_layer_ratio) {
        // Carriers have no communication of their own: eq. 10 gives them c_a / (c_a + c_b).
        const double carrier = ev.compute_share(level);
        for (size_t v = 0; v < n; ++v)
          for (Type t : kAllTypes) {
            const auto e = ev.eq10_terms(static_cast<int>(v), level, t);
            alpha[v][static_cast<size_t>(t)] =
                problem.nodes[v].weighted ? alpha_eq10(e.cp_a, e.cm_a, e.cp_b, e.cm_b) : carrier;
          }
      } else {
        set_alpha(level_alpha(std::vector<Type>(n, Type::I)));
      }
    }
    auto ratio = [&](int v, Type t) { return alpha[static_cast<size_t>(v)][static_cast<size_t>(t)]; };
    auto assign = [&](const std::vector<Type>& types) {
      for (size_t v = 0; v < n; ++v)
        typing[v][static_cast<size_t>(level)] = {types[v], ratio(static_cast<int>(v), types[v])};
    };
    if (level >= searched) {
      assign(std::vector<Type>(n, Type::I));  // below the searched levels: data parallel
      continue;
    }
    std::vector<std::vector<Evaluator::State>> partials;
    if (strategy != Strategy::hypar)
      for (size_t v = 0; v < n; ++v) partials.push_back(ev.partials(static_cast<int>(v), level));
    const NodeCost cost = [&](int v, Type t, const std::vector<Type>& inputs) {
      Override o{level, LevelChoice{t, ratio(v, t)}, &inputs};
      // HyPar minimises communication volume; AccPar (and the fixed strategies) time (eq. 9).
      return strategy == Strategy::hypar ? ev.level_volume(v, level, o)
                                         : ev.layer_time_from(v, partials[static_cast<size_t>(v)], level, o).total_s;
    };
    std::vector<Type> types = search_types(problem, allowed, cost);
    if (strategy == Strategy::accpar && !options.per_layer_ratio) {
      // alpha depends on the types and the types on alpha: a few fixed-point rounds, keeping the
      // (alpha, types) pair with the lowest level cost. Homogeneous halves stop at once (0.5).
      double best_cost = typing_cost(problem, types, cost);
      double best_alpha = alpha[0][0];
      std::vector<Type> best_types = types;
      for (int round = 0; round < 4; ++round) {
        const double next = level_alpha(types);
        if (std::abs(next - alpha[0][0]) <= 1e-12) break;
        set_alpha(next);
        types = search_types(problem, allowed, cost);
        const double c = typing_cost(problem, types, cost);
        if (c < best_cost) {
          best_cost = c;
          best_alpha = next;
          best_types = types;
        }
      }
      set_alpha(best_alpha);
      types = best_types;
    }
    assign(types);
  }
  return evaluate_typing(problem, hierarchy, typing);
}

}  // namespace partsim::accpar
