#include "sim/planners/dsm/hardware.hpp"

#include <string>

#include "sim/common/error.hpp"

namespace partsim::dsm {

DsmSystem make_dsm_system(const topology::SystemSpec& spec) {
  const std::string where = "platform '" + spec.name + "': strategy dsm: ";
  if (!spec.is_torus())
    throw InputError(where + "needs a torus topology (DeepSpatialMatrix §II-B), got a graph topology");
  if (spec.device_count() == 0) throw InputError(where + "has no devices");
  const auto& first = spec.device_type(0);
  if (!first.is_template())
    throw InputError(where + "needs template devices (PE -> array -> core -> chip), device type '" +
                     first.name + "' is a roofline device");
  for (int i = 1; i < spec.device_count(); ++i)
    if (!(spec.device_type(i) == first))
      throw InputError(where + "needs one device type on every chip, device " + std::to_string(i) +
                       " is '" + spec.device_type(i).name + "', device 0 is '" + first.name + "'");
  const auto& torus = spec.torus();
  if (torus.dims.empty() || torus.dims.size() > 2)
    throw InputError(where + "needs a 1-D or 2-D torus, got " + std::to_string(torus.dims.size()) +
                     " dimensions");
  DsmSystem s;
  s.chip = std::get<topology::TemplateDevice>(first.model);
  s.M = torus.dims[0];
  s.bw_x = torus.bandwidth.at(0);
  s.lat_x = torus.latency.empty() ? 0.0 : torus.latency.at(0);
  if (torus.dims.size() == 2) {
    s.N = torus.dims[1];
    s.bw_y = torus.bandwidth.at(1);
    s.lat_y = torus.latency.size() > 1 ? torus.latency.at(1) : 0.0;
  }
  s.bidirectional = torus.bidirectional;
  s.bytes_per_element = topology::bytes_per_element(spec.precision);
  return s;
}

DsmSystem sub_torus(const DsmSystem& system, int rows) {
  DsmSystem s = system;
  s.N = rows < 1 ? 1 : (rows > system.N ? system.N : rows);
  return s;
}

DsmSystem single_chip(const DsmSystem& system) {
  DsmSystem s = system;
  s.M = 1;
  s.N = 1;
  return s;
}

}  // namespace partsim::dsm
