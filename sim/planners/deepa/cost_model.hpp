#pragma once
// DeePa's cost model (seed 001 §3, eq. 1): per node compute(c) and update(c), per edge
// xfer(c_u, c_v), precomputed for every configuration (pair) as the paper does.
//
// - compute(c): forward + backward (+ weight gradient) of the slowest worker's shard, from the
//   platform's device model (sim/devices/shard_compute.hpp) with the shard's primary FLOPs divided by
//   a kernel efficiency that depends on the shard's shape (kernel_efficiency(); the paper measures
//   compute instead, and Fig. 1 shows the shape effect). Passes the shared lowering skips (the
//   input error of a layer fed only by graph inputs) are not charged.
// - update(c): the §3 approximation, the data-transfer time of synchronising the replicated
//   parameters: the replicas of each weight shard (workers that differ only in n, h, w) all-reduce
//   their gradients with a ring (2(r-1)/r x bytes from each member to the next, as the shared
//   lowering does), all groups at once; the time is the most loaded link's bytes / bandwidth plus
//   the ring's 2(r-1) hop latencies. With option update=parameter_server (§5's parameter servers on
//   the GPUs), member v mod r of each group holds layer v's parameters (the servers spread over the
//   GPUs; the shared lowering picks the same one): the others send it their gradients
//   (phase 1), it sends them the parameters (phase 2), each phase its most loaded link's bytes /
//   bandwidth plus one route latency, as the shared lowering's two steps.
// - xfer(c_u, c_v): the bytes each consumer worker must receive, from the intersections of the box
//   of the input it reads with the boxes the producer's workers own (sim/geometry/layer_geometry),
//   routed over the platform's links (topology_graph.hpp); in training the same volumes flow back as
//   errors. Each phase takes its most loaded link's bytes / bandwidth plus the longest route latency.
//
// Contract: the times are seconds; tables are cached per edge geometry (edges whose producer output
// and consumer window are the same share one table).

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sim/planners/deepa/configuration.hpp"
#include "sim/planners/deepa/elimination.hpp"
#include "sim/plan/plan.hpp"
#include "topology/system_spec.hpp"
#include "topology/topology_graph.hpp"
#include "workloads/graph.hpp"

namespace partsim::deepa {

/// Which configurations the search may use (option `space`): all of them, only image parallelism on
/// every device (the "DeePa restricted to image parallelism" bars of Fig. 7), or OWT (§7: convolution
/// and pooling image-parallel, fully-connected layers model-parallel, c = all devices).
enum class Space { all, image, owt };

/// Option xfer_limit's default: a unit of CostModel::xfer_work() costs 3-7 ns of CPU here
/// (deepa_search_bench model_bench; AlexNet: 0.11 s for 1.6e7 units on k80_16gpu, 21 s for 7.8e9 on
/// tpu_v3_128, 164 s for 5.5e10 on a 256-chip torus; Inception-v3: 52 s for 1.0e10 on torus_8pf),
/// so 2e10 units is one to two minutes.
inline constexpr double kDefaultXferLimit = 2e10;

struct ModelOptions {
  int max_workers = 0;              // 0: the device count
  AllowedDims dims;
  bool kernel_efficiency = true;    // false: the device model's plain peak
  bool plane_term = true;           // false: the GEMM half-performance term alone (plane_efficiency = 1)
  Space space = Space::all;
  /// true: refuse configurations whose shard does not fit its device's memory (shard_memory),
  /// and plans whose layers together do not fit (CostModel::check_memory).
  bool check_memory = true;
  /// How update(c) synchronises replicas (option `update`; the plan's schedule.gradient_sync_algorithm).
  plan::GradientSyncAlgorithm update = plan::GradientSyncAlgorithm::all_reduce;
  /// Most CostModel::xfer_work() a plan may need (option `xfer_limit`; 0: no limit): the CostModel
  /// constructor refuses larger precomputations up front (InputError), before it builds anything
  /// that grows with them, instead of running for many minutes.
  double xfer_limit = kDefaultXferLimit;
};

/// Kernel efficiency of a shard (<= 1; the shard's primary FLOPs are divided by it), the product of
/// two terms:
/// - Half-performance model of a GEMM kernel (Hockney's n_1/2: a dimension of size x runs at
///   x / (x + x_half) of the peak), per GEMM dimension of the shard: M = images x output positions,
///   N = output channels, K = input channels x kernel positions (the implicit-GEMM view of cuDNN,
///   Chetlur et al. 2014). x_half = 64 for M and N (the tile edge of a Kepler SGEMM thread block) and
///   16 for K (one unrolled slice of the reduction): our choice, not from the paper.
/// - plane_efficiency(): the per-image output plane, the term that tells an image split from an
///   h/w split of the same size (M alone is the same for both; seed 001 Fig. 1 and Table 3).
/// 1 for layers without matrix products.
double kernel_efficiency(const workloads::Layer& layer, const plan::LoopBox& box, bool plane_term = true);

/// Per-image plane term of kernel_efficiency(): a shard whose output plane has P positions per image
/// runs at 1 - alpha x P^2 / (P^2 + P_half^2) of the rate (bounded in (1 - alpha, 1]; smaller planes
/// run faster, and planes well above P_half all run alike). Seed 001 §2: the same work split over h
/// and w trains faster than split over images (Fig. 1: image parallelism is generally not the
/// fastest split of a convolution; the figure's bars are not given as numbers in our copy of the
/// paper, only that ordering). The one measured pair is Table 3: VGG-16's conv5 on 4 K80s takes
/// 63.7 ms as {n=4} (128 images x 14 x 14 per worker) and 54.7 ms as {h=2, w=2} (512 images x 7 x 7);
/// both have M = 25088, so only the plane differs. P_half = 196 (that 14 x 14 plane) and
/// alpha = 0.314 give (1 - 0.314 x 2401/40817) / (1 - 0.314 x 1/2) = 0.981529 / 0.843 = 1.1643,
/// Table 3's 63.7 / 54.7 = 1.1645: calibrated to that pair, not derived from a cuDNN mechanism. The
/// square (a steep knee) keeps the term from favouring h/w splits of large planes, which the paper's
/// Fig. 9 and 10 run image-parallel: 56 x 56 and 224 x 224 planes differ by 0.2 %. Table 3's image
/// rows (32-256 images of 14 x 14 per worker) stay linear in the workers, as the paper's are.
double plane_efficiency(double positions_per_image);
inline constexpr double kPlaneAlpha = 0.314;
inline constexpr double kPlaneHalf = 196;

/// Link loads of a set of point-to-point transfers (one phase), on precomputed routes.
class LinkLoads {
 public:
  explicit LinkLoads(const topology::TopologyGraph& topology);
  void add(int src_device, int dst_device, double bytes);
  /// add() of every (source device, bytes) to one destination. Routes towards a destination form an
  /// in-tree on the platforms we build (dimension-order routing on tori; on graphs the next hop
  /// depends only on the node and the destination), so many sources are summed per tree node and
  /// pushed to the root once: O(tree nodes) instead of O(sum of route lengths), the same loads
  /// (byte counts are integers, exact in a double). Falls back to add() when the routes towards
  /// `dst_device` are not a tree, or when the sources' routes are shorter than the tree.
  void add_gather(int dst_device, const std::vector<std::pair<int, double>>& sources);
  /// Most loaded link's bytes / bandwidth + the longest route latency; 0 when nothing was added.
  double time_s() const;
  /// time_s() of the same transfers sent the other way (every link's load on its reverse direction).
  double reverse_time_s() const;
  double bytes() const { return total_bytes_; }
  void clear();

 private:
  /// The routes of every device towards one destination as an in-tree: the nodes other than the
  /// root that some route passes, deepest first, and each one's first link towards the root.
  struct InTree {
    std::vector<int> order;
    std::vector<int> parent_link;  // per topology node, -1 off the tree
  };
  void load_link(int link, double bytes);

  const topology::TopologyGraph& topology_;
  int devices_;
  std::vector<std::vector<int>> routes_;   // [src * n + dst]
  std::vector<double> latency_;            // [src * n + dst]
  std::vector<double> inverse_bandwidth_;  // per link
  std::vector<double> load_;               // per link, bytes
  std::vector<int> touched_;
  std::vector<InTree> in_trees_;           // per destination device; order empty: not a tree
  std::vector<double> pending_;            // per topology node, bytes on their way to the root
  double max_latency_ = 0;
  double total_bytes_ = 0;
};

/// The costs of one configuration of one layer (the columns of Tables 2 and 3).
struct NodeCost {
  double compute_s = 0;
  double update_s = 0;
  double update_bytes = 0;  // bytes all replicas send in the all-reduce
  double memory_bytes = 0;  // the largest worker's shard_memory().total(), bytes
};

/// Device memory one worker's shard of a layer needs, bytes. `held` stays allocated for the whole
/// step: the weights and the output activations (training keeps them for back-propagation) and in
/// training the weight gradient. `transient` lives only while back-propagation passes the layer: the
/// error of its output (training; 0 in inference). Inputs are the producer's outputs (counted there)
/// and workspace and optimizer state are not counted, so this is a lower bound of a framework's need.
struct ShardMemory {
  double held = 0;
  double transient = 0;
  double total() const { return held + transient; }
};
ShardMemory shard_memory(double weight_bytes, double activation_bytes, plan::Mode mode);

/// An edge's xfer for one configuration pair.
struct XferCost {
  double time_s = 0;
  double bytes = 0;  // sent over the network, forward and (training) backward
};

class CostModel {
 public:
  CostModel(const topology::SystemSpec& spec, const workloads::Graph& graph, plan::Mode mode, ModelOptions options);
  ~CostModel();

  const std::vector<int>& device_order() const { return order_; }
  const std::vector<Configuration>& configurations(std::size_t layer) const { return configs_[layer]; }
  const NodeCost& node(std::size_t layer, int config) const {
    return nodes_[layer][static_cast<std::size_t>(config)];
  }
  /// Graph edges (producer, consumer, input slot), in the order of cost_graph().edges.
  struct Edge {
    std::size_t from = 0, to = 0, slot = 0;
  };
  const std::vector<Edge>& edges() const { return edges_; }
  /// xfer of edge `e` (an index into edges()) for one pair, computed on demand.
  XferCost xfer(std::size_t e, int from_config, int to_config) const;
  /// The eq. 1 graph: node costs compute + update, edge tables xfer (built once, cached by geometry).
  CostGraph cost_graph() const;
  /// What cost_graph() will cost before it runs, in link-load updates: over the distinct edge
  /// tables, producer configurations x the consumer workers of all consumer configurations (xfer()
  /// gathers one consumer worker's inputs at a time) x the topology's nodes (one gather walks the
  /// in-tree of routes to the worker). Grows as K^2 x W x N with the devices (K configurations per
  /// layer, W workers per configuration, N nodes).
  double xfer_work() const;
  plan::Sharding sharding(std::size_t layer, int config) const;
  /// Per device, the memory of the whole plan `choice` (one configuration per layer): the sum over
  /// layers of the shards' held memory plus the largest transient one (one layer back-propagates at
  /// a time; eq. 1 runs the layers one after another).
  std::vector<double> plan_memory_bytes(const std::vector<int>& choice) const;
  /// Throws InputError when plan_memory_bytes(choice) exceeds a device's memory (seed 001 §7.2:
  /// VGG-16 and Inception-v3 at minibatch 2048 do not fit 16 K80s). Does nothing when check_memory
  /// is off.
  void check_memory(const std::vector<int>& choice) const;
  /// Configurations refused because their shard alone exceeds device memory, over all layers.
  std::size_t refused_configurations() const { return refused_; }

 private:
  struct LayerBoxes;
  const LayerBoxes& boxes(std::size_t layer, int config) const;
  NodeCost node_cost(std::size_t layer, int config) const;
  ShardMemory worker_memory(std::size_t layer, int config, std::size_t worker) const;
  void refuse_oversized(std::size_t layer);
  std::string edge_key(const Edge& e) const;
  /// Per edge, the first edge with the same key (whose xfer table it shares); itself if none.
  std::vector<std::size_t> table_owners() const;

  const topology::SystemSpec& spec_;
  const workloads::Graph& graph_;
  plan::Mode mode_;
  ModelOptions options_;
  topology::TopologyGraph topology_;
  std::vector<int> order_;
  double bpe_;
  std::vector<std::vector<Configuration>> configs_;
  std::vector<std::vector<std::unique_ptr<LayerBoxes>>> boxes_;
  std::vector<std::vector<NodeCost>> nodes_;
  std::vector<Edge> edges_;
  std::vector<std::size_t> table_owner_;  // table_owners(), once the edges are known
  std::size_t refused_ = 0;
  mutable std::unique_ptr<LinkLoads> loads_;
};

}  // namespace partsim::deepa
