#pragma once
// The PE-array model of a template chip's core (seed 003 §II-C, §II-D): a pass of a layer is a GEMM
// on the systolic array whose reduction, column and streamed extents are padded up to the array's
// minimum work P = (rows, cols, SIMD lanes), plus the array's start-up latency rows + cols.
//
// Contract: pure functions over loop extents of the work ONE PE array does.

#include "sim/plan/plan.hpp"
#include "topology/system_spec.hpp"

namespace partsim::devices {

/// Loop extents of one PE array's work in seed 003 §II-A's terms: input features, output features,
/// output positions (N_ij), kernel positions (N_kij), minibatch samples.
struct ArrayWork {
  long long in = 1;
  long long out = 1;
  long long ij = 1;
  long long kij = 1;
  long long mb = 1;
};

/// The GEMM view of a pass on the PE array (docs/model.md "DeepSpatialMatrix": mapping).
struct ArrayMapping {
  long long reduction = 1;  // array rows
  long long column = 1;     // array columns
  long long stream = 1;     // SIMD lanes
};
ArrayMapping array_mapping(const ArrayWork& work, plan::Pass pass);

/// PriComp in cycles (seed 003 §II-D).
double pricomp_cycles(const ArrayWork& work, plan::Pass pass, const topology::CoreSpec& core);

/// AuxComp of one auxiliary operation on one core (seed 003 §II-A, §II-D), seconds: `elements`
/// values, each `ops` special-function operations and `accesses` scratchpad reads + writes of
/// `bytes_per_element` bytes; the larger of the SFPs' throughput (sfus x lanes x clock) and the
/// scratchpad bandwidth (0 bandwidth: not modelled).
double sfu_seconds(double elements, double ops, double accesses, double bytes_per_element,
                   const topology::CoreSpec& core);

}  // namespace partsim::devices
