#include "sim/planners/deepa/configuration.hpp"

#include <algorithm>
#include <limits>


namespace partsim::deepa {

std::string to_string(const Configuration& config, bool two_dims) {
  std::string s = "{n=" + std::to_string(config.n) + ", c=" + std::to_string(config.c);
  if (!two_dims) s += ", h=" + std::to_string(config.h) + ", w=" + std::to_string(config.w);
  return s + "}";
}

std::vector<int> worker_counts(int max_workers) {
  std::vector<int> counts;
  for (int k = 1; k <= max_workers; k *= 2) counts.push_back(k);
  if (counts.empty() || counts.back() != max_workers) counts.push_back(max_workers);
  return counts;
}

bool has_spatial_dims(const workloads::Layer& layer) {
  return layer.kind != workloads::LayerKind::fc && layer.output_shape.h * layer.output_shape.w > 1;
}

std::vector<Configuration> enumerate_configurations(const workloads::Layer& layer, std::int64_t batch,
                                                    int max_workers, const AllowedDims& dims) {
  const bool spatial = has_spatial_dims(layer);
  const std::int64_t limit[4] = {dims.n ? batch : 1, dims.c ? layer.output_shape.c : 1,
                                 spatial && dims.h ? layer.output_shape.h : 1, spatial && dims.w ? layer.output_shape.w : 1};
  std::vector<Configuration> out;
  for (int k : worker_counts(max_workers)) {
    std::vector<Configuration> of_k;
    for (int n = k; n >= 1; --n) {
      if (k % n != 0 || n > limit[0]) continue;
      for (int c = k / n; c >= 1; --c) {
        if ((k / n) % c != 0 || c > limit[1]) continue;
        for (int h = k / n / c; h >= 1; --h) {
          if ((k / n / c) % h != 0 || h > limit[2]) continue;
          const int w = k / n / c / h;
          if (w > limit[3]) continue;
          of_k.push_back({n, c, h, w});
        }
      }
    }
    out.insert(out.end(), of_k.begin(), of_k.end());
  }
  return out;
}

std::vector<int> locality_order(const topology::TopologyGraph& topology) {
  const int n = topology.device_count();
  std::vector<std::vector<double>> distance(static_cast<std::size_t>(n), std::vector<double>(static_cast<std::size_t>(n), 0));
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      if (a == b) continue;
      double s = 0;
      for (int link : topology.device_route(a, b)) s += 1.0 / topology.link(link).bandwidth;
      distance[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)] = s;
    }
  std::vector<int> order{0};
  std::vector<bool> placed(static_cast<std::size_t>(n), false);
  placed[0] = true;
  while (static_cast<int>(order.size()) < n) {
    int best = -1;
    double best_d = std::numeric_limits<double>::infinity();
    for (int d = 0; d < n; ++d) {
      if (placed[static_cast<std::size_t>(d)]) continue;
      double worst = 0;
      for (int p : order) worst = std::max(worst, distance[static_cast<std::size_t>(p)][static_cast<std::size_t>(d)]);
      if (worst < best_d * (1 - 1e-12)) {
        best_d = worst;
        best = d;
      }
    }
    placed[static_cast<std::size_t>(best)] = true;
    order.push_back(best);
  }
  return order;
}

plan::Sharding sharding_of(const Configuration& config, const std::vector<int>& order) {
  std::vector<int> devices(order.begin(), order.begin() + config.workers());
  // c is the output channels; layers with one channel axis name it by either dimension (plan/sharding.hpp).
  return plan::mesh_sharding(std::move(devices), {{plan::ShardDim::batch, config.n},
                                                  {plan::ShardDim::out_channels, config.c},
                                                  {plan::ShardDim::height, config.h},
                                                  {plan::ShardDim::width, config.w}});
}

}  // namespace partsim::deepa
