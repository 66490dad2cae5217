#pragma once
// What a collective is, as a type: the collectives of the registry (collectives.hpp collective_list)
// and the point-to-point redistribution the shared lowering performs between differently sharded
// layers. A schedule carries it (Schedule::what) and the Program keeps it for every task a collective
// lowers to (program.hpp CollectiveInstance), so reports read it instead of parsing labels.
// Header-only and without dependencies: program.hpp includes it.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace partsim::collectives {

enum class Kind : std::uint8_t {
  unnamed,            // a schedule built by hand that names no collective
  p2p,
  reduce_scatter,
  all_gather,
  all_reduce,
  broadcast,
  all_to_all,
  all_to_all_direct,
  rotate,
  redistribution,     // point-to-point transfers between differently sharded layers (the shared lowering)
};

/// The registry name ("all_reduce"), "redistribution", or "unnamed".
constexpr std::string_view to_string(Kind kind) noexcept {
  switch (kind) {
    case Kind::unnamed: return "unnamed";
    case Kind::p2p: return "p2p";
    case Kind::reduce_scatter: return "reduce_scatter";
    case Kind::all_gather: return "all_gather";
    case Kind::all_reduce: return "all_reduce";
    case Kind::broadcast: return "broadcast";
    case Kind::all_to_all: return "all_to_all";
    case Kind::all_to_all_direct: return "all_to_all_direct";
    case Kind::rotate: return "rotate";
    case Kind::redistribution: return "redistribution";
  }
  return "unnamed";
}

/// The kind a registry name stands for; nullopt for a name that is not a collective.
constexpr std::optional<Kind> kind_named(std::string_view name) noexcept {
  for (Kind k : {Kind::p2p, Kind::reduce_scatter, Kind::all_gather, Kind::all_reduce, Kind::broadcast,
                 Kind::all_to_all, Kind::all_to_all_direct, Kind::rotate, Kind::redistribution})
    if (to_string(k) == name) return k;
  return std::nullopt;
}

/// A schedule's identity: which collective it is and, where the registry chose one, the algorithm.
struct Identity {
  Kind kind = Kind::unnamed;
  std::string algorithm;  // a name of algorithm_registry() ("ring", "torus", ...), or a lowering's own
                          // ("parameter_server"); "" where none was chosen
};

}  // namespace partsim::collectives
