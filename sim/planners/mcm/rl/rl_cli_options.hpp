#pragma once
// The choices of RlOptions that mcm_rl_train and mcm_test_set take on their command lines, named as
// mcm_rl's strategy options (rl_options.cpp): --start, --ratio, --advantage, --stay-bias. One place so that a
// policy is pre-trained, tested and fine-tuned (simplan --option) with the same settings.

#include <string>

#include <CLI/CLI.hpp>

#include "sim/planners/mcm/rl/rl_search.hpp"

namespace partsim::mcm::rl {

struct RlCliChoices {
  std::string start = "baseline";
  std::string ratio = to_string(RlOptions{}.ratio);
  std::string advantage = "batch";
  double stay_bias = RlOptions{}.stay_bias;

  void add_to(CLI::App& app) {
    app.add_option("--start", start,
                   "RL's y^(0) of eq. 7: baseline (the greedy split) or random (per rollout, a draw as mcm_random's); "
                   "mcm_rl's option start, default baseline")
        ->check(CLI::IsMember({"baseline", "random"}));
    app.add_option("--ratio", ratio,
                   "PPO's probability ratio: joint (of the whole placement) or node (per node); mcm_rl's option "
                   "ratio, default " + ratio)
        ->check(CLI::IsMember({"joint", "node"}));
    app.add_option("--advantage", advantage,
                   "PPO's advantage baseline: batch (the update's mean reward) or start (the reward of the "
                   "rollout's y^(0)); mcm_rl's option advantage, default batch")
        ->check(CLI::IsMember({"batch", "start"}));
    app.add_option("--stay-bias", stay_bias,
                   "added to the logit of each node's previous chip in eq. 7 (0: the policy's own distribution); "
                   "mcm_rl's option stay_bias, default " + CLI::detail::to_string(stay_bias))
        ->check(CLI::Range(0.0, 100.0));
  }

  void apply(RlOptions& o) const {
    o.start = parse_rl_start(start);
    o.ratio = parse_ppo_ratio(ratio);
    o.advantage = parse_rl_advantage(advantage);
    o.stay_bias = stay_bias;
  }
};

}  // namespace partsim::mcm::rl
