#include "sim/memory/memory_report.hpp"

#include <algorithm>
#include <cstdio>

namespace partsim::memory {

std::string human_bytes(double bytes) {
  static constexpr struct {
    double factor;
    const char* symbol;
  } kUnits[] = {{1099511627776.0, "TiB"}, {1073741824.0, "GiB"}, {1048576.0, "MiB"}, {1024.0, "KiB"}};
  char buf[64];
  for (const auto& unit : kUnits)
    if (bytes >= unit.factor) {
      std::snprintf(buf, sizeof buf, "%.2f %s", bytes / unit.factor, unit.symbol);
      return buf;
    }
  std::snprintf(buf, sizeof buf, "%.0f B", bytes);
  return buf;
}

std::string kinds_text(const plan::MemoryUse& u) {
  return "weights " + human_bytes(u.weights_bytes) + ", gradients " + human_bytes(u.gradients_bytes) + ", optimizer " +
         human_bytes(u.optimizer_bytes) + ", activations " + human_bytes(u.activations_bytes) + ", working " +
         human_bytes(u.working_bytes);
}

namespace {

std::string device_text(const plan::MemoryUse& use, const std::string& device_type) {
  std::string name = use.device.empty() ? "every device" : "device " + use.device;
  return device_type.empty() ? name : name + " (" + device_type + ")";
}

}  // namespace

std::string memory_table(const std::vector<LayerMemory>& rows, const plan::MemoryUse& total,
                         const std::string& device_type, const std::string& settings_text) {
  std::string out;
  if (!settings_text.empty()) out += "model states: " + settings_text + "\n";
  std::size_t width = 5;  // "layer"
  for (const LayerMemory& r : rows) width = std::max(width, r.layer.size());
  char buf[512];
  const int w = static_cast<int>(width);
  if (!rows.empty()) {
    out += "memory of " + device_text(total, device_type) + " by layer:\n";
    std::snprintf(buf, sizeof buf, "%-*s %12s %12s %12s %12s %12s\n", w, "layer", "weights", "gradients", "optimizer",
                  "activations", "working");
    out += buf;
    for (const LayerMemory& r : rows) {
      std::snprintf(buf, sizeof buf, "%-*s %12s %12s %12s %12s %12s\n", w, r.layer.c_str(),
                    human_bytes(r.weights_bytes).c_str(), human_bytes(r.gradients_bytes).c_str(),
                    human_bytes(r.optimizer_bytes).c_str(), human_bytes(r.activations_bytes).c_str(),
                    human_bytes(r.working_bytes).c_str());
      out += buf;
    }
  }
  std::snprintf(buf, sizeof buf, "%-*s %12s %12s %12s %12s %12s\n", w, "total", human_bytes(total.weights_bytes).c_str(),
                human_bytes(total.gradients_bytes).c_str(), human_bytes(total.optimizer_bytes).c_str(),
                human_bytes(total.activations_bytes).c_str(), human_bytes(total.working_bytes).c_str());
  out += buf;
  std::snprintf(buf, sizeof buf, "total on %s: %s (%.0f B) of its %s (%.0f B): %s\n",
                device_text(total, device_type).c_str(), human_bytes(total.per_device_bytes).c_str(),
                total.per_device_bytes, human_bytes(total.capacity_bytes).c_str(), total.capacity_bytes,
                total.fits() ? "fits" : "does not fit");
  out += buf;
  return out;
}

std::string over_memory_message(const plan::MemoryUse& use, const std::string& device_type,
                                const std::string& settings_text) {
  return std::string(plan::kPlanDoesNotFit) + ": " + device_text(use, device_type) + " has " + human_bytes(use.capacity_bytes) +
         " of memory but the plan needs " + human_bytes(use.per_device_bytes) + " on it (" + kinds_text(use) + ")" +
         (settings_text.empty() ? std::string() : "; model states: " + settings_text) +
         "; give --allow-over-memory to write it anyway";
}

}  // namespace partsim::memory
