#pragma once
// The choices of RlOptions that mcm_rl_train and mcm_test_set take on their command lines, named as
// mcm_rl's strategy options (registration.cpp): --start, --ratio, --advantage. One place so that a
// policy is pre-trained, tested and fine-tuned (simplan --option) with the same settings.

#include <string>

#include <CLI/CLI.hpp>

#include "sim/mcm/rl/rl_search.hpp"

namespace partsim::mcm::rl {

struct RlCliChoices {
  std::string start = "baseline";
  std::string ratio = "joint";
  std::string advantage = "batch";

  void add_to(CLI::App& app) {
    app.add_option("--start", start,
                   "RL's y^(0) of eq. 7: baseline (the greedy split) or random (per rollout, a draw as mcm_random's); "
                   "mcm_rl's option start, default baseline")
        ->check(CLI::IsMember({"baseline", "random"}));
    app.add_option("--ratio", ratio,
                   "PPO's probability ratio: joint (of the whole placement) or node (per node); mcm_rl's option "
                   "ratio, default joint")
        ->check(CLI::IsMember({"joint", "node"}));
    app.add_option("--advantage", advantage,
                   "PPO's advantage baseline: batch (the update's mean reward) or start (the reward of the "
                   "rollout's y^(0)); mcm_rl's option advantage, default batch")
        ->check(CLI::IsMember({"batch", "start"}));
  }

  void apply(RlOptions& o) const {
    o.start = parse_rl_start(start);
    o.ratio = parse_ppo_ratio(ratio);
    o.advantage = parse_rl_advantage(advantage);
  }
};

}  // namespace partsim::mcm::rl
