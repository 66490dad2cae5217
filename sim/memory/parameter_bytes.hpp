#pragma once
// Bytes per parameter of a training step's model states: the weights the step computes with, the
// gradients, and the optimizer states (the fp32 master weights included). docs/model.md "Memory
// footprint" gives the table and every choice.
//
//   mixed precision (e = the platform's 16-bit element size, 2):
//     weights e; gradients e (ZeRO §3.1) or 4 with fp32 main gradients (Megatron-LM);
//     optimizer 4 (fp32 master weights) + 4 per optimizer moment: ZeRO §3.1's K = 12 for Adam.
//     Adam: 2 + 2 + 12 = 16 (ZeRO §3.1), 2 + 4 + 12 = 18 (Megatron-LM distrib_optimizer.md).
//   fp32: weights 4; gradients 4; optimizer 4 per moment, no master copy (the weights are it):
//     Adam 4 + 4 + 8 = 16 (distrib_optimizer.md's "fp32 param, fp32 grads" row).
//   moments: sgd 0, momentum 1 (the velocity), adam 2 (first and second moments). The sgd and
//   momentum rows are derived by the same rule (no source prints them): mixed sgd 2 + 2 + 4 = 8,
//   momentum 2 + 2 + 8 = 12 (10 and 14 with fp32 main gradients); fp32 sgd 8, momentum 12.
//   Inference: the weights only, at the platform's element size.
//
// Contract: pure functions; bytes (per parameter, or for a count of parameters).

#include <cstdint>
#include <string>

#include "sim/plan/memory_use.hpp"
#include "sim/plan/mode.hpp"
#include "topology/system_spec.hpp"

namespace partsim::memory {

/// Bytes of the three model states, per parameter or for a whole set of parameters.
struct ModelStateBytes {
  double weights_bytes = 0;
  double gradients_bytes = 0;
  double optimizer_bytes = 0;  // master weights + moments (ZeRO's K)
  double total() const { return weights_bytes + gradients_bytes + optimizer_bytes; }
  ModelStateBytes times(double count) const {
    return {weights_bytes * count, gradients_bytes * count, optimizer_bytes * count};
  }
  bool operator==(const ModelStateBytes&) const = default;
};

/// The documented defaults (plan::MemorySettings): adam, fp32 main gradients, and mixed precision
/// unless the platform computes in fp32 (then fp32 training).
plan::MemorySettings default_memory_settings(topology::Precision platform_precision);

/// fp32 optimizer moments per parameter: sgd 0, momentum 1, adam 2.
int optimizer_moments(plan::Optimizer optimizer);

/// Bytes per parameter of the model states (file comment). `element_bytes`: the platform's element
/// size (topology::bytes_per_element), what mixed-precision weights and inference weights are held
/// at. Throws InputError for mixed precision on a platform whose elements are already 4 bytes.
ModelStateBytes bytes_per_parameter(const plan::MemorySettings& settings, plan::Mode mode, int element_bytes);

/// "adam, mixed precision, fp32 main gradients: 18 B/parameter (weights 2, gradients 4, optimizer 12)".
std::string describe(const plan::MemorySettings& settings, plan::Mode mode, int element_bytes);

}  // namespace partsim::memory
