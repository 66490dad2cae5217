#pragma once
// A workload as DeepSpatialMatrix sees it (seed 003 §II-A): primary layers (conv, matrix
// multiplication, LSTM) each carrying the auxiliary computations that follow it (bias, activation,
// pooling, batch-norm, softmax, residual add), in topological order, with the edges between them.
//
// Contract: build_group_chain() maps every layer of a finalized workloads::Graph to exactly one group
// (`members`); a group is one DsmLayer. Auxiliary layers join the latest group among those producing
// their inputs (so groups stay in dependency order); auxiliary layers fed only by graph inputs
// (embeddings) form auxiliary-only groups. Edges are (producer group -> consumer group) for every
// tensor that crosses groups; every producer index is smaller than its consumer's.

#include <cstddef>
#include <string>
#include <vector>

#include "sim/planners/dsm/layer_model.hpp"
#include "workloads/graph.hpp"

namespace partsim::dsm {

struct ChainGroup {
  DsmLayer layer;
  std::vector<std::string> members;     // workload layer names, primary first
  std::vector<std::size_t> producers;   // groups whose outputs this group reads (ascending)
  /// The group producing the primary input (first input of the primary layer), if any.
  std::ptrdiff_t primary_producer = -1;
  /// Elements (whole minibatch, per timestep) of tensors produced earlier and consumed later that
  /// must stay alive while this group runs (residual short-cuts, §III-B "retained longer").
  double retained_elements = 0;
};

/// The workload as a chain of layer groups in dependency order (the §II-E DP walks it group by
/// group; `producers` keep the DAG edges that cross groups).
struct GroupChain {
  std::string name;
  std::vector<ChainGroup> groups;
};

GroupChain build_group_chain(const workloads::Graph& graph);

/// The layer with the minibatch divided into spatial minibatches of `s_mb` samples (§III-C):
/// mb and every minibatch-proportional count scaled by s_mb / N_mb.
DsmLayer with_minibatch(const DsmLayer& layer, long long s_mb);

}  // namespace partsim::dsm
