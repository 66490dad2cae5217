#pragma once
// The AccPar time model (seed 000 §4-§5, docs/model.md "AccPar cost model"): what a typing (one
// partition type and ratio per layer and hierarchy level) costs. A layer's time is that of its
// slowest device: along its path through the hierarchy, the communication of each split it takes
// part in (Table 4 + Table 5 amounts over eq. 7's b, Hierarchy::side_bandwidth) plus its own
// computation (eq. 8, Table 6). The iteration is the sum over layers (eq. 9).
//
// The search driver (accpar_planner.cpp) asks this model for costs; it holds no formula itself.

#include <cstdint>
#include <vector>

#include "sim/planners/accpar/cost_model.hpp"
#include "sim/planners/accpar/hierarchy.hpp"
#include "sim/planners/accpar/problem.hpp"
#include "sim/planners/accpar/typing.hpp"

namespace partsim::accpar {

/// At one level, a candidate choice for the node being typed and its inputs' types (the search
/// asks "what if node v took `self` at `level`?" without changing the typing).
struct Override {
  int level = -1;
  LevelChoice self;
  const std::vector<Type>* inputs = nullptr;
};

/// Bit k set: the path through the hierarchy takes side b of the split at depth k.
using Path = std::uint64_t;

class TimeModel {
 public:
  /// `typing` is read by reference: a search changes it level by level and the model sees that.
  TimeModel(const Problem& p, const Hierarchy& h, const Typing& typing);

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
  LayerTime layer_time(int v, int depth_limit, const Override& o) const;

  /// Where node v's recursion stands when it reaches depth `level` (the levels above fixed): one
  /// entry per distinct group there (mirror images are dropped), with the time accumulated so far.
  std::vector<State> partials(int v, int level) const;
  /// layer_time(v, level + 1, o) from the partials of `level` (the levels above are not redone).
  LayerTime layer_time_from(int v, const std::vector<State>& from, int level, const Override& o) const;

  /// Every split and leaf of node v (both sides of every split, no shortcuts).
  void work(int v, LayerWork& out) const;

  /// Elements exchanged at `level` by all groups that split there (HyPar's objective).
  double level_volume(int v, int level, const Override& o) const;

  /// Eq. 10's four terms for node v of type t on the first group that splits at `level` (leftmost
  /// in the hierarchy): E_cp = the whole sub-layer's compute on a side, E_cm = its Table 4
  /// communication over the split's cut. A carrier has no communication of its own.
  struct Eq10Terms {
    double cp_a = 0, cm_a = 0, cp_b = 0, cm_b = 0;
  };
  Eq10Terms eq10_terms(int v, int level, Type t) const;

  /// Compute share of side a of the first group that splits at `level`: eq. 10 with no
  /// communication, c_a / (c_a + c_b).
  double compute_share(int level) const;

  /// Per-device (equal) share of side a of the first group that splits at `level`.
  double device_share(int level) const;

 private:
  const Node& node(int v) const;
  State root(int v) const;
  LevelChoice choice(int v, int level, const Override& o) const;
  Type input_type(int v, size_t i, int level, const Override& o) const;

  /// Side b of split G at depth `level` is the mirror image of side a for node v: the sides are
  /// alike and v, and the layers whose sub-tensor v's inputs are (input_scale), split them 50/50.
  bool mirror_image(int v, const Group& G, int level, const Override& o) const;

  /// Share of its input tensors node v holds at depth `level` on `path` (bit k: side b at level k).
  /// A weighted layer holds its own sub-layer's F_l: the product of its input layout's shares
  /// (split_dims). A carrier has no sub-layer: it holds what its weighted consumers hold (the
  /// largest, when they differ), so converting a tensor in a carrier costs what Table 5 charges
  /// for the tensor entering the consumer (docs/model.md "Which tensor").
  double input_scale(int v, int level, Path path) const;

  /// Elements `side` fetches at a split of level `level`: Table 4 + Table 5 (as layout conversions).
  void split_comm(int v, const Node& n, int level, const LayerDims& dims, Path path, Side side, const Override& o,
                  double& intra, double& inter, double* inter_fwd = nullptr) const;

  /// Node v's recursion on `side` of the split of s.group (at depth s.level), with what that side
  /// fetches at the split charged over its bandwidth (eq. 7).
  State descend(int v, const Node& n, const State& s, Side side, const Override& o) const;

  LayerTime recurse(int v, const Node& n, const State& s, int depth_limit, const Override& o) const;

  void walk(int v, const Node& n, const State& s, LayerWork& out) const;

  void collect(int v, const Node& n, const State& s, int target, std::vector<State>& out) const;

  double volume(int v, const Node& n, const State& s, int target, const Override& o) const;

  /// The leftmost group at depth `level` that splits, and node v's sub-layer there (v < 0: none).
  int find_split(int g, int level, int v, LayerDims& dims, double& aux_scale) const;

  const Problem& p_;
  const Hierarchy& h_;
  const Typing& typing_;
  const std::vector<std::vector<int>> owners_;  // scale_owners(p_)
};

/// The time model for a complete typing (every node, every level of the hierarchy).
PlanResult evaluate_typing(const Problem& problem, const Hierarchy& hierarchy, const Typing& typing);

/// The transfers and work of node v under a complete typing (no mirror-image shortcuts).
LayerWork layer_work(const Problem& problem, const Hierarchy& hierarchy, const Typing& typing, int v);

}  // namespace partsim::accpar
