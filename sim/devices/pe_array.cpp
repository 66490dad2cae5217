#include "sim/devices/pe_array.hpp"

#include <algorithm>

#include "sim/common/integer_math.hpp"

namespace partsim::devices {

ArrayMapping array_mapping(const ArrayWork& a, plan::Pass pass) {
  switch (pass) {
    case plan::Pass::fwd: return {a.in * a.kij, a.out, a.mb * a.ij};
    case plan::Pass::bwd: return {a.out * a.kij, a.in, a.mb * a.ij};
    case plan::Pass::upd: return {a.mb * a.ij, a.out, a.in * a.kij};
  }
  return {};
}

double pricomp_cycles(const ArrayWork& work, plan::Pass pass, const topology::CoreSpec& core) {
  const ArrayMapping m = array_mapping(work, pass);
  // seed 003 §II-C: work below P along a dimension is padded up to P; §II-D: plus start-up.
  const double chunks = static_cast<double>(ceil_div(m.reduction, core.array.rows)) *
                        static_cast<double>(ceil_div(m.column, core.array.cols)) *
                        static_cast<double>(ceil_div(m.stream, core.pe.simd_lanes));
  return chunks + core.array.rows + core.array.cols;
}

double sfu_seconds(double elements, double ops, double accesses, double bytes_per_element,
                   const topology::CoreSpec& core) {
  const double sfp = ops * elements / (static_cast<double>(core.sfus) * core.sfu_lanes * core.frequency_hz);
  const double spad =
      core.scratchpad_bandwidth > 0 ? accesses * elements * bytes_per_element / core.scratchpad_bandwidth : 0.0;
  return std::max(sfp, spad);
}

}  // namespace partsim::devices
