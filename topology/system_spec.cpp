#include "topology/system_spec.hpp"

#include "sim/common/content_hash.hpp"
#include "topology/system_writer.hpp"

namespace partsim::topology {

int bytes_per_element(Precision p) {
  switch (p) {
    case Precision::fp32: return 4;
    case Precision::fp16: return 2;
    case Precision::bf16: return 2;
    case Precision::int8: return 1;
  }
  return 4;
}

const DeviceGroup* SystemSpec::find_group(const std::string& group_name) const {
  for (const auto& g : groups)
    if (g.name == group_name) return &g;
  return nullptr;
}

double SystemSpec::peak_flops() const {
  double total = 0;
  for (int i = 0; i < device_count(); ++i) total += device_type(i).peak_flops(precision);
  return total;
}

int SystemSpec::device_index(const std::string& device_name) const {
  for (size_t i = 0; i < device_names.size(); ++i)
    if (device_names[i] == device_name) return static_cast<int>(i);
  return -1;
}

std::string content_hash(const SystemSpec& spec) { return fnv1a64_hex(system_to_yaml(spec)); }

}  // namespace partsim::topology

namespace partsim::topology {

long long FpgaDesign::multipliers() const {
  switch (design) {
    case DesignKind::superlip: return static_cast<long long>(tm) * tn;
    case DesignKind::systolic: return static_cast<long long>(rows) * cols * vec;
    case DesignKind::winograd: return static_cast<long long>(tile) * tile * pn * pm;
  }
  return 0;
}

}  // namespace partsim::topology
