#pragma once
// Wall-clock time of the host, for the timings a run reports about itself (not simulated time).

#include <chrono>

namespace partsim {

/// Seconds of steady-clock time from `start` until now.
inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace partsim
