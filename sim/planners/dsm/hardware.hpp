#pragma once
// The DeepSpatialMatrix view of a platform (seed 003 §II-B, Fig. 3): one template chip type
// (PE -> PE array -> core -> chip) replicated on an M x N 2-D torus (M chips along X, N along Y).
//
// Contract: make_dsm_system() accepts a SystemSpec whose devices all share one TemplateDevice and
// whose topology is a 1-D or 2-D torus (a ring is M x 1); anything else is an InputError naming
// what is wrong. Everything here is plain numbers in SI units; the cost model never sees YAML.

#include "topology/system_spec.hpp"

namespace partsim::dsm {

struct DsmSystem {
  topology::TemplateDevice chip;
  int M = 1;                   // chips along X (torus dimension 0)
  int N = 1;                   // chips along Y (torus dimension 1)
  double bw_x = 0;             // bytes/s per X link and direction
  double bw_y = 0;             // bytes/s per Y link and direction
  double lat_x = 0;            // s per X link
  double lat_y = 0;            // s per Y link
  bool bidirectional = true;   // torus links in both directions (collectives split over both)
  double bytes_per_element = 2;

  int chips() const { return M * N; }
  int cores() const { return chip.cores; }
  double frequency() const { return chip.core.frequency_hz; }
  /// Useful MACs per second of the whole system at peak (seed 003 §IV: 8 PFLOP/s = 2 x this).
  double peak_macs_per_s() const {
    return static_cast<double>(chip.core.macs_per_cycle()) * chip.cores * chips() * frequency();
  }
  double memory_bandwidth() const { return chip.effective_memory_bandwidth(); }
};

/// The DSM view of `spec`; throws InputError when the platform is not a homogeneous template-chip torus.
DsmSystem make_dsm_system(const topology::SystemSpec& spec);

/// The M x rows sub-torus of `system` (a block of whole rows), used by timestep pipelining
/// (seed 003 §III-D) to give a layer a subset of the chips.
DsmSystem sub_torus(const DsmSystem& system, int rows);

/// The same chip as a 1 x 1 system (seed 003 §V-A2: inference on a single chip).
DsmSystem single_chip(const DsmSystem& system);

}  // namespace partsim::dsm
