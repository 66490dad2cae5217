// mcm_rl_train: the pre-training phase of seed 002 §4.3 (Fig. 4). A training worker runs the
// constrained RL (rl_search.hpp) over a seeded training set of random DAGs (workloads/random_dag.hpp),
// one policy and optimiser for all of them, and writes a checkpoint every --checkpoint-every training
// graphs; a validation worker scores every checkpoint zero-shot (no updates, --validation-samples
// samples per graph, a fixed seed) on a seeded validation set, the score being the geometric mean
// over the graphs of the best throughput relative to mcm_greedy. The best checkpoint is saved to
// --out (torch::save, loadable with mcm_rl's checkpoint=FILE). The paper's validation worker can
// also rank by fine-tuning; we rank zero-shot only (cheaper, and what deployment starts from).
// Both workers run in this one process, one after the other (2 cores).
//
// Graph seeds: graph_sets.hpp (training seed*1000 + k, validation seed*1000 + 500 + k; the test set
// of mcm_test_set, seed*1000 + 900 + k, is unseen by both).
//
//   mcm_rl_train --config configs/mcm_ring36.yaml --out policy.pt [--train 12 --validation 3 ...]
// One JSON object on stdout: per checkpoint its validation score, the chosen one, the time.

#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "sim/cli/command_line.hpp"
#include "sim/common/wall_clock.hpp"
#include "sim/planners/mcm/rl/graph_sets.hpp"
#include "sim/planners/mcm/rl/rl_cli_options.hpp"
#include "sim/planners/mcm/rl/rl_search.hpp"
#include "topology/system_parser.hpp"

namespace partsim {
namespace {

struct TrainSettings {
  int train_graphs = 12, validation_graphs = 3;
  int min_nodes = 10, max_nodes = 120;
  int samples_per_visit = 40;  // rollouts per visit of a training graph (2 PPO updates of 20)
  int passes = 2;              // over the training set
  int checkpoint_every = 4;    // training graphs between checkpoints
  int validation_samples = 20;
  double learning_rate = 1e-3;
  double time_limit_s = 0;     // 0: none; else stop training (after a checkpoint) past it
  std::uint64_t seed = 1;
  mcm::GreedySplit baseline = mcm::GreedySplit::compute;  // reward unit (and y^(0) with start=baseline)
  mcm::rl::RlCliChoices rl;                                // --start, --ratio, --advantage, --stay-bias
};

/// Zero-shot geomean of best throughput / greedy over the validation set.
double validate(const std::vector<mcm::PlacementProblem>& set, const std::string& checkpoint, const TrainSettings& s) {
  double log_sum = 0;
  for (const mcm::PlacementProblem& p : set) {
    mcm::rl::RlOptions o;
    o.samples = s.validation_samples;
    o.train = false;
    o.seed = s.seed;
    o.baseline = s.baseline;
    s.rl.apply(o);
    const mcm::rl::RlResult r = mcm::rl::rl_search(p, o, checkpoint);
    const double best = r.search.best.empty() ? 0.0 : r.search.best_cost.throughput_per_s();
    log_sum += std::log(std::max(best / r.reference_throughput, 1e-9));
  }
  return std::exp(log_sum / static_cast<double>(set.size()));
}

int body(int argc, char** argv) {
  std::string config, out_file;
  TrainSettings s;
  CLI::App app("mcm_rl_train: pre-trains the mcm_rl policy on random DAGs, checkpoint chosen on a validation set "
               "(MCM paper §4.3)", "mcm_rl_train");
  app.add_option("--config", config, "Platform (a uni-directional ring, e.g. configs/mcm_ring36.yaml)")->required();
  app.add_option("--out", out_file, "Where the chosen checkpoint goes")->required();
  app.add_option("--train", s.train_graphs, "Training graphs (default 12)")->check(CLI::Range(1, 500));
  app.add_option("--validation", s.validation_graphs, "Validation graphs (default 3)")->check(CLI::Range(1, 400));
  app.add_option("--min-nodes", s.min_nodes, "Smallest random graph (default 10)")->check(CLI::Range(2, 100000));
  app.add_option("--max-nodes", s.max_nodes, "Largest random graph (default 120)")->check(CLI::Range(2, 100000));
  app.add_option("--samples-per-visit", s.samples_per_visit, "Rollouts per visit of a training graph (default 40)")
      ->check(CLI::Range(1, 100000));
  app.add_option("--passes", s.passes, "Passes over the training set (default 2)")->check(CLI::Range(1, 10000));
  app.add_option("--checkpoint-every", s.checkpoint_every, "Training graphs between checkpoints (default 4)")
      ->check(CLI::Range(1, 100000));
  app.add_option("--validation-samples", s.validation_samples, "Zero-shot samples per validation graph (default 20)")
      ->check(CLI::Range(1, 100000));
  app.add_option("--learning-rate", s.learning_rate, "Adam learning rate (default 0.001)")->check(CLI::Range(1e-9, 1.0));
  app.add_option("--time-limit", s.time_limit_s, "Stop training after this many seconds (at a checkpoint; 0: none)")
      ->check(CLI::Range(0.0, 1e9));
  app.add_option("--seed", s.seed, "Seeds the graphs, the networks and every draw (default 1)");
  std::string baseline = "compute";
  app.add_option("--split", baseline,
                 "Greedy baseline of every graph (reward unit and y^(0)): compute or memory (default compute; "
                 "mcm_greedy's option split)")
      ->check(CLI::IsMember({"compute", "memory"}));
  s.rl.add_to(app);
  cli::parse(app, argc, argv);
  s.baseline = mcm::parse_greedy_split(baseline);
  if (s.min_nodes > s.max_nodes) throw InputError("--min-nodes " + std::to_string(s.min_nodes) + " exceeds --max-nodes " + std::to_string(s.max_nodes));

  const auto t0 = std::chrono::steady_clock::now();
  const auto elapsed = [&] { return seconds_since(t0); };
  const topology::SystemSpec spec = topology::load_system(config);
  const auto set = [&](mcm::rl::GraphSet which, int count) {
    return mcm::rl::graph_set(spec, which, {s.seed, count, s.min_nodes, s.max_nodes});
  };
  const auto train = set(mcm::rl::GraphSet::training, s.train_graphs);
  const auto validation = set(mcm::rl::GraphSet::validation, s.validation_graphs);
  const int chips = train.front().chips;

  mcm::rl::RlAgent agent(chips, std::nullopt, s.learning_rate, s.seed);
  const std::string scratch = out_file + ".candidate";
  nlohmann::json checkpoints = nlohmann::json::array();
  double best_score = -1;
  int best_index = -1, visits = 0, updates = 0;
  bool stop = false;
  const auto checkpoint = [&] {
    agent.save(scratch);
    const double score = validate(validation, scratch, s);
    checkpoints.push_back({{"visits", visits}, {"updates", updates}, {"seconds", elapsed()}, {"validation_geomean", score}});
    std::cerr << "mcm_rl_train: checkpoint " << checkpoints.size() - 1 << " after " << visits << " graphs: validation "
              << score << "x greedy (" << elapsed() << " s)\n";
    if (score > best_score) {
      best_score = score;
      best_index = static_cast<int>(checkpoints.size()) - 1;
      std::filesystem::rename(scratch, out_file);
    }
    if (s.time_limit_s > 0 && elapsed() > s.time_limit_s) stop = true;
  };
  checkpoint();  // the untrained policy is checkpoint 0: pre-training must beat it to be chosen
  for (int pass = 0; pass < s.passes && !stop; ++pass)
    for (std::size_t k = 0; k < train.size() && !stop; ++k) {
      mcm::rl::RlOptions o;
      o.samples = s.samples_per_visit;
      o.learning_rate = s.learning_rate;
      o.seed = s.seed;
      o.baseline = s.baseline;
      s.rl.apply(o);
      updates += agent.search(train[k], o).updates;
      ++visits;
      if (visits % s.checkpoint_every == 0) checkpoint();
    }
  if (visits % s.checkpoint_every != 0 && !stop) checkpoint();
  std::filesystem::remove(scratch);
  const nlohmann::json report = {{"out", out_file},
                                 {"seed", s.seed},
                                 {"split", mcm::to_string(s.baseline)},
                                 {"start", s.rl.start},
                                 {"ratio", s.rl.ratio},
                                 {"advantage", s.rl.advantage},
                                 {"stay_bias", s.rl.stay_bias},
                                 {"training_graphs", s.train_graphs},
                                 {"validation_graphs", s.validation_graphs},
                                 {"graph_visits", visits},
                                 {"ppo_updates", updates},
                                 {"chosen_checkpoint", best_index},
                                 {"chosen_validation_geomean", best_score},
                                 {"checkpoints", checkpoints},
                                 {"seconds", elapsed()}};
  std::cout << report.dump() << "\n";
  return 0;
}

}  // namespace
}  // namespace partsim

int main(int argc, char** argv) { return partsim::cli::run_main("mcm_rl_train", partsim::body, argc, argv); }
