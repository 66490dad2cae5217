// Planning time of the AccPar family (target: resnet50 on 256 devices under 10 ms, issue 4).
// Prints Google Benchmark's table; the zoo graph and the platform are built outside the timing.

#include <benchmark/benchmark.h>

#include "bench/benchmark_main.hpp"
#include "sim/planners/accpar/accpar_planner.hpp"
#include "topology/system_parser.hpp"
#include "workloads/zoo.hpp"

using namespace partsim;

namespace {

void plan_bench(benchmark::State& state, const char* model, const char* config, accpar::Strategy strategy) {
  const auto spec = topology::load_system(std::string(PARTSIM_SOURCE_DIR) + "/configs/" + config);
  const auto graph = workloads::build_zoo(model, 512);
  for (auto _ : state) {
    // What simplan does per plan: the problem, the hierarchy, the search and the evaluation.
    const auto problem = accpar::make_problem(graph, accpar::Mode::training, 2);
    const auto hierarchy = accpar::build_hierarchy(spec);
    auto result = accpar::plan_layers(problem, hierarchy, strategy);
    benchmark::DoNotOptimize(result.iteration_s);
  }
  state.counters["layers"] = static_cast<double>(graph.size());
}

}  // namespace

BENCHMARK_CAPTURE(plan_bench, resnet50_256_accpar, "resnet50", "tpu_v2v3_256.yaml", accpar::Strategy::accpar)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(plan_bench, resnet50_256_hypar, "resnet50", "tpu_v2v3_256.yaml", accpar::Strategy::hypar)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(plan_bench, resnet50_256_dp, "resnet50", "tpu_v2v3_256.yaml", accpar::Strategy::dp)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(plan_bench, vgg19_256_accpar, "vgg19", "tpu_v2v3_256.yaml", accpar::Strategy::accpar)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(plan_bench, resnet50_128_accpar, "resnet50", "tpu_v3_128.yaml", accpar::Strategy::accpar)
    ->Unit(benchmark::kMillisecond);

int main(int argc, char** argv) {
  return partsim::bench::benchmark_main(argc, argv, "accpar_plan_bench",
                                        "planning time of the AccPar family (dp, owt, hypar, accpar; target: resnet50 on 256 devices under 10 ms)");
}
