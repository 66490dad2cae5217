#pragma once
// Progress of a long search (issue 41 item 3): the one seam through which a planner's search says how
// far it is, so that library code never prints. The caller (simplan) installs a callback that draws
// a progress line on a terminal; tests install one that records the calls; without one nothing is
// reported.
//
// Contract: a search calls the callback after each candidate it has scored, with `done` counting
// up by one from 1 to `total` (the last call has done == total), `total` fixed for the whole search.
// The callback must be cheap or throttle itself: it runs on the search's hot path.

#include <cstddef>
#include <functional>
#include <optional>
#include <string_view>

namespace partsim {

/// One report of a search's progress.
struct SearchProgress {
  std::size_t done = 0;             // candidates scored so far
  std::size_t total = 0;            // candidates the search scores in all
  std::string_view unit;            // what a candidate is, plural: "configurations", "samples"
  std::optional<double> best_s;     // the best predicted time so far (s; per iteration or per sample), if any
};

using ProgressCallback = std::function<void(const SearchProgress&)>;

}  // namespace partsim
