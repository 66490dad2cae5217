#pragma once
// The networks of seed 002 §4.1 and §5.1 on libtorch (CPU): a GraphSAGE feature network (8 layers of
// 128, Hamilton et al. 2017, mean aggregator) over the op graph, and a 2-layer fully connected policy
// giving every node a distribution p_i over the C chips (the matrix P of §4.1). The previous
// placement y^(t-1) enters the node features, so one forward pass is one step t of the
// non-autoregressive iteration of eq. 7: p(y^(t) | G) = prod_i p(y_i^(t) | h_G, y^(t-1)). It goes in
// through the GraphSAGE layers (not only into the per-node policy head) so that a node's new
// distribution sees its neighbours' previous chips: that is how eq. 7 lets decisions influence
// each other across iterations.
//
// Contract: tensors are float32 on the CPU; a batch dimension B (rollouts) leads every per-node
// tensor ([B, N, F]). libtorch is linked by partsim_mcm_rl only.

#include <string>

#include <torch/torch.h>

#include "sim/planners/mcm/problem.hpp"

namespace partsim::mcm::rl {

/// The static per-node features (computed once per graph) and the edges, as tensors. Features,
/// each scaled to about [0, 1] so graphs of any size share one network (pre-training, §4.3):
///  0 compute share: t_v / mean_u t_u, through log1p (the cost model's term, cost_model.hpp)
///  1 weight bytes / chip SRAM (what the SRAM constraint H and the solver's bin packing read)
///  2 output bytes / chip SRAM, through log1p (what crosses a ring link when cut here)
///  3 compute before v in topological order / total compute (where an equal-compute split cuts:
///    the greedy baseline's own key)
///  4 topological depth (longest path from a source) / the graph's largest depth
///  5 position in the topological order / N
///  6, 7 log1p of in-degree and out-degree (fan-in and fan-out: residuals and concats, eq. 4)
/// and, per step of eq. 7, the state feature (placement_features):
///  8 previous chip y_v^(t-1) / (C - 1)
struct GraphTensors {
  torch::Tensor static_features;  // [N, kStaticFeatures]
  torch::Tensor edge_from;        // [E] int64, producer of each edge
  torch::Tensor edge_to;          // [E] int64, consumer
  torch::Tensor in_degree;        // [N, 1] float, clamped to >= 1 (a mean over no neighbour is 0)
  torch::Tensor out_degree;       // [N, 1]
  int chips = 0;
};

constexpr int kStaticFeatures = 8;
constexpr int kStateFeatures = 1;
constexpr int kNodeFeatures = kStaticFeatures + kStateFeatures;

GraphTensors graph_tensors(const PlacementProblem& problem);

/// Node features for a batch of previous placements: [B, N, kNodeFeatures].
torch::Tensor placement_features(const GraphTensors& graph, const std::vector<Placement>& previous);

/// Mean of the in-neighbours' (producers') rows of h [B, N, F]: row v = sum_{u -> v} h_u / indeg(v)
/// (0 for a source).
torch::Tensor mean_in_neighbours(const GraphTensors& graph, const torch::Tensor& h);
/// The same over out-neighbours (consumers).
torch::Tensor mean_out_neighbours(const GraphTensors& graph, const torch::Tensor& h);

/// layer(x) over the last axis of x ([..., in] -> [..., out]), forward and backward. When libtorch
/// has oneDNN (Debian's does: USE_MKLDNN=ON), through its inner-product primitive: Debian's libtorch
/// otherwise multiplies with the system BLAS, the reference libblas3 (BLAS_INFO=generic), about 10x
/// slower here (a 20 x 224 x 384 -> 128 layer, forward and backward: 616 ms against 62 ms on 2 cores).
/// Same values to float32 rounding (test_mcm_rl: LinearThroughOneDnnEqualsTorchLinear).
torch::Tensor apply_linear(const torch::nn::Linear& layer, const torch::Tensor& x);

/// One GraphSAGE layer with the mean aggregator over both edge directions (a dataflow graph's
/// producers and consumers say different things about a node, so they are not pooled together):
///   h'_v = relu(W [h_v ; mean_{u -> v} h_u ; mean_{v -> w} h_w] + b)
/// (Hamilton et al. eq. 1 with the concatenation of the node's own vector; no L2 normalisation of
/// h', which the paper lists as optional and which would throw away the compute scale.)
class SageLayerImpl : public torch::nn::Module {
 public:
  SageLayerImpl(int in_features, int out_features);
  torch::Tensor forward(const GraphTensors& graph, const torch::Tensor& h);
  torch::nn::Linear linear{nullptr};
};
TORCH_MODULE(SageLayer);

struct PolicyShape {
  int chips = 36;      // C: the policy's output width (a checkpoint fixes it)
  int sage_layers = 8; // §5.1: 8 GraphSAGE layers of 128
  int hidden = 128;
};

/// Feature network + policy: logits [B, N, C] of p(y_i^(t) | h_G, y^(t-1)).
class PlacementPolicyImpl : public torch::nn::Module {
 public:
  explicit PlacementPolicyImpl(PolicyShape shape);
  torch::Tensor forward(const GraphTensors& graph, const torch::Tensor& node_features);
  const PolicyShape& shape() const { return shape_; }

 private:
  PolicyShape shape_;
  torch::nn::ModuleList sage_{nullptr};
  // §5.1: "a feed-forward network with 2 layers, the size of each layer the same as GraphSAGE
  // layers": hidden -> hidden (relu) -> C logits.
  torch::nn::Linear policy_hidden_{nullptr}, policy_out_{nullptr};
};
TORCH_MODULE(PlacementPolicy);

/// PPO's clipped surrogate (Schulman et al. 2017 eq. 7), as a loss to minimise:
///   -mean_k min(r_k A_k, clip(r_k, 1 - eps, 1 + eps) A_k),  r_k = exp(logp_new_k - logp_old_k).
torch::Tensor ppo_clipped_loss(const torch::Tensor& logp_new, const torch::Tensor& logp_old,
                               const torch::Tensor& advantages, double clip);

/// Saves the policy and its shape; load_policy throws InputError when the file is missing, is not a
/// checkpoint, or was trained for another number of chips.
void save_policy(PlacementPolicy& policy, const std::string& file);
PlacementPolicy load_policy(const std::string& file, int chips);

}  // namespace partsim::mcm::rl
