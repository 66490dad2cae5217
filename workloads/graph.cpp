#include "workloads/graph.hpp"

#include "workloads/graph_dag.hpp"

#include <boost/graph/depth_first_search.hpp>
#include <boost/graph/topological_sort.hpp>

#include <algorithm>
#include <iterator>

namespace partsim::workloads {
namespace {

// Thrown out of the depth-first search at the first back edge: its target lies on a cycle.
struct CycleFound {
  std::size_t vertex;
};

struct CycleVisitor : boost::default_dfs_visitor {
  template <class Edge, class G>
  void back_edge(Edge e, const G& g) const {
    throw CycleFound{boost::target(e, g)};
  }
};

}  // namespace

LayerError::LayerError(std::string layer, std::string message)
    : InputError("layer '" + layer + "': " + message), layer_(std::move(layer)), message_(std::move(message)) {}

Graph::Graph(std::string name, std::string description)
    : name_(std::move(name)), description_(std::move(description)) {}

void Graph::add(LayerSpec spec) {
  if (spec.name.empty()) throw LayerError("", "a layer needs a name");
  if (index_.count(spec.name) != 0) throw LayerError(spec.name, "a layer of this name already exists");
  index_.emplace(spec.name, layers_.size());
  Layer layer;
  static_cast<LayerSpec&>(layer) = std::move(spec);
  layers_.push_back(std::move(layer));
  finalized_ = false;
}

void Graph::finalize(std::int64_t batch) {
  if (batch <= 0) throw InputError("workload '" + name_ + "': batch must be > 0 (got " + std::to_string(batch) + ")");
  finalized_ = false;
  const std::size_t count = layers_.size();

  // 1. Resolve input names into edges (insertion-order vertices).
  BoostDag dag(count);
  for (std::size_t v = 0; v < count; ++v) {
    const Layer& layer = layers_[v];
    for (std::size_t slot = 0; slot < layer.inputs.size(); ++slot) {
      auto it = index_.find(layer.inputs[slot]);
      if (it == index_.end())
        throw LayerError(layer.name, "input '" + layer.inputs[slot] + "' is not a layer of this workload");
      boost::add_edge(it->second, v, TensorEdge{slot}, dag);
    }
  }

  // 2. Topological order; a cycle names a layer on it.
  std::vector<std::size_t> reverse_order;
  try {
    boost::topological_sort(dag, std::back_inserter(reverse_order));
  } catch (const boost::not_a_dag&) {
    try {
      boost::depth_first_search(dag, boost::visitor(CycleVisitor{}));
    } catch (const CycleFound& cycle) {
      throw LayerError(layers_[cycle.vertex].name, "is on a cycle of inputs (a workload must be acyclic)");
    }
    throw LayerError(layers_.front().name, "the workload has a cycle");
  }
  // Keep the order the layers were written in when it is already topological (readable tables);
  // otherwise take boost's order.
  std::vector<std::size_t> order(count);
  bool written_order_ok = true;
  for (auto e : boost::make_iterator_range(boost::edges(dag)))
    if (boost::source(e, dag) >= boost::target(e, dag)) written_order_ok = false;
  if (written_order_ok) {
    for (std::size_t i = 0; i < count; ++i) order[i] = i;
  } else {
    std::reverse_copy(reverse_order.begin(), reverse_order.end(), order.begin());
  }

  // 3. Re-index layers and the DAG in topological order.
  std::vector<std::size_t> new_index(count);
  for (std::size_t i = 0; i < count; ++i) new_index[order[i]] = i;
  std::vector<Layer> sorted;
  sorted.reserve(count);
  for (std::size_t i = 0; i < count; ++i) sorted.push_back(std::move(layers_[order[i]]));
  layers_ = std::move(sorted);
  index_.clear();
  auto sorted_dag = std::make_shared<Dag>(count);
  BoostDag& sorted_graph = *sorted_dag;
  for (std::size_t i = 0; i < count; ++i) {
    index_.emplace(layers_[i].name, i);
    sorted_graph[i] = i;
  }
  for (auto e : boost::make_iterator_range(boost::edges(dag)))
    boost::add_edge(new_index[boost::source(e, dag)], new_index[boost::target(e, dag)], dag[e], sorted_graph);
  dag_ = std::move(sorted_dag);

  // 4. Shapes and quantities along the order.
  for (Layer& layer : layers_) {
    layer.input_shapes.clear();
    for (const std::string& producer : layer.inputs) layer.input_shapes.push_back(layers_[index_.at(producer)].output_shape);
    layer.output_shape = infer_shape(layer, layer.input_shapes);
    // Keep every count far inside int64 and exact in a double (2^53 ~ 9e15).
    const Shape& out = layer.output_shape;
    if (static_cast<double>(out.c) * static_cast<double>(out.h) * static_cast<double>(out.w) > 1e12)
      throw LayerError(layer.name, std::string(to_string(layer.kind)) + ": output " + to_string(out) +
                                       " is too large (more than 1e12 elements per sample)");
    layer.q = derive_quantities(layer, layer.input_shapes, layer.output_shape, batch);
  }
  batch_ = batch;
  finalized_ = true;
}

const Layer& Graph::layer(std::string_view name) const {
  if (auto i = index_of(name)) return layers_[*i];
  std::string valid;
  for (std::size_t i = 0; i < layers_.size() && i < 20; ++i) valid += (i ? ", " : "") + layers_[i].name;
  if (layers_.size() > 20) valid += ", ...";
  throw UnknownNameError("layer of workload '" + name_ + "'", std::string(name), valid);
}

std::optional<std::size_t> Graph::index_of(std::string_view name) const {
  auto it = index_.find(std::string(name));
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

std::vector<std::size_t> Graph::predecessors(std::size_t index) const {
  std::vector<std::size_t> out;
  for (const std::string& producer : layers_.at(index).inputs) out.push_back(index_.at(producer));
  return out;
}

const Dag& Graph::dag() const noexcept {
  static const Dag empty;
  return dag_ ? *dag_ : empty;
}

std::vector<std::size_t> Graph::successors(std::size_t index) const {
  std::vector<std::size_t> out;
  if (!finalized_) throw Error("workloads::Graph::successors() before finalize()");
  const BoostDag& g = *dag_;
  for (auto e : boost::make_iterator_range(boost::out_edges(index, g))) out.push_back(boost::target(e, g));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

GraphTotals Graph::totals() const {
  GraphTotals t;
  for (const Layer& layer : layers_) {
    t.params += layer.q.params;
    t.macs += layer.q.macs;
    t.primary_flops += layer.q.primary_flops;
    t.aux_flops += layer.q.aux_flops;
    t.activation_elements += layer.q.output_elements;
  }
  t.flops = t.primary_flops;
  t.flops += t.aux_flops;
  return t;
}

Graph Graph::with_batch(std::int64_t batch) const {
  Graph copy = *this;
  copy.finalize(batch);
  return copy;
}

}  // namespace partsim::workloads
