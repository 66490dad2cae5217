#pragma once
// mcm_rl's options without libtorch: RlOptions (what rl_search.hpp's search reads), the choices it
// names, and the strategy's option bindings, which both the registry entry (registration.cpp, no
// libtorch: the declarations) and the plugin (plugin.cpp: the values) use.

#include <cstdint>
#include <string>

#include "sim/planners/mcm/searches.hpp"
#include "sim/planners/option_bindings.hpp"

namespace partsim::mcm::rl {

/// y^(0) of eq. 7 (the paper does not say): the greedy baseline's split for every rollout, or per
/// rollout a placement drawn as mcm_random draws one (uniform distribution, SAMPLE-mode solver).
enum class RlStart { baseline, random };
RlStart parse_rl_start(const std::string& text);
std::string to_string(RlStart start);

/// PPO's probability ratio: of the whole placement (joint: exp of the sum over the nodes of the
/// log-probability change), or per node with the rollout's advantage shared by its nodes (node: the
/// usual treatment of a factorised action; a joint ratio over hundreds of nodes leaves the clip
/// range after a small step).
enum class PpoRatio { joint, node };
PpoRatio parse_ppo_ratio(const std::string& text);
std::string to_string(PpoRatio ratio);

/// The advantage's baseline: the mean reward of the update's rollouts, or each rollout's own start
/// y^(0) (its reward under the same model: what the policy's refinement added to it).
enum class RlAdvantage { batch, start };
RlAdvantage parse_rl_advantage(const std::string& text);
std::string to_string(RlAdvantage advantage);

/// The search's settings (rl_search.hpp says what each does).
struct RlOptions {
  int samples = 200;          // rollouts in all (each one a scored placement)
  int rollouts = 20;          // per PPO update (§5.1)
  int minibatches = 4;        // §5.1
  int epochs = 10;            // §5.1
  int refinements = 2;        // T of eq. 7
  double learning_rate = 1e-3;
  double clip = 0.2;          // PPO's epsilon
  double entropy = 0.01;      // weight of the entropy bonus
  double stay_bias = 0.0;     // added to the logit of each node's previous chip (0: the policy's own eq. 7)
  bool train = true;          // false: zero-shot, samples from the policy as it is
  bool use_solver = true;     // false: the paper's RL-without-solver baseline
  bool keep_samples = false;  // RlResult::placements gets every scored placement (tests, curves)
  GreedySplit baseline = GreedySplit::compute;  // the greedy baseline: reward unit (and y^(0) with start=baseline)
  RlStart start = RlStart::baseline;             // where eq. 7's iteration starts
  PpoRatio ratio = PpoRatio::node;
  RlAdvantage advantage = RlAdvantage::batch;
  std::uint64_t seed = 1;
  SolverOptions solver = rl_solver_options();
  ProgressCallback progress;  // told after each scored sample (sim/common/progress.hpp); empty: nothing

  /// The solver's defaults with max_failures 5000: a repair needing more is rare, costs a minute at
  /// the searches' 100000 on BERT, and RL then draws y' in SAMPLE mode from the policy (rl_search.hpp).
  static SolverOptions rl_solver_options() {
    SolverOptions o;
    o.max_failures = 5000;
    return o;
  }
};

/// mcm_rl's strategy options: the search's, and the pre-trained weights it starts from.
struct RlStrategyOptions : RlOptions {
  std::string checkpoint;  // "" = a fresh policy
};

/// Every mcm_rl option, declared and bound to its field (the seed, progress and keep_samples are not
/// options).
planner::OptionBindings<RlStrategyOptions> option_bindings();

}  // namespace partsim::mcm::rl
