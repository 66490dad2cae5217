#pragma once
// The collectives: a registry of names, the schedule each one is (schedule.hpp), and its textbook
// closed form (formulas.hpp). Pure: no SimGrid.
//
// Who takes part (Request::axis / Request::group):
//  - torus, axis "x", "y", "z", ...: every ring along that axis, all at once; axis "all": the
//    hierarchical form over every axis of size > 1 (seed 003 §II-D for all_reduce);
//  - group G (torus or graph): one ring over the group's devices in the order the file lists them;
//    transfers between ring neighbours follow the topology's routes;
//  - default: axis "all" on a torus, group "all" (or every device in index order) on a graph.
// Rings on torus axes are split over a + and a - ring when the torus is bidirectional (and the axis
// has more than 2 devices); rings over groups are uni-directional.
//
// Payload S (Request::bytes) is per device: the buffer reduced (reduce_scatter, all_reduce), the
// full result (all_gather), the broadcast message, the data each device holds and scatters evenly
// over all participants (all_to_all, all_to_all_direct), the block rotated (rotate), the message (p2p).

#include <limits>
#include <string>
#include <vector>

#include "sim/collectives/algorithm_registry.hpp"
#include "sim/collectives/formulas.hpp"
#include "sim/collectives/schedule.hpp"
#include "topology/topology_graph.hpp"

namespace partsim::collectives {

struct Request {
  std::string collective;   // a name of collective_list()
  double bytes = 0;         // S, bytes per device
  std::string axis;         // "x", "y", ... or "all"; torus only; "" = default
  std::string group;        // device group name; "" = none
  int root = -1;            // broadcast: root device (-1: the first participant)
  int src = 0;              // p2p: source device
  int dst = -1;             // p2p: destination device (-1: the next device: + neighbour along X on a torus)
  int chunks = 0;           // broadcast: pipeline chunks (0: default_broadcast_chunks)
  /// reduce_scatter, all_gather, all_reduce: a name of algorithm_registry() ("" = the platform's
  /// default, algorithm_registry.hpp: choose_algorithm).
  std::string algorithm;
};

inline constexpr int default_broadcast_chunks = 8;

struct CollectiveInfo {
  std::string name;
  std::string description;  // one line
};

/// Every collective, in a fixed order.
const std::vector<CollectiveInfo>& collective_list();

/// The collective as a device schedule. Throws UnknownNameError for an unknown name and
/// InputError for a request that does not apply (axis on a graph, rotate over "all", ...).
Schedule build_schedule(const Request& request, const topology::TopologyGraph& graph);

/// Who takes part in a reducing collective (reduce_scatter, all_gather, all_reduce) of `request`.
Participants participants(const Request& request, const topology::TopologyGraph& graph);

/// The textbook closed form with the platform's L and B: for reduce_scatter, all_gather and
/// all_reduce the chosen algorithm's alpha-beta formula (algorithm_registry.hpp) over fabric_of();
/// for broadcast, all_to_all and rotate over torus axes and for p2p formulas.hpp. NaN otherwise.
double formula_time(const Request& request, const topology::TopologyGraph& graph);

/// Closed form used by simrun: evaluate(lower_to_nodes(build_schedule(...))), the step rule over the
/// graph's routes (equal to formula_time at chip granularity when no link is shared).
double closed_form_time(const Request& request, const topology::TopologyGraph& graph);

}  // namespace partsim::collectives
