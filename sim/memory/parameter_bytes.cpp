#include "sim/memory/parameter_bytes.hpp"

#include <cstdio>

#include "sim/common/error.hpp"

namespace partsim::memory {

namespace {
constexpr double kFp32Bytes = 4;  // fp32 master weights, main gradients and optimizer moments
}  // namespace

plan::MemorySettings default_memory_settings(topology::Precision platform_precision) {
  plan::MemorySettings s;
  s.precision = platform_precision == topology::Precision::fp32 ? plan::TrainingPrecision::fp32 : plan::TrainingPrecision::mixed;
  return s;
}

int optimizer_moments(plan::Optimizer optimizer) {
  switch (optimizer) {
    case plan::Optimizer::sgd: return 0;
    case plan::Optimizer::momentum: return 1;  // the velocity
    case plan::Optimizer::adam: return 2;      // m and v (ZeRO §3.1: "momentum and variance")
  }
  return 0;
}

ModelStateBytes bytes_per_parameter(const plan::MemorySettings& settings, plan::Mode mode, int element_bytes) {
  const auto e = static_cast<double>(element_bytes);
  if (mode == plan::Mode::inference) return {e, 0, 0};  // weights only
  const double moments = kFp32Bytes * optimizer_moments(settings.optimizer);
  if (settings.precision == plan::TrainingPrecision::fp32) return {kFp32Bytes, kFp32Bytes, moments};
  if (element_bytes >= 4)
    throw InputError("mixed-precision training needs a platform that computes in 16 bits (system.precision fp16 or "
                     "bf16); this one computes in fp32: give --training-precision fp32");
  // ZeRO §3.1: 2Ψ (fp16 weights) + 2Ψ (fp16 gradients) + KΨ with K = 4 (fp32 master) + 4 per moment.
  const double gradients = settings.fp32_main_gradients ? kFp32Bytes : e;  // Megatron-LM main_grad: 4
  return {e, gradients, kFp32Bytes + moments};
}

std::string describe(const plan::MemorySettings& settings, plan::Mode mode, int element_bytes) {
  const ModelStateBytes b = bytes_per_parameter(settings, mode, element_bytes);
  char buf[200];
  if (mode == plan::Mode::inference) {
    std::snprintf(buf, sizeof buf, "inference: %g B/parameter (weights only)", b.weights_bytes);
    return buf;
  }
  const bool mixed = settings.precision == plan::TrainingPrecision::mixed;
  std::snprintf(buf, sizeof buf, "%s, %s%s: %g B/parameter (weights %g, gradients %g, optimizer %g)",
                plan::optimizer_names()[static_cast<std::size_t>(settings.optimizer)].c_str(),
                mixed ? "mixed precision" : "fp32",
                mixed ? (settings.fp32_main_gradients ? ", fp32 main gradients" : ", 16-bit gradients") : "", b.total(),
                b.weights_bytes, b.gradients_bytes, b.optimizer_bytes);
  return buf;
}

}  // namespace partsim::memory
