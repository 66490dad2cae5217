#pragma once
// The model zoo: the networks of the papers' evaluations, built in code and looked up by name.
//
// Contract: zoo() lists every model in a fixed order with a one-line description; build_zoo(name,
// batch) returns the finalized graph; an unknown name throws UnknownNameError listing the valid ones.
// Image models take 224x224x3 (inception_v3: 299x299x3; lenet: 28x28x1) and end in 1000 classes
// (lenet: 10). Sequence models use the default lengths in their descriptions.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "workloads/graph.hpp"

namespace partsim::workloads {

struct ZooEntry {
  std::string name;
  std::string description;                      // one line, for --list
  std::function<Graph(std::int64_t batch)> build;
};

/// Every zoo model, in a fixed order.
const std::vector<ZooEntry>& zoo();
/// "lenet, alexnet, ..." (for messages).
std::string zoo_names();
bool in_zoo(std::string_view name);
Graph build_zoo(std::string_view name, std::int64_t batch);

}  // namespace partsim::workloads
