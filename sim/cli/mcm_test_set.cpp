// mcm_test_set: seed 002's Fig. 5 / Table 2 setting. On a seeded test set of random DAGs that
// pre-training never saw (graph_sets.hpp), every search runs from scratch on every graph for the
// same number of samples: Random, SA, RL from scratch and, given a pre-trained policy
// (mcm_rl_train --out), RL zero-shot (no updates) and RL fine-tuned. Each sample's running best
// throughput is divided by the graph's greedy baseline (mcm_greedy with --split; mcm_rl's reward
// unit), and the curves are the geometric mean over the graphs per sample count (0 until every
// graph has a valid placement). Rewards come from the analytical model.
//
//   mcm_test_set --config configs/mcm_ring36.yaml [--checkpoint policy.pt] [--graphs 16] [--samples 100]
// One JSON object on stdout: per strategy its geomean curve, per graph its size, its command-line
// form (`workload`: random_dag:seed=...), baseline, the final improvement of every strategy and the
// placements behind them (`placements`: greedy's and every search's best, a chip per node, null
// where there is none), and the wall time. scripts/mcm_test_set.py renders it and replays the
// placements on SimGrid (mcm_pipeline --workload W --placement LIST).

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/cli/command_line.hpp"
#include "sim/common/wall_clock.hpp"
#include "sim/planners/mcm/rl/graph_sets.hpp"
#include "sim/planners/mcm/rl/rl_cli_options.hpp"
#include "sim/planners/mcm/rl/rl_search.hpp"
#include "topology/system_parser.hpp"

namespace partsim {
namespace {

struct TestSettings {
  mcm::rl::GraphSetOptions graphs{1, 16, 10, 120};
  int samples = 100;
  mcm::GreedySplit baseline = mcm::GreedySplit::compute;
};

/// One search on one graph: the running best throughput after every sample (1/s; 0 = none yet), and
/// why samples were not valid.
struct SearchOutcome {
  std::vector<double> best;
  mcm::Placement placement;          // the best valid placement; empty when there is none
  int invalid_samples = 0;           // every sample scored 0 (failed H, or a repair that gave up)
  std::optional<int> solver_gave_up;  // RL's FIX repairs that hit max_failures (then SAMPLE-d from the policy)
};
using Search = std::function<SearchOutcome(const mcm::PlacementProblem&)>;

SearchOutcome outcome(const mcm::SearchResult& r) { return {r.best_throughput, r.best, r.invalid_samples, std::nullopt}; }

/// A placement as JSON: a chip per node, or null for none.
nlohmann::json placement_json(const mcm::Placement& f) { return f.empty() ? nlohmann::json(nullptr) : nlohmann::json(f); }

int body(int argc, char** argv) {
  std::string config, checkpoint, split = "compute";
  TestSettings s;
  CLI::App app("mcm_test_set: Random, SA and constrained RL on an unseen test set of random DAGs, geomean "
               "improvement over the greedy baseline per sample (MCM paper Fig. 5 / Table 2)", "mcm_test_set");
  app.add_option("--config", config, "Platform (a uni-directional ring, e.g. configs/mcm_ring36.yaml)")->required();
  app.add_option("--checkpoint", checkpoint, "Pre-trained policy (mcm_rl_train --out): adds RL zero-shot and fine-tuned");
  app.add_option("--graphs", s.graphs.count, "Test graphs (default 16, as the paper's test set)")->check(CLI::Range(1, 100));
  app.add_option("--samples", s.samples, "Samples per search and graph (default 100)")->check(CLI::Range(1, 100000));
  app.add_option("--min-nodes", s.graphs.min_nodes, "Smallest random graph (default 10)")->check(CLI::Range(2, 100000));
  app.add_option("--max-nodes", s.graphs.max_nodes, "Largest random graph (default 120)")->check(CLI::Range(2, 100000));
  app.add_option("--seed", s.graphs.seed,
                 "Names the test set (mcm_rl_train's --seed: its training and validation sets are disjoint from it) "
                 "and seeds every search (default 1)");
  app.add_option("--split", split, "Greedy baseline: compute or memory (default compute; mcm_greedy's option split)")
      ->check(CLI::IsMember({"compute", "memory"}));
  mcm::rl::RlCliChoices rl_choices;  // use the pre-training's
  rl_choices.add_to(app);
  cli::parse(app, argc, argv);
  s.baseline = mcm::parse_greedy_split(split);
  if (s.graphs.min_nodes > s.graphs.max_nodes)
    throw InputError("--min-nodes " + std::to_string(s.graphs.min_nodes) + " exceeds --max-nodes " +
                     std::to_string(s.graphs.max_nodes));

  const auto t0 = std::chrono::steady_clock::now();
  const topology::SystemSpec spec = topology::load_system(config);
  const auto test = mcm::rl::graph_set(spec, mcm::rl::GraphSet::test, s.graphs);
  const auto test_dags = mcm::rl::graph_set_dags(mcm::rl::GraphSet::test, s.graphs);
  if (!checkpoint.empty()) mcm::rl::load_policy(checkpoint, test.front().chips);  // a bad one fails now, not after hours

  mcm::SearchOptions search;
  search.samples = s.samples;
  search.seed = s.graphs.seed;
  mcm::rl::RlOptions rl_options;  // the RL searches' settings; their baseline is every search's
  rl_options.samples = s.samples;
  rl_options.seed = s.graphs.seed;
  rl_options.baseline = s.baseline;
  rl_choices.apply(rl_options);
  const auto rl = [&](bool train, std::optional<std::string> from) -> Search {
    return [&rl_options, train, from](const mcm::PlacementProblem& p) {
      mcm::rl::RlOptions o = rl_options;
      o.train = train;
      const mcm::rl::RlResult r = mcm::rl::rl_search(p, o, from);
      SearchOutcome out = outcome(r.search);
      out.solver_gave_up = r.solver_gave_up;
      return out;
    };
  };
  std::vector<std::pair<std::string, Search>> searches{
      {"mcm_random", [&](const mcm::PlacementProblem& p) { return outcome(mcm::random_search(p, search)); }},
      {"mcm_sa", [&](const mcm::PlacementProblem& p) { return outcome(mcm::annealing_search(p, search)); }},
      {"mcm_rl", rl(true, std::nullopt)}};
  if (!checkpoint.empty()) {
    searches.emplace_back("mcm_rl zero-shot", rl(false, checkpoint));
    searches.emplace_back("mcm_rl fine-tuned", rl(true, checkpoint));
  }

  const mcm::SearchOptions greedy = mcm::rl::baseline_options(rl_options);  // mcm_rl's own reward unit
  const auto n = static_cast<std::size_t>(s.samples);
  std::vector<std::vector<double>> log_sum(searches.size(), std::vector<double>(n, 0.0));
  std::vector<std::vector<bool>> some_zero(searches.size(), std::vector<bool>(n, false));
  nlohmann::json graphs = nlohmann::json::array();
  for (std::size_t g = 0; g < test.size(); ++g) {
    const mcm::PlacementProblem& p = test[g];
    const mcm::rl::Reference reference = mcm::rl::greedy_reference(p, greedy);
    const double base = reference.throughput_per_s;
    nlohmann::json placements = {{"mcm_greedy", placement_json(reference.placement)}};  // null: the fallback
    nlohmann::json finals = nlohmann::json::object();
    nlohmann::json first_valid = nlohmann::json::object();  // 1-based sample of the first valid placement
    nlohmann::json invalid = nlohmann::json::object(), gave_up = nlohmann::json::object();
    for (std::size_t k = 0; k < searches.size(); ++k) {
      const SearchOutcome found = searches[k].second(p);
      const std::vector<double>& best = found.best;
      invalid[searches[k].first] = found.invalid_samples;
      if (found.solver_gave_up) gave_up[searches[k].first] = *found.solver_gave_up;
      first_valid[searches[k].first] = nullptr;  // none within the budget
      for (std::size_t i = 0; i < n; ++i) {
        // a search that stopped early (none do today) keeps its last best
        const double x = (best.empty() ? 0.0 : best[std::min(i, best.size() - 1)]) / base;
        if (x > 0) {
          log_sum[k][i] += std::log(x);
          if (first_valid[searches[k].first].is_null()) first_valid[searches[k].first] = i + 1;
        } else {
          some_zero[k][i] = true;
        }
      }
      finals[searches[k].first] = (best.empty() ? 0.0 : best.back()) / base;
      placements[searches[k].first] = placement_json(found.placement);
    }
    graphs.push_back({{"name", p.graph_name},
                      {"workload", workloads::random_dag_spec(test_dags[g])},
                      {"nodes", p.size()},
                      {"greedy_throughput_per_s", base},
                      {"final_improvement", finals},
                      {"first_valid_sample", first_valid},
                      {"invalid_samples", invalid},
                      {"solver_gave_up", gave_up},
                      {"placements", placements}});
    std::cerr << "mcm_test_set: " << p.graph_name << " (" << p.size() << " nodes) done\n";
  }
  nlohmann::json curves = nlohmann::json::object();
  for (std::size_t k = 0; k < searches.size(); ++k) {
    std::vector<double> geomean(n);
    for (std::size_t i = 0; i < n; ++i)
      geomean[i] = some_zero[k][i] ? 0.0 : std::exp(log_sum[k][i] / static_cast<double>(test.size()));
    curves[searches[k].first] = geomean;
  }
  const nlohmann::json report = {
      {"config", config},
      {"seed", s.graphs.seed},
      {"split", split},
      {"start", rl_choices.start},
      {"ratio", rl_choices.ratio},
      {"advantage", rl_choices.advantage},
      {"stay_bias", rl_choices.stay_bias},
      {"samples", s.samples},
      {"checkpoint", checkpoint.empty() ? nlohmann::json(nullptr) : nlohmann::json(checkpoint)},
      {"graphs", graphs},
      {"geomean_improvement_per_sample", curves},
      {"seconds", seconds_since(t0)}};
  std::cout << report.dump() << "\n";
  return 0;
}

}  // namespace
}  // namespace partsim

int main(int argc, char** argv) { return partsim::cli::run_main("mcm_test_set", partsim::body, argc, argv); }
