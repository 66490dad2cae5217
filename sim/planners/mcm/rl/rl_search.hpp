#pragma once
// The constrained reinforcement learning of seed 002 §4 (Fig. 3): the policy of policy.hpp draws a
// candidate placement y, the FIX-mode constraint solver (Algorithm 2, solver.hpp) repairs it into a
// valid y', the analytical model (cost_model.hpp) scores y', and PPO (Schulman et al. 2017) with the
// clipped objective updates the networks. §5.1's setting: 20 rollouts per update, 4 mini-batches,
// 10 epochs, FIX mode.
//
// One rollout (one sample):
//  - eq. 7, T = `refinements` steps: y^(0) is the baseline's greedy split (searches.hpp, `baseline`, before repair: the
//    paper does not say where the iteration starts; the baseline's split is a state every graph
//    has), and step t draws every node's chip from p(y_i^(t) | h_G, y^(t-1)) at once, with our own
//    seeded draws (solver.hpp draw_index). The logits are the network's, plus `stay_bias` (default
//    0: eq. 7 as the paper writes it) on the node's previous chip, which makes each step a
//    refinement of y^(t-1): at 5 an untrained network moves about 20 % of the nodes on 36 chips, and
//    RL's samples stay near y^(0); at 0 the network's own distribution is sampled and PPO moves it
//    (docs/model.md "Constrained RL": on BERT only the latter passes Random by learning). An
//    untrained network's candidates are then about uniform over the chips, and their FIX repairs
//    need more backtracks (on bert_base_ops some exhaust the budget: see the SAMPLE fallback below);
//  - the last candidate y^(T) goes to solve_fix with a random node order (the paper's default). A
//    repair that gives up (solver max_failures; Algorithm 2 in the paper never does) is replaced by
//    Algorithm 1 (SAMPLE) with step T's distribution p(y_i^(T) | h_G, y^(T-1)) restricted to the
//    domains: a valid y' the policy itself rates, where counting the sample invalid left a
//    pre-trained policy without any valid placement for its first 42 samples on one test graph
//    (random_1904, whose candidates' repairs gave up 15 times in 16). The
//    repaired y' is what is scored and what PPO learns from: its log-probability is
//    sum_i log p(y'_i^(T) | h_G, y^(T-1)) (§4.1: "we use the reward of y' rather than directly using
//    the reward of y"; PPO needs the probability of the action that got the reward);
//  - reward: throughput of y' / throughput of the greedy baseline (the paper's metric, §5.1), 0 when
//    y' fails H(G, f) (memory), as an invalid placement gets zero throughput on the paper's platform.
// Without the solver (use_solver = false, the paper's "RL without constraint solver" baseline), y^(T)
// itself is scored, 0 when it breaks any constraint.
//
// PPO (the paper is silent on all but the three numbers above): no critic; advantages are the
// update's rewards minus a baseline, divided by their standard deviation over the 20 rollouts; the
// baseline is their mean (`advantage` batch, default) or each rollout's start y^(0) (start); the
// probability ratio is the whole placement's (`ratio` joint) or each node's, the rollout's
// advantage shared by its nodes (node, default); clip 0.2; an entropy bonus (mean per-node entropy,
// `entropy`); gradients clipped to norm 1; Adam. Mini-batches are a seeded shuffle of the rollouts,
// each epoch.
//
// Reproducible: torch::manual_seed(seed) before the networks are built (their initial weights), our
// std::mt19937_64(seed) for every draw, libtorch on one thread (its reductions are then in one order).

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "sim/planners/mcm/rl/policy.hpp"
#include "sim/planners/mcm/rl/rl_options.hpp"
#include "sim/planners/mcm/searches.hpp"

namespace partsim::mcm::rl {

/// The advantages of one PPO update: (r_k - b_k) / sd(r), sd the standard deviation of the
/// update's rewards and b_k their mean (batch) or start_rewards[k] (start). Empty when every reward
/// is the same (sd 0: no direction to learn).
std::vector<double> ppo_advantages(const std::vector<double>& rewards, const std::vector<double>& start_rewards,
                                   RlAdvantage kind);

struct RlResult {
  SearchResult search;                 // best placement, trace of the best throughput per sample
  double reference_throughput = 0;     // the greedy baseline's (1/s): rewards are relative to it
  int raw_invalid_samples = 0;         // candidates y^(T) that broke eq. 2-4 or H before repair
  int solver_gave_up = 0;              // FIX repairs that hit max_failures (then SAMPLE from the policy)
  int sample_gave_up = 0;              // of those, SAMPLE draws that hit max_failures too (invalid)
  std::vector<double> mean_reward;     // per update batch (also without training)
  int updates = 0;                     // PPO updates done
  std::vector<Placement> placements;   // every scored placement, when keep_samples
  std::vector<double> rewards;         // every sample's reward (throughput / reference; 0 invalid)
};

/// The networks and their optimiser; kept across graphs by pre-training (mcm_rl_train).
class RlAgent {
 public:
  /// Seeds torch and builds a fresh policy for `chips` chips, or loads `checkpoint` when given.
  RlAgent(int chips, const std::optional<std::string>& checkpoint, double learning_rate, std::uint64_t seed);

  /// Draws options.samples placements of `problem`, updating the policy after every
  /// options.rollouts samples when options.train. The agent's rng continues from call to call.
  RlResult search(const PlacementProblem& problem, const RlOptions& options);

  PlacementPolicy& policy() { return policy_; }
  void save(const std::string& file) { save_policy(policy_, file); }

 private:
  PlacementPolicy policy_{nullptr};
  std::unique_ptr<torch::optim::Adam> optimizer_;
  std::mt19937_64 rng_;
};

/// A fresh (or checkpoint-started) agent seeded with options.seed, then RlAgent::search.
RlResult rl_search(const PlacementProblem& problem, const RlOptions& options,
                   const std::optional<std::string>& checkpoint = std::nullopt);

/// The options of the greedy baseline that `options` measure rewards against: its seed, solver and split.
SearchOptions baseline_options(const RlOptions& options);

/// The greedy baseline: its valid placement and throughput, the reward's unit (when greedy finds no
/// valid placement or its repair gives up: no placement, and C / total compute, a perfectly balanced
/// pipeline without communication).
struct Reference {
  Placement placement;  // empty for the fallback
  double throughput_per_s = 0;
};
Reference greedy_reference(const PlacementProblem& problem, const SearchOptions& options);

}  // namespace partsim::mcm::rl
