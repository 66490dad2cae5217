#include "sim/planners/dsm/footprint.hpp"

#include <algorithm>

#include "sim/common/error.hpp"

namespace partsim::dsm {

plan::MemoryUse memory_footprint(const GroupChain& network, const std::vector<GroupPlacement>& placement,
                                 const DsmSystem& s, bool training) {
  if (placement.size() != network.groups.size())
    throw Error("memory_footprint: " + std::to_string(placement.size()) + " placements for " +
                std::to_string(network.groups.size()) + " groups");
  plan::MemoryUse f;
  f.capacity_bytes = s.chip.memory_bytes;
  const double e = s.bytes_per_element;
  for (std::size_t g = 0; g < network.groups.size(); ++g) {
    const DsmLayer& L = network.groups[g].layer;
    const int chips = std::max(1, placement[g].chips);
    // A pipelined group's block is M x (chips / M) chips (§III-D); otherwise the whole torus.
    const int rows = chips == s.chips() ? s.N : std::max(1, chips / s.M);
    const ChipFactors cf = chip_factors(placement[g].split, s.M, rows);
    const double ts = static_cast<double>(L.ts);
    if (L.primary) {
      const double kernel = L.all_kernel_elements() / static_cast<double>(cf.out) * e;
      f.weights_bytes += kernel;
      if (training) f.gradients_bytes += kernel;
    }
    const double input = L.input_elements() * ts / chips * e;
    const double output = L.out_elements * ts / chips * e;
    if (training) {
      f.activations_bytes += input;
      f.working_bytes = std::max(f.working_bytes, output);
    } else {
      f.working_bytes = std::max(f.working_bytes, input + output);
    }
  }
  f.per_device_bytes = f.weights_bytes + f.gradients_bytes + f.activations_bytes + f.working_bytes;
  return f;
}

}  // namespace partsim::dsm
