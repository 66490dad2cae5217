#pragma once
// The AccPar view of a workload: every layer of the DAG with the numbers the cost model needs.
//
// Contract: nodes are in topological order (every input index < the node's index). Weighted nodes
// (conv, fc, lstm, attention) choose a partition type; the others are "carriers": element-wise,
// pooling, flatten, add, concat, matmul, embedding and graph inputs keep the layout of the tensor
// that flows through them, and
// their state is that layout written as the type whose output has it (I batch, II full, III
// channel). Built from a workloads::Graph or by hand (tests).

#include <string>
#include <vector>

#include "sim/planners/accpar/cost_model.hpp"
#include "workloads/graph.hpp"

namespace partsim::accpar {

struct Edge {
  int from = 0;           // producer node index
  double elements = 0;    // A of the tensor it feeds into this node (whole minibatch)
};

struct Node {
  std::string name;
  bool weighted = false;  // chooses a partition type (conv, fc, lstm, attention)
  bool conv = false;      // conv (OWT: Type-I) vs other weighted layers (OWT: Type-II)
  bool input = false;     // a graph input: no compute, no error flows back to it
  LayerDims dims;         // weighted nodes: the layer as F_{l+1} = F_l x W_l (§4.3)
  double aux_flops = 0;   // the mode's FLOPs outside Table 6 (bias, activation, pooling, attention
                          // scores, matmul, ...): the workload's total minus Table 6 of `dims`
  std::vector<Edge> inputs;
};

struct Problem {
  std::vector<Node> nodes;
  Mode mode = Mode::training;
  double bytes_per_element = 2;
};

/// Layout of a node's input tensor (F_l) and output tensor (F_{l+1}) in state t.
Layout node_input_layout(const Node& n, Type t);
Layout node_output_layout(const Node& n, Type t);

/// The AccPar problem of a finalized workload graph.
Problem make_problem(const workloads::Graph& graph, Mode mode, double bytes_per_element);

}  // namespace partsim::accpar
