// DeePa search time (seed 001 §4; the paper: 0.7, 1.1 and 4.8 s for AlexNet, VGG-16 and
// Inception-v3 on 16 GPUs; target here: Inception-v3 on 16 devices under 0.1 s).
//
// - search/<model>/<devices>: the node/edge elimination search alone on the model's graph, every
//   node with its real configuration count on that many devices (configuration.hpp), the tables
//   filled with random costs (the search's time depends on the graph and the counts, not on the
//   values), so 64 devices can be measured without the precomputation.
// - model/<model>/<devices>: the cost model's precomputation (compute, update, every edge's xfer
//   table) plus the search, i.e. what `simplan --strategy deepa` does, on p100_1node (4 devices),
//   k80_16gpu (16), torus_8pf (64) and, for alexnet, tpu_v3_128 (128). The precomputation is
//   about K^2 x W per edge geometry (K configurations per layer, W workers): it is what grows.
// Counters: nodes, the largest configuration count per node, total configurations.

#include <benchmark/benchmark.h>

#include <random>

#include "bench/benchmark_main.hpp"
#include "sim/planners/deepa/cost_model.hpp"
#include "sim/planners/deepa/elimination.hpp"
#include "topology/system_parser.hpp"
#include "workloads/zoo.hpp"

using namespace partsim;
using namespace partsim::deepa;

namespace {

CostGraph random_cost_graph(const workloads::Graph& graph, int devices, std::size_t& max_k, double& total_k) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> cost(0, 1);
  CostGraph g;
  max_k = 0;
  total_k = 0;
  for (std::size_t v = 0; v < graph.size(); ++v) {
    const auto configs = enumerate_configurations(graph.layer(v), graph.batch(), devices, AllowedDims{});
    std::vector<double> c(configs.size());
    for (double& x : c) x = cost(rng);
    max_k = std::max(max_k, c.size());
    total_k += static_cast<double>(c.size());
    g.node_cost.push_back(std::move(c));
  }
  for (std::size_t v = 0; v < graph.size(); ++v)
    for (std::size_t u : graph.predecessors(v)) {
      const int ku = static_cast<int>(g.node_cost[u].size()), kv = static_cast<int>(g.node_cost[v].size());
      CostTable t{ku, kv, std::vector<double>(static_cast<std::size_t>(ku * kv))};
      for (double& x : t.cost) x = cost(rng);
      g.edges.push_back({static_cast<int>(u), static_cast<int>(v), std::move(t)});
    }
  return g;
}

void search_bench(benchmark::State& state, const char* model) {
  const int devices = static_cast<int>(state.range(0));
  const auto graph = workloads::build_zoo(model, 512);
  std::size_t max_k = 0;
  double total_k = 0;
  const CostGraph g = random_cost_graph(graph, devices, max_k, total_k);
  for (auto _ : state) {
    auto r = eliminate_and_search(g);
    benchmark::DoNotOptimize(r.cost);
  }
  state.counters["nodes"] = static_cast<double>(graph.size());
  state.counters["max_configs"] = static_cast<double>(max_k);
  state.counters["configs"] = total_k;
}

/// The platforms of model/<model>/<devices>: the paper's machines, then the 64-chip torus and the
/// 128-chip star, to show how the precomputation grows with the devices.
const char* platform_with(int devices) {
  switch (devices) {
    case 4: return "p100_1node";
    case 16: return "k80_16gpu";
    case 64: return "torus_8pf";
    case 128: return "tpu_v3_128";
    default: return nullptr;
  }
}

void model_bench(benchmark::State& state, const char* model) {
  const int devices = static_cast<int>(state.range(0));
  const auto spec = topology::load_system(std::string(PARTSIM_SOURCE_DIR) + "/configs/" + platform_with(devices) + ".yaml");
  const auto graph = workloads::build_zoo(model, 512);
  double pairs = 0, work = 0;
  std::size_t max_k = 0;
  for (auto _ : state) {
    const CostModel m(spec, graph, plan::Mode::training, ModelOptions{});
    work = m.xfer_work();
    const CostGraph g = m.cost_graph();
    auto r = eliminate_and_search(g);
    benchmark::DoNotOptimize(r.cost);
    pairs = 0;
    for (const auto& e : g.edges) pairs += static_cast<double>(e.xfer.cost.size());
    for (const auto& n : g.node_cost) max_k = std::max(max_k, n.size());
  }
  state.counters["nodes"] = static_cast<double>(graph.size());
  state.counters["max_configs"] = static_cast<double>(max_k);
  state.counters["xfer_pairs"] = pairs;  // table entries over all edges (tables shared by geometry count once per edge)
  state.counters["xfer_work"] = work;    // CostModel::xfer_work(): what option xfer_limit bounds
}

}  // namespace

BENCHMARK_CAPTURE(search_bench, alexnet, "alexnet")->Arg(4)->Arg(16)->Arg(64)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(search_bench, vgg16, "vgg16")->Arg(4)->Arg(16)->Arg(64)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(search_bench, inception_v3, "inception_v3")->Arg(4)->Arg(16)->Arg(64)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(model_bench, alexnet, "alexnet")->Arg(4)->Arg(16)->Arg(64)->Arg(128)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(model_bench, vgg16, "vgg16")->Arg(4)->Arg(16)->Arg(64)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(model_bench, inception_v3, "inception_v3")->Arg(4)->Arg(16)->Arg(64)->Unit(benchmark::kMillisecond)->Iterations(1);

int main(int argc, char** argv) {
  return partsim::bench::benchmark_main(argc, argv, "deepa_search_bench",
                                        "DeePa search time on 4, 16 and 64 devices, and of its cost model plus search on 4-128-device platforms (target: inception_v3 on 16 devices under 0.1 s)");
}
