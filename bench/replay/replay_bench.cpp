// replay_bench: the 2-D all-reduce of seed 003 §II-D (reduce-scatter along X, all-reduce along Y of
// the 1/M shard, all-gather along X) of 100 MB per chip on torus_8pf_asym (4 x 16 chips, 120/40
// GB/s), replayed on SimGrid at chip granularity (64 hosts) and at core granularity (2048 cores +
// 64 memories), as simrun --collective replays it: the Program of its steps (collective_program.hpp).
// Prints, per granularity: simulated and closed-form time, their difference, SimGrid
// activities, wall time, activities per second and peak resident memory.
//
// SimGrid runs one simulation per process, so every run happens in a forked child
// (run_in_child.hpp); its ru_maxrss is the peak memory of that run alone.
//
// Usage: replay_bench [--config FILE] [--bytes B] [--only chip|core]; replay_bench --help

#include <sys/resource.h>

#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "bench/replay/collective_program.hpp"
#include "bench/replay/run_in_child.hpp"
#include "sim/cli/command_line.hpp"
#include "sim/collectives/collectives.hpp"
#include "sim/common/error.hpp"
#include "topology/system_parser.hpp"

using namespace partsim;

namespace {

struct Result {
  int hosts = 0;
  double simulated_s = 0;
  double closed_form_s = 0;
  double formula_s = 0;
  double activities = 0;
  double replay_wall_s = 0;
  double total_wall_s = 0;
  double peak_rss_mb = 0;
  int ok = 0;
};

Result run_one(const std::string& config, double bytes, topology::Granularity granularity) {
  const auto t0 = std::chrono::steady_clock::now();
  Result r;
  const topology::TopologyGraph graph(topology::load_system(config), granularity);
  collectives::Request request;
  request.collective = "all_reduce";
  request.axis = "all";
  request.bytes = bytes;
  const auto schedule = collectives::build_schedule(request, graph);
  r.closed_form_s = collectives::evaluate(collectives::lower_to_nodes(schedule, graph), graph);
  r.formula_s = collectives::formula_time(request, graph);
  const auto stats = bench::replay_collective(graph, schedule);
  r.simulated_s = stats.simulated_s;
  r.activities = static_cast<double>(stats.activities);
  r.replay_wall_s = stats.wall_s;
  for (int n = 0; n < graph.node_count(); ++n) r.hosts += graph.node(n).is_endpoint();
  r.total_wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  r.peak_rss_mb = static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
  r.ok = 1;
  return r;
}


int body(int argc, char** argv) {
  std::string config = std::string(PARTSIM_SOURCE_DIR) + "/configs/torus_8pf_asym.yaml";
  double bytes = 100e6;
  std::string only;
  CLI::App app("replay_bench: the 2-D all-reduce of seed 003 on SimGrid at chip and core granularity against its "
               "closed form; wall time, activities/s, peak memory",
               "replay_bench");
  app.add_option("--config", config, "Platform YAML file (default configs/torus_8pf_asym.yaml)")->check(CLI::ExistingFile);
  app.add_option("--bytes", bytes, "Bytes per chip (default 100e6)")->check(CLI::Range(1.0, 1e15));
  app.add_option("--only", only, "Only this granularity")->check(CLI::IsMember({"chip", "core"}));
  cli::parse(app, argc, argv);
  std::printf("2-D all-reduce (seed 003 §II-D), %.0f bytes per chip, %s\n", bytes, config.c_str());
  std::printf("%-6s %6s %14s %14s %10s %10s %9s %12s %10s\n", "gran.", "hosts", "simulated_s", "closed_form_s",
              "rel_diff", "activities", "wall_s", "activities/s", "peak_MB");
  int failures = 0;
  double formula = 0;
  for (auto g : {topology::Granularity::chip, topology::Granularity::core}) {
    if (!only.empty() && only != topology::to_string(g)) continue;
    bool ok = false;
    const Result r = bench::run_in_child<Result>([&] { return run_one(config, bytes, g); }, ok);
    if (!ok || !r.ok) {
      std::printf("%-6s failed\n", topology::to_string(g).c_str());
      ++failures;
      continue;
    }
    const double rel = (r.simulated_s - r.closed_form_s) / r.closed_form_s;
    formula = r.formula_s;
    std::printf("%-6s %6d %14.9e %14.9e %+9.5f%% %10.0f %9.3f %12.0f %10.1f\n", topology::to_string(g).c_str(), r.hosts,
                r.simulated_s, r.closed_form_s, 100 * rel, r.activities, r.replay_wall_s,
                r.activities / r.replay_wall_s, r.peak_rss_mb);
    if (std::abs(rel) > 1e-3) ++failures;
  }
  std::printf("hosts: endpoints (chips; or cores + external memories). Textbook closed form (chip level, "
              "formulas.hpp torus_all_reduce_time): %.9e s\n", formula);
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return cli::run_main("replay_bench", body, argc, argv); }
