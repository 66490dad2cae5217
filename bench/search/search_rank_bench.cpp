// search_rank_bench: how well the `search` strategy's evaluators rank its candidates (issue 44: "say
// how well it ranks them"). Runs one search (seeds from every registered strategy, the walk with the
// flow evaluator), keeps every candidate it priced, replays a sample of them on SimGrid and prints,
// per candidate, the closed form, the flow evaluator and the replay; then Spearman's rank
// correlation of each evaluator with the replay and the flow evaluator's largest relative error.
//
// Usage: search_rank_bench [--config FILE] [--set KEY=VALUE ...] [--workload NAME] [--batch B]
//                          [--candidates N] [--sample K] [--seed S] [--gradient-sync-order ...] [--gradient-bucket SIZE]
//        search_rank_bench --help

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "bench/replay/plan_bench_options.hpp"
#include "bench/replay/run_in_child.hpp"
#include "sim/cli/command_line.hpp"
#include "sim/common/error.hpp"
#include "sim/lowering/sharding_lowering.hpp"
#include "sim/planners/builtin_strategies.hpp"
#include "sim/planners/search/registration.hpp"
#include "sim/planners/search/search.hpp"
#include "sim/program/platform_binding.hpp"
#include "sim/replay/program_replay.hpp"
#include "topology/system_parser.hpp"
#include "workloads/workload_file.hpp"

using namespace partsim;

namespace {

// Ranks 1..n, ties sharing their mean rank.
std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<std::size_t> order(v.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    for (std::size_t k = i; k <= j; ++k) r[order[k]] = (static_cast<double>(i + j) / 2) + 1;
    i = j + 1;
  }
  return r;
}

// Spearman's rho: Pearson's r of the ranks.
double spearman(const std::vector<double>& a, const std::vector<double>& b) {
  const std::vector<double> ra = ranks(a), rb = ranks(b);
  const double n = static_cast<double>(ra.size());
  double ma = 0, mb = 0;
  for (std::size_t i = 0; i < ra.size(); ++i) {
    ma += ra[i] / n;
    mb += rb[i] / n;
  }
  double sab = 0, saa = 0, sbb = 0;
  for (std::size_t i = 0; i < ra.size(); ++i) {
    sab += (ra[i] - ma) * (rb[i] - mb);
    saa += (ra[i] - ma) * (ra[i] - ma);
    sbb += (rb[i] - mb) * (rb[i] - mb);
  }
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : 1.0;
}

int body(int argc, char** argv) {
  bench::PlanBenchOptions o("p100_4node.yaml", "alexnet", 512, "search");
  long long candidates = 300, sample = 40;
  std::uint64_t seed = 1;
  CLI::App app("search_rank_bench: one search's candidates, a sample of them replayed on SimGrid: Spearman's rank "
               "correlation of the closed form and of the flow evaluator with the replay, and the flow evaluator's "
               "largest error",
               "search_rank_bench");
  o.add_to(app);
  app.add_option("--candidates", candidates, "candidates the walk prices (default 300)")->check(CLI::Range(1LL, 1'000'000LL));
  app.add_option("--sample", sample, "candidates replayed, spread evenly over those priced (default 40)")
      ->check(CLI::Range(2LL, 100'000LL));
  app.add_option("--seed", seed, "the walk's seed (default 1)");
  cli::parse(app, argc, argv);
  std::printf("%s; %lld candidates, %lld replayed, seed %llu\n", o.describe().c_str(), candidates, sample,
              static_cast<unsigned long long>(seed));

  const topology::SystemSpec spec = topology::load_system(o.config, o.overrides);
  const workloads::Graph workload = workloads::load_workload(o.workload, o.batch);
  const auto& registry = planner::builtin_strategies();
  planner::PlanInputs inputs{spec, workload, o.workload, plan::Mode::training, {}, seed};
  if (o.sync.any()) {
    plan::ScheduleDirectives given;
    o.sync.apply_to(given);
    inputs.schedule = given;
  }
  std::map<std::string, std::string> refusals;
  const std::vector<search::Candidate> seeds =
      search::plan_seeds(registry, inputs, search::family_names(), refusals);
  struct Priced {
    search::Candidate candidate;
    double closed_s, flow_s;
  };
  std::vector<Priced> priced;
  search::SearchOptions walk;
  walk.budget_s = 0;
  walk.candidates = candidates;
  walk.seed = seed;
  walk.search_schedule = !inputs.schedule;
  walk.on_priced = [&](const search::Candidate& c, const search::Price& p) {
    if (p.usable()) priced.push_back({c, p.closed_s, p.predicted_s});
  };
  const search::Pricer pricer(registry, spec, workload, search::EvaluatorKind::flow);
  search::run_search(seeds, pricer, workload, spec.device_count(), plan::Mode::training, walk);

  const topology::TopologyGraph graph(spec, topology::Granularity::chip);
  std::vector<double> closed, flow, simgrid;
  double worst = 0, replay_wall = 0;
  const std::size_t n = priced.size(), k = std::min<std::size_t>(static_cast<std::size_t>(sample), n);
  std::printf("%6s %-10s %14s %14s %14s %11s\n", "cand.", "origin", "closed_s", "flow_s", "simgrid_s", "flow_err");
  for (std::size_t s = 0; s < k; ++s) {
    const Priced& p = priced[s * n / k];
    const search::Candidate& c = p.candidate;
    const lowering::Context context{c.plan, spec, workload, graph};
    const program::Program program =
        c.lowered_by.empty() ? lowering::lower_sharding(context) : registry.find(c.lowered_by).lower(context);
    const program::TransferRoutes routes(program, graph);
    // SimGrid runs once per process: each replay in a child of its own.
    const auto t0 = std::chrono::steady_clock::now();
    bool ok = false;
    const double simulated = bench::run_in_child<double>(
        [&] { return replay::SimGridEvaluator(graph, {}, replay::LoneTransfers::timed).evaluate(program, routes).makespan_s; }, ok);
    replay_wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!ok) throw Error("the replay of candidate " + std::to_string(s * n / k) + " failed");
    closed.push_back(p.closed_s);
    flow.push_back(p.flow_s);
    simgrid.push_back(simulated);
    worst = std::max(worst, std::abs(p.flow_s / simulated - 1));
    std::printf("%6zu %-10s %14.9g %14.9g %14.9g %+11.3e\n", s * n / k, c.origin.c_str(), p.closed_s, p.flow_s, simulated,
                p.flow_s / simulated - 1);
  }
  std::printf("replayed %zu of %zu priced candidates in %.2f s of SimGrid\n", k, n, replay_wall);
  std::printf("Spearman rank correlation with the replay: closed form %.4f, flow evaluator %.4f; flow's largest |error| %.3e\n",
              spearman(closed, simgrid), spearman(flow, simgrid), worst);
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return cli::run_main("search_rank_bench", body, argc, argv); }
