// MARS search speed (issue 16): wall time and the latency found against first-level generations,
// ResNet101 inference on configs/f1_16xlarge.yaml, one thread (the search is single-threaded).
// Target: the paper's mapping quality within 60 s on 2 cores.
// Usage: mars_search_bench [WORKLOAD] [GENERATIONS...]   (default: resnet101 0 5 10 20 40); --help
// Prints one row per generation count: generations, seconds, latency found (ms), evaluations.

#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "sim/cli/command_line.hpp"
#include "sim/common/error.hpp"
#include "sim/planners/mars/search.hpp"
#include "topology/system_parser.hpp"
#include "workloads/zoo.hpp"

using namespace partsim;

namespace {

int body(int argc, char** argv) {
  std::string workload = "resnet101";
  std::vector<int> generations;
  CLI::App app("mars_search_bench: MARS search time and latency found against first-level generations "
               "(inference, batch 1, configs/f1_16xlarge.yaml)",
               "mars_search_bench");
  app.add_option("workload", workload, "Zoo workload (default resnet101)");
  app.add_option("generations", generations, "Generation counts, one row each (default 0 5 10 20 40)")
      ->check(CLI::Range(0, 100000));
  cli::parse(app, argc, argv);
  if (generations.empty()) generations = {0, 5, 10, 20, 40};
  const auto spec = topology::load_system(std::string(PARTSIM_SOURCE_DIR) + "/configs/f1_16xlarge.yaml");
  const auto graph = workloads::build_zoo(workload, 1);
  const auto base_model = mars::LatencyModel(spec, graph);
  std::printf("# %s on f1_16xlarge, inference batch 1; baseline %.3f ms\n", workload.c_str(),
              mars::baseline(base_model).latency_s * 1e3);
  std::printf("generations  seconds  latency_ms  evaluations\n");
  for (int g : generations) {
    const mars::LatencyModel model(spec, graph);  // a fresh cost cache per row: honest timings
    mars::SearchOptions o;
    o.generations = g;
    o.seed = 1;
    mars::SearchTrace trace;
    const auto t0 = std::chrono::steady_clock::now();
    const auto best = mars::search(model, o, &trace);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%11d  %7.2f  %10.3f  %11lld\n", g, s, best.latency_s * 1e3, trace.evaluations);
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return cli::run_main("mars_search_bench", body, argc, argv); }
