#pragma once
// The built-in collective algorithms, one file each (registered in builtin_algorithms.cpp).

#include "sim/collectives/algorithm_registry.hpp"

namespace partsim::collectives::algorithms {

Algorithm ring();                // uni-directional ring, over NCCL-style channels
Algorithm ring_bidirectional();  // the payload halved over a + and a - ring
Algorithm torus();               // dimension-ordered rings over a torus's axes (seed 003 §II-D)
Algorithm direct();              // every pair at once, one step per phase
Algorithm halving_doubling();    // recursive halving (reduce-scatter) and doubling (all-gather)
Algorithm double_binary_tree();  // NCCL's two complementary binary trees, pipelined in chunks
Algorithm hierarchical();        // inside nodes, across nodes, inside nodes again
Algorithm in_switch();           // reduction in the switch (NVLink SHARP-like)

}  // namespace partsim::collectives::algorithms
