#pragma once
// A partition plan: for every layer (and pass where they differ), where it runs, how its tensors are
// split, and the planner's own predicted time. Written by the planners (simplan), read by the
// lowering and replay (simrun). Serialized as plan.json (plan_io.hpp; schema in docs/plan-format.md).
//
// Contract: a Plan is plain data. Strategy-specific parts are optional: AccPar-family strategies
// (dp, owt, hypar, accpar) fill LayerPlan::levels; DeepSpatialMatrix (dsm) fills LayerPlan::passes.
// All times are seconds.

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace partsim::plan {

inline constexpr int kSchemaVersion = 1;

enum class Pass { fwd, bwd, upd };
enum class Mode { training, inference };

/// The planner's prediction for one layer (or one pass of a layer).
struct PredictedCost {
  double total_s = 0;    // what the planner charges this layer in the iteration
  double compute_s = 0;  // computation part
  double comm_s = 0;     // communication part that is not hidden
  /// Named terms in seconds, documented per strategy in docs/plan-format.md (e.g. AccPar
  /// "intra_layer_s", "inter_layer_s"; DSM's Fig. 13 losses "mac_busy_s", "array_underuse_s",
  /// "overlap_not_hidden_s", "non_overlapped_s", "auxiliary_s"). Ordered, so output is stable.
  std::map<std::string, double> breakdown;
};

// ---- AccPar family (seed 000) -------------------------------------------------------------------

/// AccPar's three basic partition types (seed 000 §4): I splits the batch B, II the input
/// dimension D_i, III the output dimension D_o.
enum class AccParType { I, II, III };

/// One hierarchy level of the recursive partition (seed 000 §5.1), top level first. `ratio` is α,
/// the share of the work given to the first of the two sub-groups at this level; β = 1 - α.
struct AccParLevel {
  AccParType type = AccParType::I;
  double ratio = 0.5;
};

// ---- DeepSpatialMatrix (seed 003) ---------------------------------------------------------------

/// Work division over the five dimensions of seed 003 §II-A/§II-C (in, out, ij, kij, mb).
struct Split5 {
  long long in = 1;
  long long out = 1;
  long long ij = 1;
  long long kij = 1;
  long long mb = 1;
};

/// One pass of one layer as DeepSpatialMatrix maps it (seed 003 Fig. 4, §III).
struct DsmPassPlan {
  Pass pass = Pass::fwd;
  std::string chip_split = "data";  // data | model | data_x_model_y | model_x_data_y (§II-C, §III-A)
  Split5 core_split;                // CoreD: work per core
  Split5 array_split;               // ArrayD: work per PE array
  int dysm_factor = 1;              // N_mb / S_mb (§III-C); 1 = off
  bool memory_reuse = false;        // input held in scratchpad from the previous layer (§III-B)
  bool weight_reuse = false;        // weights held across LSTM timesteps / preloaded (§III-B)
  std::optional<int> pipe_group;    // timestep-pipelining group index (§III-D)
  std::vector<int> chips;           // chips allocated when pipelined; empty = all chips
  PredictedCost predicted;
};

// ---- The plan -----------------------------------------------------------------------------------

struct LayerPlan {
  std::string name;                   // the workload's layer name
  PredictedCost predicted;            // whole layer, all passes
  std::vector<int> devices;           // devices it runs on; empty = every device of the platform
  std::vector<AccParLevel> levels;    // AccPar family only, top level first
  std::vector<DsmPassPlan> passes;    // dsm only, in execution order
};

struct ConfigRef {
  std::string name;  // SystemSpec::name
  std::string hash;  // topology::content_hash of the resolved platform
  std::string file;  // path it was read from, informative only
};

struct WorkloadRef {
  std::string name;  // zoo name or workload file path
  long long batch = 1;
  Mode mode = Mode::training;
};

/// External-memory use per device, as the planner reckons it (dsm plans: sim/dsm/footprint.hpp).
/// Bytes; the largest device's use when devices differ.
struct MemoryUse {
  double per_device_bytes = 0;   // weights + gradients + activations + working
  double capacity_bytes = 0;     // the device's external memory
  double weights_bytes = 0;
  double gradients_bytes = 0;
  double activations_bytes = 0;  // kept from FWD to BWD / UPD (training)
  double working_bytes = 0;      // the largest tensor in flight besides
  bool fits() const { return per_device_bytes <= capacity_bytes; }
};

struct Plan {
  int schema = kSchemaVersion;
  std::string strategy;               // dp | owt | hypar | accpar | dsm
  std::vector<std::string> options;   // strategy options, e.g. dsm's {"hybrid","memreuse"} or "levels=8"
  std::string tool_version;           // partsim version that wrote it
  ConfigRef config;
  WorkloadRef workload;
  double predicted_iteration_s = 0;   // the planner's prediction of one training iteration / inference
  std::optional<MemoryUse> memory;    // written by planners that reckon it (dsm)
  std::vector<LayerPlan> layers;      // in the workload's topological order
};

std::string to_string(Pass pass);
std::string to_string(Mode mode);
std::string to_string(AccParType type);

}  // namespace partsim::plan
