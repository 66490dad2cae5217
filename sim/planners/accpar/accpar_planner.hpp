#pragma once
// AccPar-family planners (seed 000 §5, §6.1): dp, owt, hypar and accpar on the hierarchical
// partition of §5.1, the search driver over the time model of time_model.hpp.
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
// - Costs come from the time model (time_model.hpp); this file is the search driver only.

#include <string>
#include <vector>

#include "sim/planners/accpar/hierarchy.hpp"
#include "sim/planners/accpar/problem.hpp"
#include "sim/planners/accpar/time_model.hpp"
#include "sim/planners/accpar/typing.hpp"
#include "sim/plan/plan.hpp"

namespace partsim::accpar {

enum class Strategy { dp, owt, hypar, accpar };
Strategy strategy_from_name(const std::string& name);  // throws UnknownNameError
std::string to_string(Strategy s);

struct PlanOptions {
  int levels = -1;               // levels searched; -1 = all (Hierarchy::depth)
  bool per_layer_ratio = false;  // accpar: eq. 10 per layer instead of one alpha per level
};

/// Plans `problem` on `hierarchy` with `strategy`.
PlanResult plan_layers(const Problem& problem, const Hierarchy& hierarchy, Strategy strategy,
                       const PlanOptions& options = {});

}  // namespace partsim::accpar
