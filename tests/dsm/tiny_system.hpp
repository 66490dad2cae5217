#pragma once
// The tiny system of issue 5's acceptance tests: a 2 x 2 torus of chips with 2 cores each and one
// 4 x 4 PE array per core (1 SIMD lane), with round numbers so every figure can be checked by hand.
#include "sim/planners/dsm/hardware.hpp"

namespace partsim::dsm::testing {

inline DsmSystem tiny_system() {
  DsmSystem s;
  auto& core = s.chip.core;
  core.pe.simd_lanes = 1;
  core.array.rows = 4;
  core.array.cols = 4;
  core.arrays = 1;
  core.sfus = 1;
  core.sfu_lanes = 4;                 // 4 SFP operations per cycle
  core.scratchpad_bytes = 1024;       // 1 KiB
  core.scratchpad_bandwidth = 32e9;   // 32 B/cycle at 1 GHz
  core.frequency_hz = 1e9;            // 1 cycle = 1 ns
  s.chip.cores = 2;
  s.chip.core_to_core_bandwidth = 8e9;
  s.chip.memory_bytes = 1e9;
  s.chip.memory_bandwidth = 10e9;
  s.chip.memory_efficiency = 0.8;     // 8 GB/s effective
  s.M = 2;
  s.N = 2;
  s.bw_x = 4e9;
  s.bw_y = 1e9;
  s.bytes_per_element = 2;
  return s;
}

/// The tiny system as a constant, for the tests that only read it.
inline const DsmSystem kSys = tiny_system();

}  // namespace partsim::dsm::testing
