#pragma once
// Seeded random but realistic DNN graphs, for the training, validation and test sets of a
// transferable placement policy (seed 002 §5.1: 87 CNN and RNN graphs of tens to hundreds of nodes,
// none with attention). Each graph is one of three families, built from the same layer kinds as
// the zoo so its sizes are real:
// - cnn: an image input (3 x R x R, R in {32, 64, 128, 224}), a stem conv, 2-4 stages of 1-4
//   blocks (plain conv-bn-relu, residual with a projection where the shape changes, or an
//   inception-style 2-3 branch concat), stride 2 between stages, global pool, fc classifier;
// - mlp: a flat input, 3-12 fc + activation blocks, some with residual adds, softmax head;
// - rnn: token ids, an embedding, 1-4 stacked LSTMs (some bidirectional), fc + softmax.
//
// Contract: the same options give the same graph, node for node (std::mt19937_64 and our own
// integer draws, no std distributions, so it is the same on every standard library); the graph is
// finalized at `batch`; its node count lies in [min_nodes, max_nodes] (families are redrawn until
// it does, at most 1000 times, then InputError).

#include <cstdint>
#include <string>
#include <string_view>

#include "workloads/graph.hpp"

namespace partsim::workloads {

struct RandomDagOptions {
  std::uint64_t seed = 1;
  int min_nodes = 10;
  int max_nodes = 300;
  std::int64_t batch = 1;
};

/// A random graph named `name`, or "random_<seed>" when it is empty (its description names its family).
Graph random_dag(const RandomDagOptions& options, const std::string& name = "");

/// The command-line form of a random graph (workload_spec.hpp), every key written:
/// "random_dag:seed=S,min_nodes=A,max_nodes=B". `simplan --workload` and a plan take it, so a graph
/// of a training or test set (sim/planners/mcm/rl/graph_sets.hpp) can be described, planned and replayed.
std::string random_dag_spec(const RandomDagOptions& options);
/// Whether `text` is such a form ("random_dag:..."); build_random_dag_spec() builds it, named by the
/// whole text, with the defaults above for keys left out, or throws InputError naming the bad item
/// and the allowed keys (seed, min_nodes, max_nodes).
bool is_random_dag_spec(std::string_view text);
Graph build_random_dag_spec(std::string_view text, std::int64_t batch);

}  // namespace partsim::workloads
