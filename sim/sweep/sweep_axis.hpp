#pragma once
// The axes of a parameter sweep: `--vary KEY=V1,V2,...` or a range `--vary KEY=A..B*F` (geometric:
// A, A*F, A*F^2, ... up to B) or `KEY=A..B+S` (arithmetic: A, A+S, ... up to B). Values keep their
// unit text ("30GB/s..240GB/s*2" gives 30GB/s, 60GB/s, 120GB/s, 240GB/s); they are passed to the
// programs as --set KEY=VALUE, where the platform parser checks them.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace partsim::sweep {

struct SweepAxis {
  std::string key;                  // platform key path, e.g. system.torus.bandwidth[0]
  std::vector<std::string> values;  // in sweep order
};

/// Parses one --vary argument. Throws InputError naming the argument on a malformed value, a range
/// whose ends have different units, a step or factor that does not make progress, or more than
/// 10,000 values.
SweepAxis parse_vary(std::string_view text);

/// One point of the sweep: (key, value) for every axis, in axis order.
using SweepPoint = std::vector<std::pair<std::string, std::string>>;

/// The cartesian product of the axes; the last axis varies fastest.
std::vector<SweepPoint> sweep_points(const std::vector<SweepAxis>& axes);

}  // namespace partsim::sweep
