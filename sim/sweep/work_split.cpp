#include "sim/sweep/work_split.hpp"

#include <charconv>
#include <string>

#include "sim/common/error.hpp"

namespace partsim::sweep {
namespace {

constexpr size_t kMaxShards = 100'000;

bool whole_number(std::string_view text, size_t& value) {
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && ptr == text.data() + text.size() && !text.empty();
}

}  // namespace

Shard parse_shard(std::string_view text) {
  const auto bad = [&](const std::string& why) {
    return InputError("--shard " + std::string(text) + ": " + why + " (expected I/N with 0 <= I < N <= 100000, e.g. 0/4)");
  };
  const size_t slash = text.find('/');
  if (slash == std::string_view::npos) throw bad("no '/'");
  Shard shard;
  if (!whole_number(text.substr(0, slash), shard.index) || !whole_number(text.substr(slash + 1), shard.count))
    throw bad("not two whole numbers");
  if (shard.count == 0 || shard.count > kMaxShards) throw bad("N out of range");
  if (shard.index >= shard.count) throw bad("I must be below N (shards are numbered from 0)");
  return shard;
}

PointRange shard_range(size_t points, Shard shard) {
  // points * index fits easily: points <= 10000^axes is bounded by memory long before 2^64 / 1e5.
  return {points * shard.index / shard.count, points * (shard.index + 1) / shard.count};
}

std::vector<size_t> rank_points(PointRange range, int rank, int ranks) {
  std::vector<size_t> out;
  for (size_t i = range.begin + static_cast<size_t>(rank); i < range.end; i += static_cast<size_t>(ranks)) out.push_back(i);
  return out;
}

}  // namespace partsim::sweep
