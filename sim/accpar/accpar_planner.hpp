#pragma once
// AccPar-family planners (seed 000 §5, §6.1): dp, owt, hypar and accpar on the hierarchical
// partition of §5.1, and the time model that predicts a typing's cost.
//
// Contract:
// - The hierarchy has Hierarchy::depth levels (down to single devices). The first `levels` levels
//   (default: all) are searched top-down, one layer-wise DP per level with the levels above fixed,
//   as HyPar and AccPar do (§5.1 "apply the layer-wise partitioning recursively"); levels below are
//   data parallel (Type-I).
// - dp: every layer Type-I. owt: conv Type-I, other weighted layers Type-II. hypar: Types I/II,
//   objective = communication volume. accpar: Types I/II/III, objective = time. dp/owt/hypar split
//   every group in proportion to its devices (equal partitioning); accpar takes alpha from eq. 10,
//   by default one alpha per level balancing the two sides' summed costs (docs/model.md).
// - Time model (docs/model.md "AccPar cost model"): a layer's time is that of its slowest device:
//   along its path through the hierarchy, the communication of each split it takes part in
//   (Table 4 + Table 5 amounts over eq. 7's b, Hierarchy::side_bandwidth) plus its own computation
//   (eq. 8, Table 6). The iteration is the sum over layers (eq. 9 sums layer costs).

#include <string>
#include <vector>

#include "sim/accpar/hierarchy.hpp"
#include "sim/accpar/problem.hpp"
#include "sim/plan/plan.hpp"

namespace partsim::accpar {

enum class Strategy { dp, owt, hypar, accpar };
Strategy strategy_from_name(const std::string& name);  // throws UnknownNameError
std::string to_string(Strategy s);

struct LevelChoice {
  Type type = Type::I;
  double ratio = 0.5;  // alpha: share of side a
};

/// Per node, per level (top first).
using Typing = std::vector<std::vector<LevelChoice>>;

struct LayerTime {
  double total_s = 0;
  double compute_s = 0;  // Table 6 FLOPs on the critical device (eq. 8)
  double aux_s = 0;      // auxiliary FLOPs (bias, activation, pooling, ...) on that device
  double intra_s = 0;    // Table 4 along its path
  double inter_s = 0;    // Table 5 along its path
};

struct PlanResult {
  Typing typing;
  std::vector<LayerTime> layers;
  double iteration_s = 0;
};

struct PlanOptions {
  int levels = -1;               // levels searched; -1 = all (Hierarchy::depth)
  bool per_layer_ratio = false;  // accpar: eq. 10 per layer instead of one alpha per level
};

/// What one layer's plan makes the devices do, split by split: the transfers and the work the
/// time model charges (for a lowering that must describe the same events, DESIGN principle 1).
struct SplitTransfers {
  int level = 0;                  // 0 = the top level
  int group = 0;                  // index into Hierarchy::groups of the group being split
  double intra_a = 0, intra_b = 0;  // Table 4 elements fetched by side a from side b, and b from a
  double inter_a = 0, inter_b = 0;  // Table 5 elements (forward F + backward E), likewise
  double bandwidth_a = 0;         // eq. 7's b for side a's fetches, bytes/s (Hierarchy::side_bandwidth)
  double bandwidth_b = 0;         // and for side b's
  double inter_fwd_a = 0, inter_fwd_b = 0;  // the forward (F) part of inter_a / inter_b; the rest is E
};
struct DeviceWork {
  int group = 0;                  // the leaf group (one device, or several below the searched depth)
  double primary_flops = 0;       // Table 6 FLOPs of its share
  double aux_flops = 0;           // the other FLOPs of its share
  LayerDims dims;                 // weighted nodes: the leaf's sub-layer (split_dims down its path)
  double aux_scale = 1;           // share of the node's output tensor (and auxiliary work) it holds
  double edge_scale = 1;          // share of the node's input tensors it holds (a carrier: its
                                  // consumers' share, see docs/model.md "Which tensor")
};
struct LayerWork {
  std::vector<SplitTransfers> splits;  // every split of every level, parents before children
  std::vector<DeviceWork> leaves;      // every leaf group
};
/// The transfers and work of node v under a complete typing (no mirror-image shortcuts).
LayerWork layer_work(const Problem& problem, const Hierarchy& hierarchy, const Typing& typing, int v);

/// Plans `problem` on `hierarchy` with `strategy`.
PlanResult plan_layers(const Problem& problem, const Hierarchy& hierarchy, Strategy strategy,
                       const PlanOptions& options = {});

/// The time model for a complete typing (every node, every level of the hierarchy).
PlanResult evaluate_typing(const Problem& problem, const Hierarchy& hierarchy, const Typing& typing);

}  // namespace partsim::accpar
