#include "sim/planners/mcm/rl/rl_search.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <utility>

#include "sim/common/error.hpp"
#include "sim/planners/mcm/constraints.hpp"
#include "sim/planners/mcm/cost_model.hpp"

namespace partsim::mcm::rl {
namespace {

/// One rollout as PPO needs it: the state y^(T-1) the last step saw, the action scored, its
/// log-probability when drawn, and the reward.
struct Rollout {
  Placement previous;
  Placement action;
  std::vector<double> logp_old;  // per node (ratio=node) or one joint value (ratio=joint)
  double reward = 0;
  double start_reward = 0;       // reward of y^(0), the advantage's baseline with advantage=start
};

/// Draws one placement per row of probabilities [B, N, C] (already on the CPU, contiguous).
std::vector<Placement> draw(const torch::Tensor& probs, std::mt19937_64& rng) {
  const auto batch = probs.size(0), n = probs.size(1), c = probs.size(2);
  const torch::Tensor p = probs.to(torch::kFloat64).contiguous();
  const double* data = p.data_ptr<double>();
  std::vector<Placement> out(static_cast<std::size_t>(batch), Placement(static_cast<std::size_t>(n)));
  std::vector<double> weights(static_cast<std::size_t>(c));
  for (std::int64_t b = 0; b < batch; ++b)
    for (std::int64_t v = 0; v < n; ++v) {
      std::copy_n(data + (b * n + v) * c, c, weights.begin());
      out[static_cast<std::size_t>(b)][static_cast<std::size_t>(v)] = static_cast<int>(draw_index(weights, rng));
    }
  return out;
}

/// Rollout b's per-node chip distribution of a [B, N, C] float64 contiguous tensor (solver.hpp).
Distribution distribution(const torch::Tensor& probs, std::int64_t b) {
  const auto n = probs.size(1), c = probs.size(2);
  const double* data = probs.data_ptr<double>() + b * n * c;
  Distribution out(static_cast<std::size_t>(n));
  for (std::int64_t v = 0; v < n; ++v) out[static_cast<std::size_t>(v)].assign(data + v * c, data + (v + 1) * c);
  return out;
}

/// [B, N] int64 tensor of placements.
torch::Tensor as_tensor(const std::vector<Placement>& placements) {
  const auto batch = static_cast<std::int64_t>(placements.size());
  const auto n = static_cast<std::int64_t>(placements.front().size());
  std::vector<std::int64_t> flat;
  flat.reserve(static_cast<std::size_t>(batch * n));
  for (const Placement& f : placements) flat.insert(flat.end(), f.begin(), f.end());
  return torch::from_blob(flat.data(), {batch, n}, torch::kInt64).clone();
}

/// Logits of p(y^(t) | h_G, y^(t-1)) for a batch of previous placements: the network's, plus
/// stay_bias on each node's previous chip (see the header: the iteration refines y^(t-1)).
torch::Tensor step_logits(PlacementPolicy& policy, const GraphTensors& g, const std::vector<Placement>& previous,
                          double stay_bias) {
  const torch::Tensor logits = policy->forward(g, placement_features(g, previous));
  if (stay_bias == 0) return logits;
  return logits + stay_bias * torch::one_hot(as_tensor(previous), g.chips).to(torch::kFloat32);
}

/// log p(action_i) per rollout and node, from logits [B, N, C]: [B, N]; with PpoRatio::joint their
/// sum over the nodes, [B, 1].
torch::Tensor action_log_prob(const torch::Tensor& logits, const torch::Tensor& actions, PpoRatio ratio) {
  const torch::Tensor per_node = torch::log_softmax(logits, 2).gather(2, actions.unsqueeze(2)).squeeze(2);
  return ratio == PpoRatio::joint ? per_node.sum(1, /*keepdim=*/true) : per_node;
}

/// Mean per-node entropy of the distributions, over the batch.
torch::Tensor mean_entropy(const torch::Tensor& logits) {
  const torch::Tensor logp = torch::log_softmax(logits, 2);
  return -(logp.exp() * logp).sum(2).mean();
}

/// Records a scored placement in the search trace; returns its throughput (0 when invalid).
double record(const PlacementProblem& p, const Placement& f, bool valid, SearchResult& r) {
  const std::optional<AnalyticalCost> cost = record_sample(p, f, valid, r);
  return cost ? cost->throughput_per_s() : 0.0;
}

void check_options(const RlOptions& o) {
  if (o.samples < 1 || o.rollouts < 1 || o.minibatches < 1 || o.epochs < 1 || o.refinements < 1)
    throw InputError("mcm_rl: samples, rollouts, minibatches, epochs and refinements must be at least 1");
  if (o.minibatches > o.rollouts)
    throw InputError("mcm_rl: " + std::to_string(o.minibatches) + " mini-batches of " + std::to_string(o.rollouts) +
                     " rollouts leave some empty; use minibatches <= rollouts");
  if (!(o.learning_rate > 0) || !(o.clip > 0) || o.entropy < 0 || o.stay_bias < 0)
    throw InputError("mcm_rl: learning_rate and clip must be positive, entropy and stay_bias non-negative");
}

}  // namespace

std::vector<double> ppo_advantages(const std::vector<double>& rewards, const std::vector<double>& start_rewards,
                                   RlAdvantage kind) {
  if (kind == RlAdvantage::start && start_rewards.size() != rewards.size())
    throw std::logic_error("ppo_advantages: " + std::to_string(rewards.size()) + " rewards, " +
                        std::to_string(start_rewards.size()) + " start rewards");
  if (rewards.empty()) return {};
  const double mean = std::accumulate(rewards.begin(), rewards.end(), 0.0) / static_cast<double>(rewards.size());
  double var = 0;
  for (double r : rewards) var += (r - mean) * (r - mean);
  const double sd = std::sqrt(var / static_cast<double>(rewards.size()));
  if (sd < 1e-12) return {};
  std::vector<double> advantage;
  for (std::size_t k = 0; k < rewards.size(); ++k)
    advantage.push_back((rewards[k] - (kind == RlAdvantage::start ? start_rewards[k] : mean)) / sd);
  return advantage;
}

SearchOptions baseline_options(const RlOptions& o) {
  SearchOptions greedy;
  greedy.seed = o.seed;
  greedy.solver = o.solver;
  greedy.split = o.baseline;
  return greedy;
}

Reference greedy_reference(const PlacementProblem& p, const SearchOptions& options) {
  try {
    SearchResult greedy = greedy_search(p, options);
    if (!greedy.best.empty()) return {std::move(greedy.best), greedy.best_cost.throughput_per_s()};
  } catch (const SolverLimitError&) {
    // greedy's repair gave up: no baseline placement, the fallback below
  }
  const double total = std::accumulate(p.nodes.begin(), p.nodes.end(), 0.0,
                                       [](double s, const Node& n) { return s + n.compute_s; });
  return {{}, total > 0 ? p.chips / total : 1.0};
}

RlAgent::RlAgent(int chips, const std::optional<std::string>& checkpoint, double learning_rate, std::uint64_t seed)
    : rng_(seed) {
  torch::set_num_threads(1);
  torch::manual_seed(seed);
  policy_ = checkpoint ? load_policy(*checkpoint, chips) : PlacementPolicy(PolicyShape{chips, 8, 128});
  optimizer_ = std::make_unique<torch::optim::Adam>(policy_->parameters(), torch::optim::AdamOptions(learning_rate));
}

RlResult RlAgent::search(const PlacementProblem& p, const RlOptions& o) {
  check_options(o);
  if (p.chips != policy_->shape().chips)
    throw InputError("mcm_rl: the policy places on " + std::to_string(policy_->shape().chips) + " chips, '" +
                     p.graph_name + "' is to be placed on " + std::to_string(p.chips));
  for (auto& group : optimizer_->param_groups())
    static_cast<torch::optim::AdamOptions&>(group.options()).lr(o.learning_rate);
  RlResult result;
  result.reference_throughput = greedy_reference(p, baseline_options(o)).throughput_per_s;
  const GraphTensors g = graph_tensors(p);
  PlacementSolver solver(p, o.solver);
  const Placement start = greedy_split(p, o.baseline);

  for (int done = 0; done < o.samples;) {
    const int batch = std::min(o.rollouts, o.samples - done);
    std::vector<Rollout> rollouts(static_cast<std::size_t>(batch));
    {
      torch::NoGradGuard no_grad;
      policy_->eval();
      // eq. 7: T steps, all rollouts of the batch together.
      std::vector<Placement> previous(static_cast<std::size_t>(batch), start);
      if (o.start == RlStart::random)
        for (Placement& y0 : previous) {
          try {
            y0 = solve_sample(solver, random_order(p.size(), rng_), {}, rng_);
          } catch (const SolverLimitError&) {
            // the draw gave up (max_backtracks): this rollout starts from the baseline's split
          }
        }
      if (o.advantage == RlAdvantage::start)
        for (int b = 0; b < batch; ++b) {
          const Placement& y0 = previous[static_cast<std::size_t>(b)];
          rollouts[static_cast<std::size_t>(b)].start_reward =
              is_valid(p, y0)  // eq. 2-4 and H
                  ? analytical_cost(p, y0).throughput_per_s() / result.reference_throughput
                  : 0.0;
        }
      std::vector<Placement> candidates;
      torch::Tensor logits, probs;
      for (int t = 1; t <= o.refinements; ++t) {
        logits = step_logits(policy_, g, previous, o.stay_bias);
        probs = torch::softmax(logits, 2).to(torch::kFloat64).contiguous();
        candidates = draw(probs, rng_);
        if (t < o.refinements) previous = candidates;
      }
      std::vector<Placement> actions;
      for (int b = 0; b < batch; ++b) {
        const Placement& y = candidates[static_cast<std::size_t>(b)];
        const bool raw_valid = is_valid(p, y);
        if (!raw_valid) ++result.raw_invalid_samples;
        Rollout& r = rollouts[static_cast<std::size_t>(b)];
        r.previous = previous[static_cast<std::size_t>(b)];
        bool valid = raw_valid;
        if (o.use_solver) {
          try {
            r.action = solve_fix(solver, random_order(p.size(), rng_), y, rng_);
            valid = memory_violations(p, r.action).empty();  // eq. 2-4 hold by construction
          } catch (const SolverLimitError&) {
            // The repair gave up (max_failures): Algorithm 1 (SAMPLE) draws y' from the same step's
            // distribution restricted to the domains instead (rl_search.hpp). If that gives up too,
            // an invalid sample, learnt from as y itself.
            ++result.solver_gave_up;
            try {
              r.action = solve_sample(solver, random_order(p.size(), rng_), distribution(probs, b), rng_);
              valid = memory_violations(p, r.action).empty();
            } catch (const SolverLimitError&) {
              r.action = y;
              valid = false;
              ++result.sample_gave_up;
            }
          }
        } else {
          r.action = y;
        }
        r.reward = record(p, r.action, valid, result.search) / result.reference_throughput;
        result.rewards.push_back(r.reward);
        if (o.keep_samples) result.placements.push_back(r.action);
        actions.push_back(r.action);
        report_samples(o.progress, result.search, o.samples);
      }
      const torch::Tensor logp = action_log_prob(logits, as_tensor(actions), o.ratio).to(torch::kFloat64).contiguous();
      const auto width = static_cast<std::size_t>(logp.size(1));
      for (int b = 0; b < batch; ++b) {
        const double* row = logp.data_ptr<double>() + static_cast<std::size_t>(b) * width;
        rollouts[static_cast<std::size_t>(b)].logp_old.assign(row, row + width);
      }
    }
    done += batch;
    double mean = 0;
    for (const Rollout& r : rollouts) mean += r.reward;
    mean /= batch;
    result.mean_reward.push_back(mean);
    if (!o.train || batch < 2) continue;

    std::vector<double> rewards, start_rewards;
    for (const Rollout& r : rollouts) {
      rewards.push_back(r.reward);
      start_rewards.push_back(r.start_reward);
    }
    const std::vector<double> advantage = ppo_advantages(rewards, start_rewards, o.advantage);
    if (advantage.empty()) continue;  // every rollout scored the same: no direction to learn
    policy_->train();
    std::vector<int> index(static_cast<std::size_t>(batch));
    for (int e = 0; e < o.epochs; ++e) {
      std::iota(index.begin(), index.end(), 0);
      for (std::size_t k = index.size(); k > 1; --k) std::swap(index[k - 1], index[rng_() % k]);  // our own shuffle
      const int minibatches = std::min(o.minibatches, batch);
      for (int m = 0; m < minibatches; ++m) {
        const int lo = m * batch / minibatches, hi = (m + 1) * batch / minibatches;
        std::vector<Placement> prev, act;
        std::vector<double> adv, old;
        for (int k = lo; k < hi; ++k) {
          const auto i = static_cast<std::size_t>(index[static_cast<std::size_t>(k)]);
          const Rollout& r = rollouts[i];
          prev.push_back(r.previous);
          act.push_back(r.action);
          adv.push_back(advantage[i]);
          old.insert(old.end(), r.logp_old.begin(), r.logp_old.end());
        }
        const torch::Tensor logits = step_logits(policy_, g, prev, o.stay_bias);
        const torch::Tensor logp = action_log_prob(logits, as_tensor(act), o.ratio);
        const auto rows = static_cast<std::int64_t>(prev.size());
        // [rows, 1] advantages broadcast over the nodes with ratio=node.
        const torch::Tensor loss =
            ppo_clipped_loss(logp, torch::tensor(old, torch::kFloat64).to(torch::kFloat32).reshape({rows, -1}),
                             torch::tensor(adv, torch::kFloat64).to(torch::kFloat32).reshape({rows, 1}), o.clip) -
            o.entropy * mean_entropy(logits);
        optimizer_->zero_grad();
        loss.backward();
        torch::nn::utils::clip_grad_norm_(policy_->parameters(), 1.0);
        optimizer_->step();
      }
    }
    ++result.updates;
  }
  return result;
}

RlResult rl_search(const PlacementProblem& problem, const RlOptions& options, const std::optional<std::string>& checkpoint) {
  RlAgent agent(problem.chips, checkpoint, options.learning_rate, options.seed);
  return agent.search(problem, options);
}

}  // namespace partsim::mcm::rl
