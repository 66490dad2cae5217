#pragma once
// A typing and what the AccPar time model says of it (seed 000 §5): per layer and hierarchy level
// a partition type (Table 1's Types I/II/III) and ratio alpha; per layer its time terms; and, for
// the lowering's and the tests' use, the transfers and work of each split and leaf.

#include <vector>

#include "sim/planners/accpar/cost_model.hpp"

namespace partsim::accpar {

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

}  // namespace partsim::accpar
