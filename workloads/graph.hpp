#pragma once
// A DNN workload as a Boost.Graph DAG: vertices are layers, edges are tensors (producer -> consumer).
//
// Contract:
// - Build with add() (layers in any order, inputs named), then finalize(batch): names are resolved
//   (an unknown input is a LayerError), the graph is sorted topologically with
//   boost::topological_sort (a cycle is a LayerError naming a layer on it), shapes are inferred
//   from the inputs' shapes, and every layer's LayerQuantities are derived for `batch`.
// - After finalize(), layers() is in topological order and vertex i of dag() is layers()[i];
//   edge properties say which input slot of the consumer the tensor feeds. Planners may rely on
//   "every producer index < consumer index".
// - with_batch() gives a copy re-derived at another minibatch size (shapes are per sample).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sim/common/error.hpp"
#include "workloads/layer.hpp"

namespace partsim::workloads {

/// A problem with one layer (bad shape, unknown input, cycle). what() is
/// "layer 'name' (kind): message"; loaders of workload files map it to the layer's file position.
class LayerError : public InputError {
 public:
  LayerError(std::string layer, std::string message);
  const std::string& layer() const noexcept { return layer_; }
  const std::string& message() const noexcept { return message_; }

 private:
  std::string layer_;
  std::string message_;
};

/// Edge property: the tensor from a producer into input slot `slot` of the consumer.
struct TensorEdge {
  std::size_t slot = 0;
};

/// The Boost.Graph DAG (vertex property: the index into Graph::layers(), equal to the vertex
/// descriptor); defined in workloads/graph_dag.hpp.
struct Dag;

/// Whole-model sums at the graph's minibatch size.
struct GraphTotals {
  std::int64_t params = 0;
  PassCounts macs;
  PassCounts primary_flops;
  PassCounts aux_flops;
  PassCounts flops;               // primary + auxiliary
  double activation_elements = 0; // sum of every layer's output elements (input layers included)
};

class Graph {
 public:
  explicit Graph(std::string name = "", std::string description = "");

  /// Adds a layer; a duplicate or empty name is a LayerError. Invalidates a previous finalize().
  void add(LayerSpec spec);
  /// Resolves, sorts, infers shapes and derives quantities at minibatch size `batch` (> 0).
  void finalize(std::int64_t batch);
  bool finalized() const noexcept { return finalized_; }

  const std::string& name() const noexcept { return name_; }
  const std::string& description() const noexcept { return description_; }
  void set_description(std::string description) { description_ = std::move(description); }
  std::int64_t batch() const noexcept { return batch_; }

  /// Layers in topological order (after finalize(); before it, in insertion order).
  const std::vector<Layer>& layers() const noexcept { return layers_; }
  std::size_t size() const noexcept { return layers_.size(); }
  const Layer& layer(std::size_t index) const { return layers_.at(index); }
  /// By name; an unknown name is an UnknownNameError (listing up to 20 valid names).
  const Layer& layer(std::string_view name) const;
  std::optional<std::size_t> index_of(std::string_view name) const;

  /// Indices of the producers of layer i, in input-slot order, and of its consumers (ascending).
  std::vector<std::size_t> predecessors(std::size_t index) const;
  std::vector<std::size_t> successors(std::size_t index) const;
  /// The Boost.Graph DAG (vertex i == layers()[i]; workloads/graph_dag.hpp); only valid after
  /// finalize() (empty before the first one).
  const Dag& dag() const noexcept;

  GraphTotals totals() const;
  /// A copy finalized at another minibatch size.
  Graph with_batch(std::int64_t batch) const;

 private:
  std::string name_;
  std::string description_;
  std::int64_t batch_ = 0;
  bool finalized_ = false;
  std::vector<Layer> layers_;
  std::unordered_map<std::string, std::size_t> index_;
  std::shared_ptr<const Dag> dag_;  // shared by copies (never modified once built)
};

}  // namespace partsim::workloads
