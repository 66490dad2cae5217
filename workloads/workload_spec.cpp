#include "workloads/workload_spec.hpp"

#include <charconv>

#include "sim/common/error.hpp"

namespace partsim::workloads {

std::string_view spec_model(std::string_view text) { return text.substr(0, text.find(':')); }

SpecValues parse_spec_values(std::string_view text, const std::string& allowed_keys) {
  SpecValues values;
  const size_t colon = text.find(':');
  std::string_view rest = colon == std::string_view::npos ? std::string_view{} : text.substr(colon + 1);
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos)
      throw InputError("--workload " + std::string(text) + ": expected key=value, got '" + std::string(item) +
                       "' (keys: " + allowed_keys + ")");
    const std::string key(item.substr(0, eq));
    if (values.count(key) != 0) throw InputError("--workload " + std::string(text) + ": " + key + " is given twice");
    const std::string_view value = item.substr(eq + 1);
    std::int64_t v = 0;
    const char* end = value.data() + value.size();
    auto [ptr, ec] = std::from_chars(value.data(), end, v);
    if (ec != std::errc() || ptr != end || value.empty())
      throw InputError("--workload " + std::string(text) + ": " + key + " must be a whole number (got '" +
                       std::string(value) + "')");
    values[key] = v;
  }
  return values;
}

}  // namespace partsim::workloads
