#pragma once
// Which points of a sweep a process runs: a shard of a job array (--shard i/N) takes a contiguous
// block, so the shards' CSVs concatenated in shard order are the whole sweep's; the ranks of an MPI
// job then deal the block's points round-robin (neighbouring points, often of similar cost, go to
// different ranks).

#include <cstddef>
#include <string_view>
#include <vector>

namespace partsim::sweep {

struct Shard {
  size_t index = 0;  // 0 .. count-1
  size_t count = 1;
};

/// "i/N" with 0 <= i < N <= 100000. Throws InputError naming the form otherwise.
Shard parse_shard(std::string_view text);

/// The points [begin, end) of shard `shard` of a sweep of `points` points: floor(i*P/N) to
/// floor((i+1)*P/N), so the blocks cover every point once, in order, and differ in size by at most 1.
struct PointRange {
  size_t begin = 0;
  size_t end = 0;
  size_t size() const { return end - begin; }
};
PointRange shard_range(size_t points, Shard shard);

/// The points of `range` that rank `rank` of `ranks` runs: begin + rank, begin + rank + ranks, ...
std::vector<size_t> rank_points(PointRange range, int rank, int ranks);

}  // namespace partsim::sweep
