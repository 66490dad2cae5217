#pragma once
// A device's network bandwidth as the platform's links give it: the one source every planner that
// needs "the device's network bandwidth" (AccPar's b_i, seed 000 eq. 7) reads, so that sweeping a
// link moves the planner and the replay together (issue 41). A device type's own
// `network_bandwidth` key only sizes the links of a `star` that gives no `star.bandwidth`; where
// the links say otherwise, the parser warns (network_bandwidth_warnings).
//
// Contract: bytes/s per direction, summed over the device's links:
//   torus: per dimension of size > 1, one link (size 2, or a unidirectional torus) or two, each of
//     that dimension's bandwidth;
//   graph (a star, a cluster, a file's graph): every link with the device at either end.

#include <string>
#include <vector>

#include "topology/system_spec.hpp"

namespace partsim::topology {

/// Sum of the bandwidths of `device`'s links (0 when it has none).
double device_link_bandwidth(const SystemSpec& spec, int device);

/// The declared network_bandwidth of a device type (roofline or fpga design), 0 when none.
double declared_network_bandwidth(const DeviceType& type);

/// A device type whose declared network_bandwidth differs (by more than 0.1 %) from what its
/// devices' links give (the first such device of the type), with a line naming both keys and values.
struct ContradictedBandwidth {
  std::string type;
  std::string message;
};
std::vector<ContradictedBandwidth> network_bandwidth_warnings(const SystemSpec& spec, const std::string& topology_key);

}  // namespace partsim::topology
