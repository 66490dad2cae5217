#include "sim/planners/mcm/rl/policy.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "sim/common/error.hpp"

namespace partsim::mcm::rl {

GraphTensors graph_tensors(const PlacementProblem& p) {
  const int n = p.size();
  if (n == 0) throw InputError("graph '" + p.graph_name + "' has no node to place");
  const double total = std::accumulate(p.nodes.begin(), p.nodes.end(), 0.0,
                                       [](double s, const Node& node) { return s + node.compute_s; });
  const double mean = total / n;
  std::vector<int> depth(static_cast<std::size_t>(n), 0), in_deg(depth), out_deg(depth);
  for (const Edge& e : p.edges) {  // edges go from lower to higher index: one pass in index order
    ++in_deg[static_cast<std::size_t>(e.to)];
    ++out_deg[static_cast<std::size_t>(e.from)];
  }
  for (int v = 0; v < n; ++v)
    for (int w : p.consumers[static_cast<std::size_t>(v)])
      depth[static_cast<std::size_t>(w)] = std::max(depth[static_cast<std::size_t>(w)], depth[static_cast<std::size_t>(v)] + 1);
  const double max_depth = std::max(1, *std::max_element(depth.begin(), depth.end()));
  const double sram = p.sram_bytes > 0 ? p.sram_bytes : 1.0;

  std::vector<float> f(static_cast<std::size_t>(n) * kStaticFeatures);
  double before = 0;
  for (int v = 0; v < n; ++v) {
    const Node& node = p.nodes[static_cast<std::size_t>(v)];
    float* row = &f[static_cast<std::size_t>(v) * kStaticFeatures];
    row[0] = static_cast<float>(std::log1p(mean > 0 ? node.compute_s / mean : 0.0));
    row[1] = static_cast<float>(node.weight_bytes / sram);
    row[2] = static_cast<float>(std::log1p(node.output_bytes / sram));
    row[3] = static_cast<float>(total > 0 ? before / total : 0.0);
    row[4] = static_cast<float>(depth[static_cast<std::size_t>(v)] / max_depth);
    row[5] = static_cast<float>(static_cast<double>(v) / n);
    row[6] = static_cast<float>(std::log1p(in_deg[static_cast<std::size_t>(v)]));
    row[7] = static_cast<float>(std::log1p(out_deg[static_cast<std::size_t>(v)]));
    before += node.compute_s;
  }
  GraphTensors g;
  g.chips = p.chips;
  g.static_features = torch::from_blob(f.data(), {n, kStaticFeatures}, torch::kFloat32).clone();
  std::vector<std::int64_t> from, to;
  for (const Edge& e : p.edges) {
    from.push_back(e.from);
    to.push_back(e.to);
  }
  const auto edges = static_cast<std::int64_t>(from.size());
  g.edge_from = torch::from_blob(from.data(), {edges}, torch::kInt64).clone();
  g.edge_to = torch::from_blob(to.data(), {edges}, torch::kInt64).clone();
  std::vector<float> indeg(in_deg.begin(), in_deg.end()), outdeg(out_deg.begin(), out_deg.end());
  g.in_degree = torch::from_blob(indeg.data(), {n, 1}, torch::kFloat32).clone().clamp_min(1);
  g.out_degree = torch::from_blob(outdeg.data(), {n, 1}, torch::kFloat32).clone().clamp_min(1);
  return g;
}

torch::Tensor placement_features(const GraphTensors& g, const std::vector<Placement>& previous) {
  const std::int64_t n = g.static_features.size(0);
  const auto batch = static_cast<std::int64_t>(previous.size());
  std::vector<float> state(static_cast<std::size_t>(batch * n));
  const double scale = g.chips > 1 ? 1.0 / (g.chips - 1) : 0.0;
  for (std::size_t b = 0; b < previous.size(); ++b) {
    if (static_cast<std::int64_t>(previous[b].size()) != n)
      throw InputError("previous placement has " + std::to_string(previous[b].size()) + " nodes, the graph " +
                       std::to_string(n));
    for (std::size_t v = 0; v < previous[b].size(); ++v)
      state[b * static_cast<std::size_t>(n) + v] = static_cast<float>(previous[b][v] * scale);
  }
  const torch::Tensor s = torch::from_blob(state.data(), {batch, n, 1}, torch::kFloat32).clone();
  return torch::cat({g.static_features.unsqueeze(0).expand({batch, n, kStaticFeatures}), s}, 2);
}

namespace {
/// sum over edges of h[source] into row target, divided by the target's degree.
torch::Tensor mean_over(const torch::Tensor& h, const torch::Tensor& source, const torch::Tensor& target,
                        const torch::Tensor& degree) {
  return torch::zeros_like(h).index_add(1, target, h.index_select(1, source)) / degree.unsqueeze(0);
}
}  // namespace

torch::Tensor mean_in_neighbours(const GraphTensors& g, const torch::Tensor& h) {
  return mean_over(h, g.edge_from, g.edge_to, g.in_degree);
}

torch::Tensor mean_out_neighbours(const GraphTensors& g, const torch::Tensor& h) {
  return mean_over(h, g.edge_to, g.edge_from, g.out_degree);
}

torch::Tensor apply_linear(const torch::nn::Linear& layer, const torch::Tensor& x) {
  if (!at::hasMKLDNN() || x.scalar_type() != torch::kFloat32) return torch::linear(x, layer->weight, layer->bias);
  const std::int64_t in = x.size(-1);
  std::vector<std::int64_t> out_shape = x.sizes().vec();
  out_shape.back() = layer->weight.size(0);
  // to_mkldnn and to_dense are differentiable, so autograd runs oneDNN's backward too.
  const torch::Tensor rows = x.reshape({-1, in}).contiguous().to_mkldnn();
  return torch::mkldnn_linear(rows, layer->weight, layer->bias).to_dense().reshape(out_shape);
}

SageLayerImpl::SageLayerImpl(int in_features, int out_features)
    : linear(register_module("linear", torch::nn::Linear(3 * in_features, out_features))) {}

torch::Tensor SageLayerImpl::forward(const GraphTensors& g, const torch::Tensor& h) {
  return torch::relu(apply_linear(linear, torch::cat({h, mean_in_neighbours(g, h), mean_out_neighbours(g, h)}, 2)));
}

PlacementPolicyImpl::PlacementPolicyImpl(PolicyShape shape) : shape_(shape) {
  if (shape.chips < 1 || shape.sage_layers < 1 || shape.hidden < 1)
    throw InputError("policy shape needs at least 1 chip, 1 GraphSAGE layer and 1 hidden unit");
  sage_ = register_module("sage", torch::nn::ModuleList());
  for (int k = 0; k < shape.sage_layers; ++k) sage_->push_back(SageLayer(k == 0 ? kNodeFeatures : shape.hidden, shape.hidden));
  policy_hidden_ = register_module("policy_hidden", torch::nn::Linear(shape.hidden, shape.hidden));
  policy_out_ = register_module("policy_out", torch::nn::Linear(shape.hidden, shape.chips));
}

torch::Tensor PlacementPolicyImpl::forward(const GraphTensors& g, const torch::Tensor& node_features) {
  torch::Tensor h = node_features;
  for (const auto& layer : *sage_) h = layer->as<SageLayer>()->forward(g, h);
  return apply_linear(policy_out_, torch::relu(apply_linear(policy_hidden_, h)));
}

torch::Tensor ppo_clipped_loss(const torch::Tensor& logp_new, const torch::Tensor& logp_old,
                               const torch::Tensor& advantages, double clip) {
  const torch::Tensor ratio = torch::exp(logp_new - logp_old);
  const torch::Tensor clipped = torch::clamp(ratio, 1.0 - clip, 1.0 + clip);
  return -torch::min(ratio * advantages, clipped * advantages).mean();
}

void save_policy(PlacementPolicy& policy, const std::string& file) {
  try {
    torch::serialize::OutputArchive archive;
    policy->save(archive);
    const PolicyShape& s = policy->shape();
    archive.write("shape", torch::tensor({s.chips, s.sage_layers, s.hidden}, torch::kInt64));
    archive.save_to(file);
  } catch (const c10::Error& e) {
    throw InputError("cannot write policy checkpoint '" + file + "': " + e.what_without_backtrace());
  }
}

PlacementPolicy load_policy(const std::string& file, int chips) {
  torch::serialize::InputArchive archive;
  torch::Tensor shape;
  try {
    archive.load_from(file);
    archive.read("shape", shape);
  } catch (const c10::Error& e) {
    throw InputError("'" + file + "' is not a policy checkpoint (mcm_rl_train writes them): " +
                     e.what_without_backtrace());
  }
  if (shape.numel() != 3) throw InputError("'" + file + "': checkpoint shape entry has " + std::to_string(shape.numel()) + " values, not 3");
  PolicyShape s{static_cast<int>(shape[0].item<std::int64_t>()), static_cast<int>(shape[1].item<std::int64_t>()),
                static_cast<int>(shape[2].item<std::int64_t>())};
  if (s.chips != chips)
    throw InputError("'" + file + "' was trained for " + std::to_string(s.chips) + " chips, the platform has " +
                     std::to_string(chips));
  PlacementPolicy policy(s);
  try {
    policy->load(archive);
  } catch (const c10::Error& e) {
    throw InputError("'" + file + "': weights do not fit the policy: " + e.what_without_backtrace());
  }
  return policy;
}

}  // namespace partsim::mcm::rl
