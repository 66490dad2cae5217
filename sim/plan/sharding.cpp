#include "sim/plan/sharding.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include "sim/common/error.hpp"

namespace partsim::plan {
namespace {

Range& axis(LoopBox& b, ShardDim d) {
  switch (d) {
    case ShardDim::batch: return b.batch;
    case ShardDim::out_channels: return b.out_channels;
    case ShardDim::in_channels: return b.in_channels;
    case ShardDim::height:
    case ShardDim::sequence: return b.height;
    case ShardDim::width: return b.width;
  }
  return b.batch;
}
Range axis(const LoopBox& b, ShardDim d) { return axis(const_cast<LoopBox&>(b), d); }

/// Devices per chunk of a split of `n` devices.
std::vector<int> chunk_sizes(const ShardSplit& s, int n) {
  if (!s.sizes.empty()) return s.sizes;
  std::vector<int> sizes(static_cast<size_t>(s.parts), n / s.parts);
  for (int k = 0; k < n % s.parts; ++k) ++sizes[static_cast<size_t>(k)];
  return sizes;
}

std::string count(size_t n, const std::string& what) { return std::to_string(n) + " " + what; }

}  // namespace

const std::vector<std::string>& shard_dim_names() {
  static const std::vector<std::string> names{"batch", "out_channels", "in_channels", "height", "width", "sequence"};
  return names;
}
std::string to_string(ShardDim dim) { return shard_dim_names()[static_cast<size_t>(dim)]; }

Range intersect(const Range& a, const Range& b) { return {std::max(a.lo, b.lo), std::min(a.hi, b.hi)}; }

double LoopBox::fraction(const LoopExtent& e) const {
  auto f = [](const Range& r, std::int64_t n) { return n > 0 ? static_cast<double>(r.size()) / static_cast<double>(n) : 0.0; };
  return f(batch, e.batch) * f(out_channels, e.out_channels) * f(in_channels, e.in_channels) * f(height, e.height) *
         f(width, e.width);
}

bool LoopBox::empty() const {
  return batch.size() == 0 || out_channels.size() == 0 || in_channels.size() == 0 || height.size() == 0 ||
         width.size() == 0;
}

std::vector<int> sharding_devices(const Sharding& sharding, int device_count) {
  if (!sharding.devices.empty()) return sharding.devices;
  std::vector<int> all(static_cast<size_t>(std::max(0, device_count)));
  std::iota(all.begin(), all.end(), 0);
  return all;
}

void validate(const Sharding& sharding, int device_count) {
  std::set<int> seen;
  for (int d : sharding.devices) {
    if (d < 0 || d >= device_count)
      throw InputError("device " + std::to_string(d) + " does not exist (the platform has " +
                       std::to_string(device_count) + " devices: 0.." + std::to_string(device_count - 1) + ")");
    if (!seen.insert(d).second) throw InputError("device " + std::to_string(d) + " is listed twice");
  }
  bool height = false, sequence = false;
  std::vector<int> chunks{static_cast<int>(sharding_devices(sharding, device_count).size())};
  for (size_t i = 0; i < sharding.splits.size(); ++i) {
    const ShardSplit& s = sharding.splits[i];
    const std::string at = "split " + std::to_string(i) + " (" + to_string(s.dim) + "): ";
    height |= s.dim == ShardDim::height;
    sequence |= s.dim == ShardDim::sequence;
    if (s.parts < 1) throw InputError(at + "parts must be >= 1 (got " + std::to_string(s.parts) + ")");
    if (!s.shares.empty()) {
      if (s.shares.size() != static_cast<size_t>(s.parts))
        throw InputError(at + "has " + count(s.shares.size(), "shares") + " for " + std::to_string(s.parts) + " parts");
      double sum = 0;
      for (double x : s.shares) {
        if (!(x >= 0 && x <= 1)) throw InputError(at + "every share must be in [0, 1]");
        sum += x;
      }
      if (std::fabs(sum - 1) > 1e-9) throw InputError(at + "shares must add up to 1 (got " + std::to_string(sum) + ")");
    }
    if (!s.sizes.empty() && s.sizes.size() != static_cast<size_t>(s.parts))
      throw InputError(at + "has " + count(s.sizes.size(), "sizes") + " for " + std::to_string(s.parts) + " parts");
    std::vector<int> next;
    for (int n : chunks) {
      if (n == 1) {  // one device: nothing left to split
        next.push_back(1);
        continue;
      }
      if (!s.sizes.empty()) {
        int sum = 0;
        for (int k : s.sizes) {
          if (k < 1) throw InputError(at + "every size must be >= 1");
          sum += k;
        }
        if (sum != n)
          throw InputError(at + "sizes add up to " + std::to_string(sum) + " devices, the chunk has " + std::to_string(n));
      } else if (s.parts > n) {
        throw InputError(at + "cannot cut " + std::to_string(n) + " devices into " + std::to_string(s.parts) + " parts");
      }
      for (int k : chunk_sizes(s, n)) next.push_back(k);
    }
    chunks = std::move(next);
  }
  if (height && sequence) throw InputError("height and sequence name the same axis: split it under one name");
  for (int n : chunks)
    if (n != 1)
      throw InputError("the splits leave " + std::to_string(n) +
                       " devices on one box (the parts of the splits must cut the device list down to one device "
                       "per box)");
}

std::vector<DeviceBox> shard_boxes(const Sharding& sharding, const LoopExtent& e, int device_count) {
  struct Chunk {
    size_t first = 0, size = 0;  // into the device list
    LoopBox box;
  };
  const std::vector<int> devices = sharding_devices(sharding, device_count);
  LoopBox whole{{0, e.batch}, {0, e.out_channels}, {0, e.in_channels}, {0, e.height}, {0, e.width}};
  std::vector<Chunk> chunks{{0, devices.size(), whole}};
  for (const ShardSplit& s : sharding.splits) {
    std::vector<Chunk> next;
    for (const Chunk& c : chunks) {
      if (c.size <= 1) {
        next.push_back(c);
        continue;
      }
      const std::vector<int> sizes = chunk_sizes(s, static_cast<int>(c.size));
      const Range r = axis(c.box, s.dim);
      const double len = static_cast<double>(r.size());
      double cum = 0;
      std::int64_t lo = r.lo;
      size_t first = c.first;
      for (size_t k = 0; k < sizes.size(); ++k) {
        const double share = s.shares.empty() ? static_cast<double>(sizes[k]) / static_cast<double>(c.size) : s.shares[k];
        cum += share;
        // Boundaries at the rounded cumulative share; the last piece ends at the range's end.
        const std::int64_t hi =
            k + 1 == sizes.size() ? r.hi : std::clamp<std::int64_t>(r.lo + std::llround(cum * len), lo, r.hi);
        Chunk part{first, static_cast<size_t>(sizes[k]), c.box};
        axis(part.box, s.dim) = {lo, hi};
        next.push_back(part);
        lo = hi;
        first += static_cast<size_t>(sizes[k]);
      }
    }
    chunks = std::move(next);
  }
  std::vector<DeviceBox> out;
  out.reserve(chunks.size());
  for (const Chunk& c : chunks) out.push_back({devices[c.first], c.box});
  return out;
}

Sharding mesh_sharding(std::vector<int> devices, const std::vector<std::pair<ShardDim, int>>& degrees) {
  Sharding s;
  s.devices = std::move(devices);
  for (const auto& [dim, parts] : degrees)
    if (parts > 1) s.splits.push_back({dim, parts, {}, {}});
  return s;
}

}  // namespace partsim::plan
