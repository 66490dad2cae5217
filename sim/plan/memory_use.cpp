#include "sim/plan/memory_use.hpp"

namespace partsim::plan {

const std::vector<std::string>& optimizer_names() {
  static const std::vector<std::string> names{"sgd", "momentum", "adam"};
  return names;
}

const std::vector<std::string>& training_precision_names() {
  static const std::vector<std::string> names{"fp32", "mixed"};
  return names;
}

}  // namespace partsim::plan
