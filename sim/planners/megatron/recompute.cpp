#include "sim/planners/megatron/recompute.hpp"

#include "sim/common/error.hpp"

namespace partsim::megatron {

Recompute parse_recompute(std::string_view name) {
  if (name == "none") return Recompute::none;
  if (name == "selective") return Recompute::selective;
  if (name == "full") return Recompute::full;
  throw InputError("recompute: unknown value '" + std::string(name) + "'; valid values are: none, selective, full");
}

std::string recompute_name(Recompute recompute) {
  switch (recompute) {
    case Recompute::none: return "none";
    case Recompute::selective: return "selective";
    case Recompute::full: return "full";
  }
  return "none";  // unreachable: every enumerator is handled above
}

}  // namespace partsim::megatron
