#pragma once
// The device hierarchy of AccPar's recursive partition (seed 000 §5.1): at every level each group
// of devices splits in two. The first split of a heterogeneous array is by device group (e.g.
// tpu_v2 | tpu_v3), every later split halves a homogeneous group in device-index order.
//
// Contract: groups are plain aggregates (compute = sum of c_i, bandwidth = sum of b_i) so the cost
// model never touches the SystemSpec. Eq. 7's b for a side of a split has two readings
// (docs/model.md "Bandwidth between two device groups"):
// - cut (default): both sides see min(sum b over side a, sum b over side b): on the star every
//   cross transfer pairs a device of each side and runs at the slower of the two links;
// - device: each side sees b_i of one of its own accelerators (its slowest), as eq. 7 and Tables
//   4-5 write A(T) / b_i per accelerator, whatever the size of the group.

#include <string>
#include <vector>

#include "sim/planners/accpar/cost_model.hpp"
#include "topology/system_spec.hpp"

namespace partsim::accpar {

/// Which b eq. 7 divides by at a split (strategy option bandwidth=cut|device).
enum class BandwidthReading { cut, device };
BandwidthReading bandwidth_reading_from_name(const std::string& name);  // "cut" | "device"

struct Group {
  std::vector<int> devices;   // device indices, ascending
  double flops = 0;           // sum of c_i, FLOP/s
  double bandwidth = 0;       // sum of b_i, bytes/s
  double slowest_device_bandwidth = 0;  // min of b_i, bytes/s
  int depth = 0;              // 0 = the whole array
  int a = -1;                 // child groups (index into Hierarchy::groups); -1 = leaf
  int b = -1;
  bool mirrored = false;      // a and b have the same size and device types (a 50/50 split is symmetric)
  bool is_leaf() const { return a < 0; }
};

struct Hierarchy {
  std::vector<Group> groups;  // groups[0] is the root
  int depth = 0;              // number of levels: the deepest split's depth + 1
  BandwidthReading reading = BandwidthReading::cut;
  double cut_bandwidth(const Group& g) const;
  /// Eq. 7's b for what `side` of split g fetches, under `reading`: the cut bandwidth, or the
  /// slowest b_i of that side's devices.
  double side_bandwidth(const Group& g, Side side) const;
  /// Natural (per-device equal) share of side a of group g: |a| / |g|.
  double device_share(const Group& g) const;
};

/// b_i of device i: the bandwidth of the device's own links, as the replay has them (torus: every
/// link it has, graph and star: every link touching it; topology/link_bandwidth.hpp), bytes/s per
/// direction. A device type's network_bandwidth counts only through a star's links.
double device_bandwidth(const topology::SystemSpec& spec, int device);

/// The full binary hierarchy down to single devices.
Hierarchy build_hierarchy(const topology::SystemSpec& spec, BandwidthReading reading = BandwidthReading::cut);

/// For hand-built tests: devices with the given c_i (FLOP/s) and b_i (bytes/s), split first by the
/// `group_of` labels if they differ, then in halves.
Hierarchy build_hierarchy(const std::vector<double>& flops, const std::vector<double>& bandwidth,
                          const std::vector<std::string>& group_of,
                          BandwidthReading reading = BandwidthReading::cut);

}  // namespace partsim::accpar
