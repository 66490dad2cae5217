#pragma once
// The dsm family's own plan fields (plan.json layers[i].family, docs/plan-format.md "dsm") and their
// codec. The strategy-neutral part of a dsm plan (devices and sharding over the chips) is in the
// LayerPlan; this is what only the DeepSpatialMatrix lowering needs: per pass the chip split, the
// CoreD / ArrayD split factors, DySM, the memory-reuse reading and pipelining (seed 003 Fig. 4, §III).
//
// Contract: fields_from_json() reads strictly (unknown keys and bad values are InputErrors naming
// the file and JSON path); to_json() writes keys in a fixed order.

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <vector>

#include "sim/planners/dsm/chip_split.hpp"

#include "sim/plan/json_reader.hpp"
#include "sim/plan/plan.hpp"

namespace partsim::dsm {

/// Work division over the five dimensions of seed 003 §II-A/§II-C (in, out, ij, kij, mb): either
/// work per core / array or split factors, as the field's name says.
struct Split5 {
  long long in = 1;
  long long out = 1;
  long long ij = 1;
  long long kij = 1;
  long long mb = 1;
  bool operator==(const Split5&) const = default;
};

/// One pass of one layer group as DeepSpatialMatrix maps it.
struct DsmPassPlan {
  plan::Pass pass = plan::Pass::fwd;
  ChipSplit chip_split = ChipSplit::data;  // §II-C, §III-A
  Split5 core_factors;              // CoreD as split factors (product = cores per chip)
  Split5 array_factors;             // ArrayD as split factors (product = PE arrays per core)
  Split5 core_split;                // CoreD: work per core (follows from the factors; checked)
  Split5 array_split;               // ArrayD: work per PE array (likewise)
  int dysm_factor = 1;              // N_mb / S_mb (§III-C); 1 = off
  bool memory_reuse = false;        // streamed operand held in scratchpad by a neighbour (§III-B)
  /// The group's edges held on chip by memory reuse (§III-B), as the search chose them: its input
  /// (FWD) / input error (BWD) from the previous group, its output (FWD) / output error (BWD, UPD)
  /// to the next; the same in every pass of the group. What the pass's memory traffic follows
  /// from (layer_model.hpp flags_for).
  bool reuse_in = false;
  bool reuse_out = false;
  bool weight_reuse = false;        // weights held across LSTM timesteps or preloaded (§III-B)
  bool preloaded = false;           // inference FWD: the weights were preloaded (no FetchKer at all)
  bool weights_held = false;        // later iterations keep the weights (FWD/BWD) or the gradient (UPD)
  std::optional<int> pipe_group;    // timestep-pipelining group index (§III-D)
  std::vector<int> chips;           // chips allocated when pipelined; empty = all chips
};

/// A layer's dsm fields: the passes of the group whose primary layer it is (empty for the auxiliary
/// layers folded into a group).
struct DsmLayerFields {
  std::vector<DsmPassPlan> passes;  // in execution order
};

nlohmann::ordered_json to_json(const DsmLayerFields& fields);
/// `r` reads the layer's family value (null = no passes).
DsmLayerFields dsm_fields_from(const plan::JsonReader& r);

}  // namespace partsim::dsm
