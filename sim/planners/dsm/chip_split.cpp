#include "sim/planners/dsm/chip_split.hpp"

#include "sim/common/error.hpp"
#include "sim/common/text.hpp"

namespace partsim::dsm {

const std::vector<std::string>& chip_split_names() {
  static const std::vector<std::string> names{"data", "model", "data_x_model_y", "model_x_data_y"};
  return names;
}

const char* to_string(ChipSplit split) {
  return chip_split_names()[static_cast<size_t>(split)].c_str();
}

ChipSplit chip_split_from_string(const std::string& name) {
  const auto& names = chip_split_names();
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<ChipSplit>(i);
  throw UnknownNameError("chip split", name, join(names));
}

}  // namespace partsim::dsm
