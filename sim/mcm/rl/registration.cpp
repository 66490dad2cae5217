#include "sim/mcm/rl/registration.hpp"

#include <limits>

#include "sim/mcm/registration.hpp"
#include "sim/mcm/rl/rl_search.hpp"

namespace partsim::mcm::rl {
namespace {

RlOptions rl_options(const planner::PlanInputs& in) {
  RlOptions o;
  o.seed = in.seed.value_or(1);
  o.solver = solver_options(in);
  o.samples = static_cast<int>(in.resolved.integer("samples"));
  o.rollouts = static_cast<int>(in.resolved.integer("rollouts"));
  o.minibatches = static_cast<int>(in.resolved.integer("minibatches"));
  o.epochs = static_cast<int>(in.resolved.integer("epochs"));
  o.refinements = static_cast<int>(in.resolved.integer("refinements"));
  o.learning_rate = in.resolved.number("learning_rate");
  o.clip = in.resolved.number("clip");
  o.entropy = in.resolved.number("entropy");
  o.stay_bias = in.resolved.number("stay_bias");
  o.train = in.resolved.flag("train");
  o.use_solver = in.resolved.flag("solver");
  return o;
}

plan::Plan make_plan(const planner::PlanInputs& in) {
  const PlacementProblem problem = inference_problem(in);
  const RlOptions o = rl_options(in);
  const std::string& checkpoint = in.resolved.text("checkpoint");
  const RlResult r = rl_search(problem, o, checkpoint.empty() ? std::nullopt : std::optional<std::string>(checkpoint));
  if (!o.use_solver && r.search.best.empty())
    throw InputError("mcm_rl without the solver: no valid placement of '" + in.workload_name + "' in " +
                     std::to_string(r.search.samples) + " samples (every one broke eq. 2-4 or H(G, f); seed 002 §5.1 "
                     "saw the same)");
  plan::Plan p = plan_from_search(problem, r.search, in);
  p.family["rl"] = {{"reference_throughput_per_s", r.reference_throughput},
                    {"reference", "mcm_greedy (rewards are throughput / this)"},
                    {"checkpoint", checkpoint.empty() ? nlohmann::json(nullptr) : nlohmann::json(checkpoint)},
                    {"updates", r.updates},
                    {"mean_reward_per_update", r.mean_reward},
                    {"raw_invalid_samples", r.raw_invalid_samples},
                    {"solver_gave_up", r.solver_gave_up},
                    {"solver", in.resolved.flag("solver")}};
  return p;
}

}  // namespace

void register_strategies(planner::StrategyRegistry& registry) {
  using planner::OptionSpec;
  using planner::OptionType;
  const planner::OptionRange at_least_one{1};
  std::vector<OptionSpec> options{
      {"samples", OptionType::integer, "200", "placements drawn, repaired and evaluated (rollouts in all)", {}, at_least_one},
      {"rollouts", OptionType::integer, "20", "rollouts per PPO update (seed 002 §5.1: 20)", {}, at_least_one},
      {"minibatches", OptionType::integer, "4", "PPO mini-batches per epoch, at most rollouts (§5.1: 4)", {}, at_least_one},
      {"epochs", OptionType::integer, "10", "PPO epochs per update (§5.1: 10)", {}, at_least_one},
      {"refinements", OptionType::integer, "2", "T of eq. 7: policy steps per sample, each fed the previous placement",
       {}, {1, 16}},
      {"learning_rate", OptionType::number, "0.001", "Adam learning rate", {}, {0, 1, true}},
      {"clip", OptionType::number, "0.2", "PPO clip epsilon", {}, {0, 1, true, true}},
      {"entropy", OptionType::number, "0.01", "weight of the entropy bonus in the PPO loss", {}},
      {"stay_bias", OptionType::number, "5",
       "added to the logit of each node's previous chip: each eq. 7 step refines the last (0: none)", {}},
      {"train", OptionType::boolean, "true", "update the policy (false: zero-shot, samples from the policy as it is)", {}},
      {"solver", OptionType::boolean, "true",
       "repair every sample with the FIX-mode solver (false: the paper's RL-without-solver baseline, §5.1)", {}},
      {"checkpoint", OptionType::text, "", "start from these pre-trained weights (written by mcm_rl_train)", {}},
  };
  for (OptionSpec s : solver_option_specs()) {
    // A repair that needs this many backtracks is rare and costs a minute at 100000 on BERT; RL
    // counts it as an invalid sample and goes on, so it gets a smaller budget than the searches.
    if (s.key == "max_backtracks") s.default_value = "5000";
    options.push_back(s);
  }
  planner::StrategyInfo info;
  info.name = "mcm_rl";
  info.description =
      "MCM placement, constrained RL (seed 002 §4): GraphSAGE + policy, eq. 7 iteration, FIX-mode solver, PPO";
  info.options = std::move(options);
  info.stochastic = true;
  info.plan = make_plan;
  info.check = check_mcm_plan;
  registry.add(std::move(info));
}

}  // namespace partsim::mcm::rl
