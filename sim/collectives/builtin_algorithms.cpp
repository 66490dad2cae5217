// Every built-in collective algorithm: one registration line each (algorithms/*.cpp).

#include "sim/collectives/algorithm_registry.hpp"
#include "sim/collectives/algorithms/algorithms.hpp"

namespace partsim::collectives {

AlgorithmRegistry& algorithm_registry() {
  static AlgorithmRegistry registry = [] {
    AlgorithmRegistry r;
    r.add(algorithms::ring());
    r.add(algorithms::ring_bidirectional());
    r.add(algorithms::torus());
    r.add(algorithms::direct());
    r.add(algorithms::halving_doubling());
    r.add(algorithms::double_binary_tree());
    r.add(algorithms::hierarchical());
    r.add(algorithms::in_switch());
    return r;
  }();
  return registry;
}

}  // namespace partsim::collectives
