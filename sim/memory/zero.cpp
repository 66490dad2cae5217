#include "sim/memory/zero.hpp"

#include <string>

#include "sim/common/error.hpp"

namespace partsim::memory {

ModelStateBytes zero_partition(const ModelStateBytes& whole, int stage, int data_parallel_degree) {
  if (stage < 0 || stage > 3) throw InputError("ZeRO stage must be 0, 1, 2 or 3 (got " + std::to_string(stage) + ")");
  if (data_parallel_degree < 1)
    throw InputError("ZeRO's data-parallel degree must be at least 1 (got " + std::to_string(data_parallel_degree) + ")");
  const auto n = static_cast<double>(data_parallel_degree);
  ModelStateBytes kept = whole;
  if (stage >= 1) kept.optimizer_bytes /= n;  // §5.1 P_os
  if (stage >= 2) kept.gradients_bytes /= n;  // §5.2 P_os+g
  if (stage >= 3) kept.weights_bytes /= n;    // §5.3 P_os+g+p
  return kept;
}

}  // namespace partsim::memory
