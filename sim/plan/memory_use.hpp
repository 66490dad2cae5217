#pragma once
// A plan's memory use per device, as plan.json's `memory` object records it (docs/plan-format.md
// "memory"), and the settings the footprint model reckoned it with (docs/model.md "Memory
// footprint"). Plain data: the footprint model (sim/memory/footprint.hpp) fills it for every strategy
// lowered by the shared sharding lowering; dsm fills it with its own model (sim/planners/dsm/footprint.hpp).
// All sizes are bytes.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace partsim::plan {

/// The optimizer whose states a training step keeps (ZeRO §3.1's K counts their bytes).
enum class Optimizer : std::uint8_t { sgd, momentum, adam };
/// fp32: weights, gradients and optimizer states in fp32. mixed: weights (and activations) at the
/// platform's 16-bit precision, with an fp32 master copy of the weights kept by the optimizer
/// (ZeRO §3.1, Micikevicius et al. 2018).
enum class TrainingPrecision : std::uint8_t { fp32, mixed };

/// How the model states of a training step are stored. Defaults: adam, mixed precision on a 16-bit
/// platform (fp32 on an fp32 one: sim/memory/parameter_bytes.hpp default_memory_settings()), and fp32
/// main gradients as Megatron-LM keeps them by default with bf16 (18 B per parameter for mixed Adam;
/// false gives ZeRO's accounting of 16).
struct MemorySettings {
  Optimizer optimizer = Optimizer::adam;
  TrainingPrecision precision = TrainingPrecision::mixed;
  /// Mixed precision only: the gradients are accumulated and reduced in an fp32 buffer (4 B per
  /// parameter, Megatron-LM's main_grad) instead of at the weights' 16 bits (2 B, ZeRO §3.1).
  bool fp32_main_gradients = true;
  bool operator==(const MemorySettings&) const = default;
};

/// "sgd", "momentum", "adam" (Optimizer's values in order), as plan.json and simplan --optimizer
/// spell them.
const std::vector<std::string>& optimizer_names();
/// "fp32", "mixed" (TrainingPrecision's values in order).
const std::vector<std::string>& training_precision_names();

/// External-memory use of one device (or of the device that is fullest for its capacity, when a plan
/// records only one), as the planner or the footprint model reckons it.
struct MemoryUse {
  double per_device_bytes = 0;   // weights + gradients + optimizer + activations + working
  double capacity_bytes = 0;     // the device's external memory
  double weights_bytes = 0;
  double gradients_bytes = 0;
  double activations_bytes = 0;  // kept from FWD to BWD / UPD (training); inference: the largest live
  double working_bytes = 0;      // the largest tensor in flight besides (each model defines it)
  double optimizer_bytes = 0;    // optimizer states, the fp32 master weights included (ZeRO's K)
  /// The device these numbers are for ("" when the model does not name one: dsm, every chip alike).
  std::string device;
  /// The settings the footprint model used (absent for a strategy's own model: dsm).
  std::optional<MemorySettings> settings;
  /// Every device's use, when devices differ (each entry without `settings` or `devices`); empty
  /// when every device holds the same. The numbers above are then the entry that is fullest.
  std::vector<MemoryUse> devices;
  bool fits() const { return per_device_bytes <= capacity_bytes; }
};

/// How every program says a plan does not fit (simplan's refusal and warning, simrun's warning);
/// simsweep and the cross-check report find over-memory points by it (docs/sweeps.md "status").
inline constexpr std::string_view kPlanDoesNotFit = "the plan does not fit";

}  // namespace partsim::plan
