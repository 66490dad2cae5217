// mcm_rl's choices and option bindings (rl_options.hpp): no libtorch, so that the registry entry
// declares the options the plugin reads.
#include "sim/planners/mcm/rl/rl_options.hpp"

#include "sim/common/error.hpp"
#include "sim/planners/mcm/registration.hpp"

namespace partsim::mcm::rl {

RlStart parse_rl_start(const std::string& text) {
  if (text == "baseline") return RlStart::baseline;
  if (text == "random") return RlStart::random;
  throw InputError("mcm_rl: start '" + text + "': allowed baseline, random");
}

std::string to_string(RlStart start) { return start == RlStart::baseline ? "baseline" : "random"; }

std::string to_string(PpoRatio ratio) { return ratio == PpoRatio::joint ? "joint" : "node"; }

std::string to_string(RlAdvantage advantage) { return advantage == RlAdvantage::batch ? "batch" : "start"; }

PpoRatio parse_ppo_ratio(const std::string& text) {
  if (text == "joint") return PpoRatio::joint;
  if (text == "node") return PpoRatio::node;
  throw InputError("mcm_rl: ratio '" + text + "': allowed joint, node");
}

RlAdvantage parse_rl_advantage(const std::string& text) {
  if (text == "batch") return RlAdvantage::batch;
  if (text == "start") return RlAdvantage::start;
  throw InputError("mcm_rl: advantage '" + text + "': allowed batch, start");
}

planner::OptionBindings<RlStrategyOptions> option_bindings() {
  using O = RlStrategyOptions;
  const planner::OptionRange at_least_one{1};
  planner::OptionBindings<O> b;
  b.integer("samples", &O::samples, "200", "placements drawn, repaired and evaluated (rollouts in all)", at_least_one);
  b.integer("rollouts", &O::rollouts, "20", "rollouts per PPO update (MCM paper §5.1: 20)", at_least_one);
  b.integer("minibatches", &O::minibatches, "4", "PPO mini-batches per epoch, at most rollouts (§5.1: 4)", at_least_one);
  b.integer("epochs", &O::epochs, "10", "PPO epochs per update (§5.1: 10)", at_least_one);
  b.integer("refinements", &O::refinements, "2", "T of eq. 7: policy steps per sample, each fed the previous placement",
            {1, 16});
  b.number("learning_rate", &O::learning_rate, "0.001", "Adam learning rate", {0, 1, true});
  b.number("clip", &O::clip, "0.2", "PPO clip epsilon", {0, 1, true, true});
  b.number("entropy", &O::entropy, "0.01", "weight of the entropy bonus in the PPO loss", {});
  b.number("stay_bias", &O::stay_bias, "0",
           "added to the logit of each node's previous chip, so each eq. 7 step refines the last (0: the policy's own "
           "distribution, as eq. 7 has it)",
           {});
  b.flag("train", &O::train, "true", "update the policy (false: zero-shot, samples from the policy as it is)");
  b.flag("solver", &O::use_solver, "true",
         "repair every sample with the FIX-mode solver (false: the paper's RL-without-solver baseline, §5.1)");
  bind_greedy_split(b, &O::baseline);
  b.choice("start", &O::start, {"baseline", "random"}, parse_rl_start, "baseline",
           "y^(0) of eq. 7: baseline = the greedy split (split=) for every rollout, random = per rollout a placement "
           "drawn as mcm_random draws one");
  b.choice("ratio", &O::ratio, {"joint", "node"}, parse_ppo_ratio, "node",
           "PPO's probability ratio: joint = of the whole placement, node = per node, sharing the rollout's advantage");
  b.choice("advantage", &O::advantage, {"batch", "start"}, parse_rl_advantage, "batch",
           "the advantage's baseline: batch = the update's mean reward, start = the reward of the rollout's y^(0)");
  b.text("checkpoint", &O::checkpoint, "", "start from these pre-trained weights (written by mcm_rl_train)");
  // A repair that needs this many backtracks is rare and costs a minute at 100000 on BERT; RL then
  // draws in SAMPLE mode from the policy instead (rl_search.hpp), so it gets a smaller budget.
  b.nest(&O::solver, solver_option_bindings("5000"));
  return b;
}

}  // namespace partsim::mcm::rl
