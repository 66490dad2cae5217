#include "sim/planners/deepa/cost_model.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <unordered_map>

#include "sim/collectives/algorithm_registry.hpp"
#include "sim/common/error.hpp"
#include "sim/devices/shard_compute.hpp"
#include "sim/geometry/layer_geometry.hpp"
#include "sim/planners/deepa/elimination.hpp"

namespace partsim::deepa {

using geometry::TensorBox;
using workloads::Layer;
using workloads::LayerKind;

namespace {

double half_performance(double x, double x_half) { return x / (x + x_half); }

bool is_input(const Layer& layer) { return layer.kind == LayerKind::input; }

std::string shape_key(const workloads::Shape& s) {
  return std::to_string(s.c) + "x" + std::to_string(s.h) + "x" + std::to_string(s.w);
}

}  // namespace

double plane_efficiency(double positions_per_image) {
  const double p2 = positions_per_image * positions_per_image;
  return 1.0 - kPlaneAlpha * p2 / (p2 + kPlaneHalf * kPlaneHalf);
}

double kernel_efficiency(const Layer& layer, const plan::LoopBox& box, bool plane_term) {
  if (!layer.q.primary) return 1.0;
  const double plane = static_cast<double>(box.height.size() * box.width.size());
  const double m = static_cast<double>(box.batch.size()) * plane;
  const double n = static_cast<double>(box.out_channels.size());
  const double k = static_cast<double>(box.in_channels.size()) * static_cast<double>(std::max<std::int64_t>(1, layer.q.kernel_positions));
  return half_performance(m, 64) * half_performance(n, 64) * half_performance(k, 16) * (plane_term ? plane_efficiency(plane) : 1.0);
}

ShardMemory shard_memory(double weight_bytes, double activation_bytes, plan::Mode mode) {
  if (mode != plan::Mode::training) return {weight_bytes + activation_bytes, 0};
  return {2 * weight_bytes + activation_bytes, activation_bytes};
}

namespace {

std::string gigabytes(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GB", bytes / 1e9);
  return buf;
}

}  // namespace

// ---- link loads ------------------------------------------------------------------------------------

LinkLoads::LinkLoads(const topology::TopologyGraph& topology)
    : topology_(topology), devices_(topology.device_count()),
      routes_(static_cast<std::size_t>(devices_ * devices_)), latency_(routes_.size(), 0),
      inverse_bandwidth_(static_cast<std::size_t>(topology.link_count()), 0),
      load_(static_cast<std::size_t>(topology.link_count()), 0), in_trees_(static_cast<std::size_t>(devices_)),
      pending_(static_cast<std::size_t>(topology.node_count()), 0) {
  for (int l = 0; l < topology.link_count(); ++l) inverse_bandwidth_[static_cast<std::size_t>(l)] = 1.0 / topology.link(l).bandwidth;
  for (int a = 0; a < devices_; ++a)
    for (int b = 0; b < devices_; ++b) {
      if (a == b) continue;
      const std::size_t i = static_cast<std::size_t>(a * devices_ + b);
      routes_[i] = topology.device_route(a, b);
      latency_[i] = topology.route_latency(routes_[i]);
    }
  // In-trees: every node a route towards dst passes must leave by the same link on every route, and
  // its depth (links to the root) must be the same on every route.
  const std::size_t nodes = static_cast<std::size_t>(topology.node_count());
  std::vector<int> depth(nodes);
  for (int dst = 0; dst < devices_; ++dst) {
    InTree& tree = in_trees_[static_cast<std::size_t>(dst)];
    tree.parent_link.assign(nodes, -1);
    std::fill(depth.begin(), depth.end(), -1);
    bool is_tree = true;
    std::vector<int> on_tree;
    for (int src = 0; src < devices_ && is_tree; ++src) {
      if (src == dst) continue;
      const auto& route = routes_[static_cast<std::size_t>(src * devices_ + dst)];
      for (std::size_t h = 0; h < route.size() && is_tree; ++h) {
        const int link = route[h];
        const auto u = static_cast<std::size_t>(topology.link(link).src);
        const int d = static_cast<int>(route.size() - h);
        if (tree.parent_link[u] < 0) {
          tree.parent_link[u] = link;
          depth[u] = d;
          on_tree.push_back(static_cast<int>(u));
        }
        is_tree = tree.parent_link[u] == link && depth[u] == d;
      }
    }
    if (!is_tree) {
      tree = InTree{};
      continue;
    }
    std::stable_sort(on_tree.begin(), on_tree.end(), [&](int a, int b) { return depth[static_cast<std::size_t>(a)] > depth[static_cast<std::size_t>(b)]; });
    tree.order = std::move(on_tree);
  }
}

void LinkLoads::load_link(int link, double bytes) {
  double& load = load_[static_cast<std::size_t>(link)];
  if (load == 0) touched_.push_back(link);
  load += bytes;
}

void LinkLoads::add(int src, int dst, double bytes) {
  if (src == dst || bytes <= 0) return;
  const std::size_t i = static_cast<std::size_t>(src * devices_ + dst);
  for (int l : routes_[i]) load_link(l, bytes);
  max_latency_ = std::max(max_latency_, latency_[i]);
  total_bytes_ += bytes;
}

void LinkLoads::add_gather(int dst, const std::vector<std::pair<int, double>>& sources) {
  const InTree& tree = in_trees_[static_cast<std::size_t>(dst)];
  std::size_t walk = 0;  // links add() would visit
  for (const auto& [src, bytes] : sources)
    if (src != dst && bytes > 0) walk += routes_[static_cast<std::size_t>(src * devices_ + dst)].size();
  if (tree.order.empty() || walk <= tree.order.size()) {
    for (const auto& [src, bytes] : sources) add(src, dst, bytes);
    return;
  }
  for (const auto& [src, bytes] : sources) {
    if (src == dst || bytes <= 0) continue;
    const std::size_t i = static_cast<std::size_t>(src * devices_ + dst);
    pending_[static_cast<std::size_t>(topology_.endpoint(src))] += bytes;
    max_latency_ = std::max(max_latency_, latency_[i]);
    total_bytes_ += bytes;
  }
  // Deepest first, so a node has received all its children's bytes before it passes them on.
  for (int u : tree.order) {
    double& bytes = pending_[static_cast<std::size_t>(u)];
    if (bytes == 0) continue;
    const int link = tree.parent_link[static_cast<std::size_t>(u)];
    load_link(link, bytes);
    pending_[static_cast<std::size_t>(topology_.link(link).dst)] += bytes;
    bytes = 0;
  }
  pending_[static_cast<std::size_t>(topology_.endpoint(dst))] = 0;  // the root: everything arrived
}

double LinkLoads::time_s() const {
  double t = 0;
  for (int l : touched_) t = std::max(t, load_[static_cast<std::size_t>(l)] * inverse_bandwidth_[static_cast<std::size_t>(l)]);
  return touched_.empty() ? 0 : t + max_latency_;
}

double LinkLoads::reverse_time_s() const {
  double t = 0;
  for (int l : touched_) {
    const int back = topology_.link(l).reverse;
    const double inverse = back >= 0 ? inverse_bandwidth_[static_cast<std::size_t>(back)] : inverse_bandwidth_[static_cast<std::size_t>(l)];
    t = std::max(t, load_[static_cast<std::size_t>(l)] * inverse);
  }
  return touched_.empty() ? 0 : t + max_latency_;
}

void LinkLoads::clear() {
  for (int l : touched_) load_[static_cast<std::size_t>(l)] = 0;
  touched_.clear();
  max_latency_ = 0;
  total_bytes_ = 0;
}

// ---- the model -------------------------------------------------------------------------------------

/// Where one configuration puts a layer: each worker's device, loop box, the output box it owns and
/// the input boxes it reads (per slot).
struct CostModel::LayerBoxes {
  std::vector<plan::DeviceBox> boxes;
  std::vector<TensorBox> owned;
  std::vector<std::vector<TensorBox>> reads;  // [slot][worker]
  // The owned boxes as a mesh: worker ((i_n * c + i_c) * h + i_h) * w + i_w owns pieces[d][i_d] of
  // each tensor axis d (batch, channel, height, width). `mesh` is false if they do not form one.
  bool mesh = false;
  int degree[4] = {1, 1, 1, 1};
  std::vector<plan::Range> pieces[4];
};

namespace {

plan::Range TensorBox::*const kAxes[4] = {&TensorBox::batch, &TensorBox::channel, &TensorBox::height, &TensorBox::width};

}  // namespace

CostModel::CostModel(const topology::SystemSpec& spec, const workloads::Graph& graph, plan::Mode mode, ModelOptions options)
    : spec_(spec), graph_(graph), mode_(mode), options_(options), topology_(spec, topology::Granularity::chip),
      order_(locality_order(topology_)), bpe_(static_cast<double>(topology::bytes_per_element(spec.precision))) {
  const int devices = spec.device_count();
  if (options_.max_workers <= 0 || options_.max_workers > devices) options_.max_workers = devices;
  const std::int64_t batch = graph.batch();
  configs_.resize(graph.size());
  boxes_.resize(graph.size());
  nodes_.resize(graph.size());
  // First the configurations and edges alone (cheap), so that a precomputation over xfer_limit is
  // refused before the boxes, routes and tables that would take minutes and gigabytes.
  for (std::size_t v = 0; v < graph.size(); ++v) {
    const Layer& L = graph.layer(v);
    switch (options_.space) {
      case Space::all: configs_[v] = enumerate_configurations(L, batch, options_.max_workers, options_.dims); break;
      case Space::image: configs_[v] = {{static_cast<int>(std::min<std::int64_t>(devices, batch)), 1, 1, 1}}; break;
      case Space::owt:
        configs_[v] = {L.kind == LayerKind::fc ? Configuration{1, static_cast<int>(std::min<std::int64_t>(devices, L.output_shape.c)), 1, 1}
                                               : Configuration{static_cast<int>(std::min<std::int64_t>(devices, batch)), 1, 1, 1}};
        break;
    }
    if (configs_[v].empty()) throw InputError("deepa: layer '" + L.name + "' has no configuration (check dims)");
    const auto producers = graph.predecessors(v);
    for (std::size_t slot = 0; slot < producers.size(); ++slot) edges_.push_back({producers[slot], v, slot});
  }
  table_owner_ = table_owners();
  {  // A graph whose eliminations leave too much to enumerate is refused before any table (eq. 1-3).
    std::vector<int> sizes;
    for (const auto& configs : configs_) sizes.push_back(static_cast<int>(configs.size()));
    std::vector<std::pair<int, int>> edges;
    for (const Edge& e : edges_) edges.emplace_back(static_cast<int>(e.from), static_cast<int>(e.to));
    check_enumeration(sizes, edges);
  }
  if (const double work = xfer_work(); options_.xfer_limit > 0 && work > options_.xfer_limit) {
    std::size_t most = 0;
    for (const auto& configs : configs_) most = std::max(most, configs.size());
    char buf[640];
    std::snprintf(buf, sizeof buf,
                  "deepa: the eq. 1 xfer tables on platform '%s' (%d devices, up to %zu configurations per layer) are %.3g "
                  "link-load updates, over option xfer_limit=%.3g (one to two minutes of CPU; the work grows as K^2 x W x "
                  "N with the devices): lower --option max_workers (e.g. %d), restrict --option dims, or raise xfer_limit (0: no limit)",
                  spec.name.c_str(), devices, most, work, options_.xfer_limit, std::max(1, devices / 4));
    throw WorkLimitError(buf);
  }
  loads_ = std::make_unique<LinkLoads>(topology_);
  for (std::size_t v = 0; v < graph.size(); ++v) {
    const Layer& L = graph.layer(v);
    const plan::LoopExtent extent = geometry::loop_extent(L, batch);
    for (std::size_t c = 0; c < configs_[v].size(); ++c) {
      auto lb = std::make_unique<LayerBoxes>();
      for (const auto& db : plan::shard_boxes(sharding(v, static_cast<int>(c)), extent, devices)) {
        if (db.box.empty()) continue;
        lb->boxes.push_back(db);
        lb->owned.push_back(geometry::output_box(L, db.box, extent, batch));
      }
      // Index the owners as the configuration's mesh (plan::shard_boxes of a mesh_sharding: batch
      // outermost), so that xfer visits only the owners a read box overlaps.
      const Configuration& config = configs_[v][c];
      const int degree[4] = {config.n, config.c, config.h, config.w};
      lb->mesh = static_cast<int>(lb->owned.size()) == config.workers();
      for (int d = 0; d < 4 && lb->mesh; ++d) {
        lb->degree[d] = degree[d];
        lb->pieces[d].assign(static_cast<std::size_t>(degree[d]), plan::Range{-1, -1});
      }
      for (std::size_t k = 0; k < lb->owned.size() && lb->mesh; ++k) {
        std::size_t rest = k;
        for (int d = 3; d >= 0; --d) {
          const std::size_t i = rest % static_cast<std::size_t>(degree[d]);
          rest /= static_cast<std::size_t>(degree[d]);
          plan::Range& piece = lb->pieces[d][i];
          const plan::Range got = lb->owned[k].*kAxes[d];
          if (piece.lo < 0) piece = got;
          if (!(piece == got)) lb->mesh = false;
        }
      }
      // xfer binary-searches the pieces: they must be non-empty and ascend without overlapping.
      for (int d = 0; d < 4 && lb->mesh; ++d)
        for (std::size_t i = 0; i < lb->pieces[d].size() && lb->mesh; ++i)
          lb->mesh = lb->pieces[d][i].size() > 0 && (i == 0 || lb->pieces[d][i - 1].hi <= lb->pieces[d][i].lo);
      lb->reads.resize(L.input_shapes.size());
      for (std::size_t slot = 0; slot < L.input_shapes.size(); ++slot)
        for (const auto& db : lb->boxes) lb->reads[slot].push_back(geometry::input_box(L, slot, db.box, extent, batch));
      boxes_[v].push_back(std::move(lb));
    }
    for (std::size_t c = 0; c < configs_[v].size(); ++c) nodes_[v].push_back(node_cost(v, static_cast<int>(c)));
    if (options_.check_memory) refuse_oversized(v);
  }
}

CostModel::~CostModel() = default;

void CostModel::refuse_oversized(std::size_t v) {
  // A configuration's workers may sit on devices of different memory: each worker against its own.
  double smallest_need = std::numeric_limits<double>::infinity(), memory = 0;
  std::size_t kept = 0;
  for (std::size_t c = 0; c < configs_[v].size(); ++c) {
    bool fits = true;
    for (std::size_t k = 0; k < boxes_[v][c]->boxes.size(); ++k) {
      const double have = spec_.device_type(boxes_[v][c]->boxes[k].device).memory_bytes();
      const double need = worker_memory(v, static_cast<int>(c), k).total();
      if (need > have) {
        fits = false;
        if (need < smallest_need) smallest_need = need, memory = have;
      }
    }
    if (!fits) continue;
    if (kept != c) {
      configs_[v][kept] = configs_[v][c];
      boxes_[v][kept] = std::move(boxes_[v][c]);
      nodes_[v][kept] = nodes_[v][c];
    }
    ++kept;
  }
  refused_ += configs_[v].size() - kept;
  if (kept == 0)
    throw InputError("deepa: layer '" + graph_.layer(v).name + "' does not fit device memory in any configuration (the smallest shard needs " +
                     gigabytes(smallest_need) + ", the device has " + gigabytes(memory) + "); lower the minibatch or use option memory=ignore");
  configs_[v].resize(kept);
  boxes_[v].resize(kept);
  nodes_[v].resize(kept);
}

ShardMemory CostModel::worker_memory(std::size_t v, int config, std::size_t worker) const {
  const Layer& L = graph_.layer(v);
  const LayerBoxes& lb = boxes(v, config);
  const plan::LoopExtent extent = geometry::loop_extent(L, graph_.batch());
  const double weights = L.q.params > 0 ? static_cast<double>(L.q.params) * geometry::weight_fraction(L, lb.boxes[worker].box, extent) * bpe_ : 0;
  // A graph input has no error to hold: it counts once, as in inference.
  return shard_memory(weights, lb.owned[worker].elements() * bpe_, is_input(L) ? plan::Mode::inference : mode_);
}

std::vector<double> CostModel::plan_memory_bytes(const std::vector<int>& choice) const {
  const std::size_t devices = static_cast<std::size_t>(spec_.device_count());
  std::vector<double> held(devices, 0), transient(devices, 0);
  for (std::size_t v = 0; v < graph_.size(); ++v) {
    const LayerBoxes& lb = boxes(v, choice[v]);
    for (std::size_t k = 0; k < lb.boxes.size(); ++k) {
      const ShardMemory m = worker_memory(v, choice[v], k);
      const auto d = static_cast<std::size_t>(lb.boxes[k].device);
      held[d] += m.held;
      transient[d] = std::max(transient[d], m.transient);
    }
  }
  for (std::size_t d = 0; d < devices; ++d) held[d] += transient[d];
  return held;
}

void CostModel::check_memory(const std::vector<int>& choice) const {
  if (!options_.check_memory) return;
  const std::vector<double> need = plan_memory_bytes(choice);
  for (std::size_t d = 0; d < need.size(); ++d) {
    const double have = spec_.device_type(static_cast<int>(d)).memory_bytes();
    if (need[d] > have)
      throw InputError("deepa: the plan needs " + gigabytes(need[d]) + " on device " + std::to_string(d) + ", which has " + gigabytes(have) +
                       " (weights, weight gradients and activations of every layer and the largest output error, at minibatch " + std::to_string(graph_.batch()) +
                       "); lower the minibatch or use option memory=ignore");
  }
}

plan::Sharding CostModel::sharding(std::size_t layer, int config) const {
  return sharding_of(configs_[layer][static_cast<std::size_t>(config)], order_);
}

const CostModel::LayerBoxes& CostModel::boxes(std::size_t layer, int config) const {
  return *boxes_[layer][static_cast<std::size_t>(config)];
}

NodeCost CostModel::node_cost(std::size_t v, int config) const {
  const Layer& L = graph_.layer(v);
  NodeCost cost;
  if (is_input(L)) return cost;
  const LayerBoxes& lb = boxes(v, config);
  const plan::LoopExtent extent = geometry::loop_extent(L, graph_.batch());
  bool needs_input_error = false;
  for (std::size_t u : graph_.predecessors(v)) needs_input_error = needs_input_error || !is_input(graph_.layer(u));
  std::vector<plan::Pass> passes{plan::Pass::fwd};
  if (mode_ == plan::Mode::training) {
    if (needs_input_error) passes.push_back(plan::Pass::bwd);
    passes.push_back(plan::Pass::upd);
  }
  for (std::size_t k = 0; k < lb.boxes.size(); ++k) cost.memory_bytes = std::max(cost.memory_bytes, worker_memory(v, config, k).total());
  // compute(c): the slowest worker (equal partitioning leaves at most one row of imbalance).
  for (const auto& db : lb.boxes) {
    const double efficiency = options_.kernel_efficiency ? kernel_efficiency(L, db.box, options_.plane_term) : 1.0;
    double t = 0;
    for (plan::Pass pass : passes) {
      devices::ShardWork work = geometry::shard_work(L, db.box, extent, graph_.batch(), pass, bpe_);
      work.primary_flops /= efficiency;
      t += devices::shard_time(spec_.device_type(db.device), work, pass).compute_s;
    }
    cost.compute_s = std::max(cost.compute_s, t);
  }
  // update(c): all-reduce of each replica group (the workers holding the same weights).
  if (mode_ != plan::Mode::training || L.q.params <= 0) return cost;
  std::map<std::vector<plan::Range>, std::vector<std::size_t>> replicas;
  for (std::size_t k = 0; k < lb.boxes.size(); ++k) replicas[geometry::weight_key(L, lb.boxes[k].box)].push_back(k);
  LinkLoads& loads = *loads_;
  loads.clear();
  if (options_.update == plan::GradientSyncAlgorithm::parameter_server) {
    // Two phases (gradients in, parameters out), each with its own busiest link, as the lowering's two
    // steps; layer v's server is member v mod r of each group (servers spread over the GPUs, §5).
    for (const bool to_server : {true, false}) {
      for (const auto& [key, members] : replicas) {
        if (members.size() < 2) continue;
        const double bytes = static_cast<double>(L.q.params) * geometry::weight_fraction(L, lb.boxes[members.front()].box, extent) * bpe_;
        const int server = lb.boxes[members[v % members.size()]].device;
        for (std::size_t m : members) {
          const int worker = lb.boxes[m].device;
          if (worker != server) loads.add(to_server ? worker : server, to_server ? server : worker, bytes);
        }
      }
      if (loads.bytes() > 0) {
        cost.update_s += loads.time_s();  // with the phase's longest route latency
        cost.update_bytes += loads.bytes();
      }
      loads.clear();
    }
    return cost;
  }
  // All replica groups at once, each by the platform's all-reduce algorithm (a ring in the group's
  // order unless the platform names another: sim/collectives/algorithm_registry.hpp): the step rule
  // over their merged schedules, so links the groups share are charged to every step that uses them.
  collectives::Schedule all;
  for (const auto& [key, members] : replicas) {
    if (members.size() < 2) continue;
    const double bytes = static_cast<double>(L.q.params) * geometry::weight_fraction(L, lb.boxes[members.front()].box, extent) * bpe_;
    std::vector<int> devices;
    for (std::size_t m : members) devices.push_back(lb.boxes[m].device);
    all = collectives::merge(all, collectives::collective_schedule("all_reduce", devices, bytes, "", topology_));
  }
  if (!all.transfers.empty()) {
    cost.update_s = collectives::evaluate(collectives::lower_to_nodes(all, topology_), topology_);
    for (const auto& t : all.transfers) cost.update_bytes += t.bytes;
  }
  return cost;
}

XferCost CostModel::xfer(std::size_t e, int from_config, int to_config) const {
  const Edge& edge = edges_[e];
  const LayerBoxes& producer = boxes(edge.from, from_config);
  const LayerBoxes& consumer = boxes(edge.to, to_config);
  const auto& reads = consumer.reads[edge.slot];
  LinkLoads& loads = *loads_;
  loads.clear();
  // Forward the inputs travel producer -> consumer; backward (training) their errors travel the same
  // routes reversed, so the reverse links carry the same loads (LinkLoads::reverse_time_s).
  std::vector<std::pair<int, double>> sources;  // what one consumer worker receives: (producer device, bytes)
  std::vector<double> overlap[4];               // per axis, the sizes of the overlapped pieces, in order
  for (std::size_t j = 0; j < consumer.boxes.size(); ++j) {
    const int dst = consumer.boxes[j].device;
    sources.clear();
    if (!producer.mesh) {
      for (std::size_t i = 0; i < producer.boxes.size(); ++i)
        if (producer.boxes[i].device != dst)
          sources.emplace_back(producer.boxes[i].device, geometry::intersect(reads[j], producer.owned[i]).elements() * bpe_);
      loads.add_gather(dst, sources);
      continue;
    }
    // Per axis, the pieces the read box overlaps and by how much (pieces ascend: a binary search finds
    // the first), then their products: the cost is the overlaps, not the producer's workers.
    int first[4];
    bool none = false;
    for (int d = 0; d < 4 && !none; ++d) {
      const plan::Range want = reads[j].*kAxes[d];
      const auto& pieces = producer.pieces[d];
      auto it = std::partition_point(pieces.begin(), pieces.end(), [&](const plan::Range& p) { return p.hi <= want.lo; });
      first[d] = static_cast<int>(it - pieces.begin());
      overlap[d].clear();
      for (; it != pieces.end() && it->lo < want.hi; ++it) overlap[d].push_back(static_cast<double>(plan::intersect(want, *it).size()));
      none = overlap[d].empty();
    }
    if (none) continue;  // the read box overlaps no owner
    const auto degree = [&](int d) { return static_cast<std::size_t>(producer.degree[d]); };
    for (std::size_t a = 0; a < overlap[0].size(); ++a)
      for (std::size_t b = 0; b < overlap[1].size(); ++b)
        for (std::size_t h = 0; h < overlap[2].size(); ++h)
          for (std::size_t w = 0; w < overlap[3].size(); ++w) {
            // Worker ((i_n * c + i_c) * h + i_h) * w + i_w of the producer's mesh.
            const std::size_t k = ((static_cast<std::size_t>(first[0]) + a) * degree(1) + static_cast<std::size_t>(first[1]) + b) * degree(2) * degree(3) +
                                  (static_cast<std::size_t>(first[2]) + h) * degree(3) + static_cast<std::size_t>(first[3]) + w;
            const int src = producer.boxes[k].device;
            if (src != dst) sources.emplace_back(src, overlap[0][a] * overlap[1][b] * overlap[2][h] * overlap[3][w] * bpe_);
          }
    loads.add_gather(dst, sources);
  }
  XferCost cost{loads.time_s(), loads.bytes()};
  if (mode_ == plan::Mode::training && !is_input(graph_.layer(edge.from))) {
    cost.time_s += loads.reverse_time_s();
    cost.bytes *= 2;
  }
  loads.clear();
  return cost;
}

std::string CostModel::edge_key(const Edge& e) const {
  const Layer& u = graph_.layer(e.from);
  const Layer& v = graph_.layer(e.to);
  const auto& a = v.attr;
  std::int64_t offset = 0;
  if (v.kind == LayerKind::concat)
    for (std::size_t k = 0; k < e.slot; ++k) offset += v.input_shapes[k].c;
  const plan::LoopExtent ev = geometry::loop_extent(v, graph_.batch());
  std::string key = shape_key(u.output_shape) + (u.kind == LayerKind::fc ? "F" : "") + (is_input(u) ? "I" : "") + "|" +
                    std::string(workloads::to_string(v.kind)) + "|" + shape_key(v.input_shapes[e.slot]) + "|" +
                    shape_key(v.output_shape) + "|";
  for (std::int64_t x : {a.kernel_h, a.kernel_w, a.stride_h, a.stride_w, a.pad_h, a.pad_w, static_cast<std::int64_t>(a.global),
                         offset, ev.in_channels, ev.out_channels})
    key += std::to_string(x) + ",";
  return key;
}

std::vector<std::size_t> CostModel::table_owners() const {
  std::vector<std::size_t> owner(edges_.size());
  std::unordered_map<std::string, std::size_t> first;  // edge key -> the first edge with it
  for (std::size_t e = 0; e < edges_.size(); ++e) owner[e] = first.emplace(edge_key(edges_[e]), e).first->second;
  return owner;
}

double CostModel::xfer_work() const {
  double work = 0;
  for (std::size_t e = 0; e < edges_.size(); ++e) {
    if (table_owner_[e] != e) continue;
    double consumer_workers = 0;  // summed over the consumer's configurations
    for (const Configuration& c : configs_[edges_[e].to]) consumer_workers += c.workers();
    work += static_cast<double>(configs_[edges_[e].from].size()) * consumer_workers;
  }
  return work * static_cast<double>(topology_.node_count());
}

CostGraph CostModel::cost_graph() const {
  CostGraph g;
  for (std::size_t v = 0; v < graph_.size(); ++v) {
    std::vector<double> costs;
    for (const NodeCost& c : nodes_[v]) costs.push_back(c.compute_s + c.update_s);
    g.node_cost.push_back(std::move(costs));
  }
  for (std::size_t e = 0; e < edges_.size(); ++e) {
    const Edge& edge = edges_[e];
    const int ku = static_cast<int>(configs_[edge.from].size()), kv = static_cast<int>(configs_[edge.to].size());
    CostEdge ce{static_cast<int>(edge.from), static_cast<int>(edge.to), {ku, kv, {}}};
    if (table_owner_[e] != e) {
      ce.xfer.cost = g.edges[table_owner_[e]].xfer.cost;
    } else {
      ce.xfer.cost.resize(static_cast<std::size_t>(ku) * static_cast<std::size_t>(kv));
      for (int cu = 0; cu < ku; ++cu)
        for (int cv = 0; cv < kv; ++cv)
          ce.xfer.cost[static_cast<std::size_t>(cu) * static_cast<std::size_t>(kv) + static_cast<std::size_t>(cv)] = xfer(e, cu, cv).time_s;
    }
    g.edges.push_back(std::move(ce));
  }
  return g;
}

}  // namespace partsim::deepa
