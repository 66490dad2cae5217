#include "topology/link_bandwidth.hpp"

#include <cmath>
#include <map>
#include <variant>

#include "sim/common/units.hpp"

namespace partsim::topology {

double device_link_bandwidth(const SystemSpec& spec, int device) {
  double total = 0;
  if (spec.is_torus()) {
    const TorusTopology& t = spec.torus();
    for (std::size_t d = 0; d < t.dims.size(); ++d) {
      const int links = t.dims[d] <= 1 ? 0 : (t.dims[d] == 2 || !t.bidirectional ? 1 : 2);
      total += links * t.bandwidth.at(d);
    }
    return total;
  }
  const std::string& name = spec.device_names.at(static_cast<std::size_t>(device));
  for (const GraphLink& l : spec.graph().links)
    if (l.a == name || l.b == name) total += l.bandwidth;
  return total;
}

double declared_network_bandwidth(const DeviceType& type) {
  if (const auto* r = std::get_if<RooflineDevice>(&type.model)) return r->network_bandwidth;
  if (const auto* f = std::get_if<FpgaDesign>(&type.model)) return f->network_bandwidth;
  return 0;
}

std::vector<ContradictedBandwidth> network_bandwidth_warnings(const SystemSpec& spec, const std::string& topology_key) {
  // Per type, the first device whose links disagree (devices of one type may differ: the edge of a
  // heterogeneous torus).
  std::map<std::string, std::pair<double, double>> disagreeing;  // type -> (declared, links)
  for (int d = 0; d < spec.device_count(); ++d) {
    const DeviceType& type = spec.device_type(d);
    const double declared = declared_network_bandwidth(type);
    if (declared <= 0 || disagreeing.count(type.name)) continue;
    const double links = device_link_bandwidth(spec, d);
    if (std::abs(links - declared) > 1e-3 * declared) disagreeing[type.name] = {declared, links};
  }
  std::vector<ContradictedBandwidth> lines;
  for (const auto& [name, values] : disagreeing)
    lines.push_back({name, "device_types." + name + ".network_bandwidth is " + units::format(values.first, units::Dimension::bandwidth) +
                    " but the platform's links (" + topology_key + ") give a " + name + " device " +
                    units::format(values.second, units::Dimension::bandwidth) +
                    "; planners and the replay both use the links, so network_bandwidth is ignored here "
                    "(change the links, or drop the key)"});
  return lines;
}

}  // namespace partsim::topology
