#pragma once
// How one layer's work is sharded over devices: the strategy-neutral part of a plan, what the shared
// sharding lowering reads (DESIGN.md "Partition plans").
//
// A layer's work is its loop space: batch x out_channels x in_channels x height x width (height and
// width of the OUTPUT; sequence tensors keep their length in height, so `sequence` is another name
// for that axis). A Sharding lists the devices in order and splits applied one after the other: the
// first split cuts the device list into `parts` contiguous chunks and the loop range of its dimension
// into `parts` pieces (by `shares`, else in proportion to the chunks' device counts); every later
// split does the same inside each chunk. A chunk of one device is not split further (uneven
// hierarchies, e.g. 9 = 5 + 4 devices). After the last split every device holds one box.
//
// The tensors follow from the box (docs/plan-format.md "Sharding"): a device computes the outputs of
// its (batch, out_channels, height, width) range, as partial sums when in_channels is split; reads
// the inputs of its (batch, in_channels, input window of height x width) range; and holds the weights
// of its (out_channels, in_channels) range, replicated over the devices that split batch, height or
// width (whose gradients are then reduced). Layers without weights have one channel axis: both
// channel dimensions name it.
//
// Contract: pure functions; validate() throws InputError naming what is wrong, without the JSON path
// (the caller prefixes it).

#include <compare>
#include <optional>
#include <cstdint>
#include <string>
#include <vector>

namespace partsim::plan {

enum class ShardDim { batch, out_channels, in_channels, height, width, sequence };
std::string to_string(ShardDim dim);
/// Every name, in declaration order (for "allowed: ..." messages).
const std::vector<std::string>& shard_dim_names();

struct ShardSplit {
  ShardDim dim = ShardDim::batch;
  int parts = 1;                 // pieces of the dimension, and chunks of the devices
  std::vector<double> shares;    // fraction of the range per piece (sum 1); empty = by device count
  std::vector<int> sizes;        // devices per chunk (sum = the chunk's devices); empty = as equal as
                                 // possible, earlier chunks larger by one
  bool operator==(const ShardSplit&) const = default;
};

struct Sharding {
  std::vector<int> devices;      // in order; empty = every device of the platform, by index
  std::vector<ShardSplit> splits;
  /// Shared shards (MARS SS, seed 004 §IV): the dimension whose operand is passed round a ring
  /// instead of replicated. Boxes are as the splits make them; the devices whose boxes need the same
  /// operand (weights for out_channels / in_channels, the input for batch / height / width) hold
  /// one of k slices of it along this dimension each, and compute in k phases, passing their slice to
  /// the next device of the group after each phase (docs/plan-format.md "Shared shards"). Empty: none.
  std::optional<ShardDim> shared = std::nullopt;
  bool operator==(const Sharding&) const = default;
};

/// Half-open index range [lo, hi).
struct Range {
  std::int64_t lo = 0;
  std::int64_t hi = 0;
  std::int64_t size() const { return hi > lo ? hi - lo : 0; }
  auto operator<=>(const Range&) const = default;
};
Range intersect(const Range& a, const Range& b);

/// A layer's loop space.
struct LoopExtent {
  std::int64_t batch = 1;
  std::int64_t out_channels = 1;
  std::int64_t in_channels = 1;
  std::int64_t height = 1;
  std::int64_t width = 1;
};

struct LoopBox {
  Range batch, out_channels, in_channels, height, width;
  /// Fraction of the whole loop space this box covers.
  double fraction(const LoopExtent& extent) const;
  bool empty() const;
  bool operator==(const LoopBox&) const = default;
};

struct DeviceBox {
  int device = 0;
  LoopBox box;
};

/// The devices a sharding names (its list, or 0..device_count-1 when empty).
std::vector<int> sharding_devices(const Sharding& sharding, int device_count);

/// Checks the sharding against a platform of `device_count` devices: distinct valid devices,
/// parts >= 1, shares and sizes of the right length and sum, height and sequence not both, and that
/// the splits leave one device per box. Throws InputError.
void validate(const Sharding& sharding, int device_count);

/// One box per device, in the order of sharding_devices(). `sharding` must have passed validate().
std::vector<DeviceBox> shard_boxes(const Sharding& sharding, const LoopExtent& extent, int device_count);

/// Splits of a regular mesh: `degrees` pieces per dimension, outermost first, equal shares.
Sharding mesh_sharding(std::vector<int> devices, const std::vector<std::pair<ShardDim, int>>& degrees);

}  // namespace partsim::plan
