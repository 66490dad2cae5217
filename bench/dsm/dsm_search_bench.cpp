// Search time of the DeepSpatialMatrix planner (issue 5 targets: vgg16 under 1 s, gnmt under 2 s on
// configs/torus_8pf.yaml with all optimizations). Prints the median of several runs per case.
//   dsm_search_bench [CONFIG]   (default configs/torus_8pf.yaml); --help prints this usage
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "sim/cli/command_line.hpp"
#include "sim/planners/dsm/search.hpp"
#include "topology/system_parser.hpp"
#include "workloads/zoo.hpp"

using namespace partsim;

namespace {

int body(int argc, char** argv) {
  std::string config = PARTSIM_SOURCE_DIR "/configs/torus_8pf.yaml";
  CLI::App app("dsm_search_bench: median search time of the dsm planner (vgg16, gnmt, resnet50 at batch 512 and "
               "2048, all and no optimizations) against issue 5's targets",
               "dsm_search_bench");
  app.add_option("config", config, "Platform YAML file (default configs/torus_8pf.yaml)")->check(CLI::ExistingFile);
  cli::parse(app, argc, argv);
  const dsm::DsmSystem sys = dsm::make_dsm_system(topology::load_system(config));
  struct Case {
    const char* workload;
    long long batch;
    double target_s;
  };
  std::printf("%-10s %6s %-20s %12s %10s %8s\n", "workload", "batch", "options", "search_s", "target_s", "ok");
  for (const Case c : {Case{"vgg16", 512, 1.0}, Case{"vgg16", 2048, 1.0}, Case{"gnmt", 512, 2.0},
                       Case{"gnmt", 2048, 2.0}, Case{"resnet50", 512, 1.0}}) {
    const workloads::Graph g = workloads::build_zoo(c.workload, c.batch);
    for (const char* opts : {"all", "none"}) {
      std::vector<double> times;
      double iteration = 0;
      for (int rep = 0; rep < 5; ++rep) {
        const auto t0 = std::chrono::steady_clock::now();
        const dsm::GroupChain net = dsm::build_group_chain(g);
        const dsm::DsmResult r = dsm::search_network(net, sys, dsm::parse_dsm_options({opts}));
        const auto t1 = std::chrono::steady_clock::now();
        iteration = r.iteration_s;
        times.push_back(std::chrono::duration<double>(t1 - t0).count());
      }
      std::sort(times.begin(), times.end());
      const double median = times[times.size() / 2];
      std::printf("%-10s %6lld %-20s %12.4f %10.1f %8s   (iteration %.3f ms)\n", c.workload, c.batch, opts, median,
                  c.target_s, median < c.target_s ? "yes" : "NO", iteration * 1e3);
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return cli::run_main("dsm_search_bench", body, argc, argv); }
