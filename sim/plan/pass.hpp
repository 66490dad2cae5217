#pragma once
// The passes of a training iteration (forward, backward, update): split from plan.hpp so that the
// program graph and the device models can name a pass without the plan (and nlohmann/json).

#include <cstdint>
#include <string>

namespace partsim::plan {

enum class Pass : std::uint8_t { fwd, bwd, upd };

std::string to_string(Pass pass);
/// "fwd" -> Pass::fwd; throws InputError listing the names.
Pass pass_from_string(const std::string& name);

}  // namespace partsim::plan
