#pragma once
// A partition plan (schema 2): for every layer, the devices it runs on, how its work (and so each of
// its tensors) is sharded over them, the planner's own per-pass prediction, and the strategy's own
// fields. Written by the planners (simplan), read by the lowering and replay (simrun). Serialized as
// plan.json (plan_io.hpp; schema in docs/plan-format.md).
//
// Contract: a Plan is plain data and strategy-neutral. What the shared lowering needs is the
// sharding (sharding.hpp); what only one family needs lives in `family` objects, read and written by
// that strategy's codec (the registry entry's `check`), never by this library. The lowering never
// reads `predicted` (DESIGN.md principle 1): it exists to be compared with the replay.
// All times are seconds.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/plan/family_fields.hpp"
#include "sim/plan/memory_use.hpp"
#include "sim/plan/mode.hpp"
#include "sim/plan/pass.hpp"
#include "sim/plan/sharding.hpp"

namespace partsim::plan {

inline constexpr int kSchemaVersion = 2;

/// The planner's prediction for one layer (or one pass of a layer).
struct PredictedCost {
  double total_s = 0;    // what the planner charges this layer (pass) in the iteration
  double compute_s = 0;  // computation part
  double comm_s = 0;     // communication part that is not hidden
  /// Named terms in seconds, documented per strategy in docs/plan-format.md (e.g. AccPar
  /// "intra_layer_s", "inter_layer_s"; DSM's Fig. 13 losses "mac_busy_s", "array_underuse_s",
  /// "overlap_not_hidden_s", "non_overlapped_s", "auxiliary_s"). Ordered, so output is stable.
  std::map<std::string, double> breakdown;
};

struct PassPrediction {
  Pass pass = Pass::fwd;
  PredictedCost cost;
};

struct LayerPlan {
  std::string name;                    // the workload's layer name
  Sharding sharding;                   // where its work and tensors are (sharding.hpp)
  PredictedCost predicted;             // whole layer, all passes
  std::vector<PassPrediction> passes;  // per pass, when the planner predicts per pass (else empty)
  FamilyFields family;                 // the strategy's own fields (null when it has none; keys sorted)
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

enum class GradientSyncOrder { concurrent, in_order };
enum class GradientSyncAlgorithm { all_reduce, parameter_server };
enum class Redistribution { point_to_point, collective };

/// Directives to the lowering about how a plan's communication is scheduled (docs/plan-format.md
/// "schedule"); plans without them get the defaults.
struct ScheduleDirectives {
  /// true: a layer's gradient all-reduce starts as soon as its weight gradient is ready, overlapping
  /// the rest of back-propagation (DeePa §5). false: every all-reduce waits for the end of the whole
  /// backward pass (DeePa's Fig. 7 grey bars).
  bool overlap_gradient_sync = true;
  /// concurrent: every layer's all-reduce runs as soon as it may, all of them sharing the links at
  /// once. in_order: one communication stream per device, as NCCL's single stream and XLA's in-order
  /// collectives: a device takes part in one gradient all-reduce at a time, in the order the
  /// gradients become ready (backward order), still overlapping back-propagation's compute.
  GradientSyncOrder gradient_sync_order = GradientSyncOrder::concurrent;
  /// Gradient fusion (PyTorch DDP's buckets, Horovod's tensor fusion, XLA's all-reduce combiner):
  /// consecutive layers' gradients over the same devices are all-reduced together once they add up
  /// to this many bytes per device (the rest after back-propagation). 0: each layer's alone.
  double gradient_bucket_bytes = 0;
  /// all_reduce: the replicas all-reduce their gradients (a ring in the replica group's order, or the
  /// dimension-ordered torus all-reduce when every device of a torus takes part). parameter_server:
  /// one device of the group holds the parameters, member v mod r for layer v (DeePa §5's parameter
  /// servers spread over the GPUs): every other replica sends it its gradients, then it sends every
  /// replica the updated parameters.
  GradientSyncAlgorithm gradient_sync_algorithm = GradientSyncAlgorithm::all_reduce;
  /// point_to_point: a layer's inputs (and in BWD the errors it sends back) move between layers of
  /// different shardings as one transfer per (holder, needer) pair, in shift order. collective:
  /// where a redistribution has the shape of a collective over every device, it runs as that
  /// collective's real schedule instead: every device holding an equal disjoint piece and every one
  /// needing the whole tensor is an all-gather (FWD), every device holding a partial sum of the whole
  /// tensor that each owner needs its piece of is a reduce-scatter (BWD); as Megatron-LM's and
  /// GSPMD's tensor-parallel layers do. Other redistributions stay point to point.
  Redistribution redistribution = Redistribution::point_to_point;
  /// Collective algorithm per collective (reduce_scatter, all_gather, all_reduce -> a name of the
  /// collective algorithm registry, sim/collectives/algorithm_registry.hpp) for the plan's
  /// collectives, over the platform's defaults (system.collectives.algorithm). Empty: the platform's.
  std::map<std::string, std::string> collective_algorithms;
  bool operator==(const ScheduleDirectives&) const = default;
};

struct Plan {
  int schema = kSchemaVersion;
  std::string strategy;                         // a registry name (simplan --list-strategies)
  std::map<std::string, std::string> options;   // every declared option of the strategy, resolved
  std::optional<std::uint64_t> seed;            // stochastic strategies: the seed that made the plan
  std::string tool_version;                     // partsim version that wrote it
  ConfigRef config;
  WorkloadRef workload;
  double predicted_iteration_s = 0;  // the planner's prediction of one training iteration / inference
  std::optional<MemoryUse> memory;   // per device (memory_use.hpp): dsm's own, else the footprint model's
  FamilyFields family;               // plan-wide strategy fields (null when none; keys sorted)
  /// Adaptive platforms (seed 004 §III, Config): device name -> the device type (one of the
  /// platform's device_types) the plan configures it to; devices not named keep the platform's type.
  std::map<std::string, std::string> configuration;
  ScheduleDirectives schedule;       // written only when not the default
  std::vector<LayerPlan> layers;     // in the workload's topological order
};

std::string to_string(Mode mode);

}  // namespace partsim::plan
