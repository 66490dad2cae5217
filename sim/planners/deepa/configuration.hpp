#pragma once
// A DeePa parallelism configuration of one layer (seed 001 §3): a degree of parallelism per
// parallelisable dimension of the layer's OUTPUT, n (images), c (channels), h (height), w (width);
// their product is the number of workers. Fully-connected layers (and any layer whose output is
// 1 x 1) have only n and c. Partitioning is equal in every dimension, as the paper assumes.
//
// Enumeration (our reading of "a fixed (but large) set of parallelism configurations"): every
// ordered factorisation n * c * h * w = k of every worker count k in `worker_counts` (the powers of
// two up to the device count, and the device count itself: Tables 2 and 3 use 16, 8, 4, 2, 1), with
// each degree at most the extent of its dimension and degrees > 1 only in allowed dimensions.
//
// Placement (docs/model.md "DeePa"): a configuration with k workers runs on the first k devices of
// the platform's locality order (locality_order()), so small configurations sit on one card, one
// socket or one node; the mesh splits n outermost, then c, h, w, so the innermost (finest) split
// uses the closest devices.
//
// Contract: pure functions.

#include <string>
#include <vector>

#include "sim/plan/sharding.hpp"
#include "topology/topology_graph.hpp"
#include "workloads/layer.hpp"

namespace partsim::deepa {

struct Configuration {
  int n = 1, c = 1, h = 1, w = 1;
  int workers() const { return n * c * h * w; }
  bool operator==(const Configuration&) const = default;
};

/// "{n=4, c=1, h=1, w=1}" (Tables 2 and 3); "{n=4, c=1}" when `two_dims`.
std::string to_string(const Configuration& config, bool two_dims = false);

/// The dimensions a search may split (option `dims`).
struct AllowedDims {
  bool n = true, c = true, h = true, w = true;
};

/// Powers of two up to `max_workers`, and `max_workers` itself, ascending.
std::vector<int> worker_counts(int max_workers);

/// Whether the layer's output has parallelisable height and width (not an FC layer, output not 1 x 1).
bool has_spatial_dims(const workloads::Layer& layer);

/// Every configuration of the layer (file comment), by worker count then n, c, h, w descending.
std::vector<Configuration> enumerate_configurations(const workloads::Layer& layer, std::int64_t batch,
                                                    int max_workers, const AllowedDims& dims);

/// Devices ordered for locality: device 0 first, then repeatedly the unplaced device whose slowest
/// route (seconds per byte, the sum of 1/bandwidth over its links) to the devices placed so far is
/// smallest, ties to the lower index. On the platforms of §7 this is card by card, socket by socket,
/// node by node.
std::vector<int> locality_order(const topology::TopologyGraph& topology);

/// The sharding of `config` on the first config.workers() devices of `order`.
plan::Sharding sharding_of(const Configuration& config, const std::vector<int>& order);

}  // namespace partsim::deepa
