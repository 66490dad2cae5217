// The constrained RL search (sim/planners/mcm/rl, seed 002 §4): GraphSAGE's mean aggregation and PPO's
// clipped loss against numbers worked out by hand, seeded reproducibility, the validity of every
// sample that went through the FIX-mode solver, and that learning does improve the samples.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numeric>
#include <set>

#include "sim/planners/mcm/constraints.hpp"
#include "sim/planners/mcm/rl/graph_sets.hpp"
#include "sim/planners/mcm/rl/rl_search.hpp"
#include "tests/mcm/tiny_ring.hpp"
#include "topology/system_parser.hpp"
#include "tests/support/run_command.hpp"
#include "workloads/random_dag.hpp"
#include "workloads/workload_file.hpp"

namespace partsim::mcm::rl {
namespace {

const std::string kRing = std::string(PARTSIM_TEST_DATA_DIR) + "/platforms/mcm_ring36.yaml";

/// 0 -> 1, 0 -> 2, 1 -> 2.
GraphTensors triangle() {
  GraphTensors g;
  g.chips = 2;
  g.static_features = torch::zeros({3, kStaticFeatures});
  g.edge_from = torch::tensor({0, 0, 1}, torch::kInt64);
  g.edge_to = torch::tensor({1, 2, 2}, torch::kInt64);
  g.in_degree = torch::tensor({1.0f, 1.0f, 2.0f}).reshape({3, 1});   // node 0 has none: clamped to 1
  g.out_degree = torch::tensor({2.0f, 1.0f, 1.0f}).reshape({3, 1});  // node 2 has none: clamped to 1
  return g;
}

TEST(GraphSage, MeanAggregationOverInAndOutNeighboursByHand) {
  const GraphTensors g = triangle();
  const torch::Tensor h = torch::tensor({1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f}).reshape({1, 3, 2});
  // in: node 0 none -> 0; node 1 <- 0: (1, 2); node 2 <- 0, 1: ((1+3)/2, (2+4)/2) = (2, 3).
  EXPECT_TRUE(torch::allclose(mean_in_neighbours(g, h), torch::tensor({0.0f, 0.0f, 1.0f, 2.0f, 2.0f, 3.0f}).reshape({1, 3, 2})));
  // out: node 0 -> 1, 2: (4, 5); node 1 -> 2: (5, 6); node 2 none -> 0.
  EXPECT_TRUE(torch::allclose(mean_out_neighbours(g, h), torch::tensor({4.0f, 5.0f, 5.0f, 6.0f, 0.0f, 0.0f}).reshape({1, 3, 2})));

  // One layer, 2 -> 1, weights on [h ; mean_in ; mean_out] = [1, -1, 0.5, 0, 0, 2], bias 0.5:
  //   node 0: 1 - 2 + 0.5*0 + 2*5 + 0.5 = 9.5;  node 1: 3 - 4 + 0.5*1 + 2*6 + 0.5 = 12;
  //   node 2: 5 - 6 + 0.5*2 + 2*0 + 0.5 = 0.5.  With bias -1 node 2 is -1 -> relu 0.
  SageLayer layer(2, 1);
  {
    torch::NoGradGuard no_grad;
    layer->linear->weight.copy_(torch::tensor({1.0f, -1.0f, 0.5f, 0.0f, 0.0f, 2.0f}).reshape({1, 6}));
    layer->linear->bias.fill_(0.5f);
  }
  EXPECT_TRUE(torch::allclose(layer->forward(g, h), torch::tensor({9.5f, 12.0f, 0.5f}).reshape({1, 3, 1})));
  {
    torch::NoGradGuard no_grad;
    layer->linear->bias.fill_(-1.0f);
  }
  EXPECT_TRUE(torch::allclose(layer->forward(g, h), torch::tensor({8.0f, 10.5f, 0.0f}).reshape({1, 3, 1})));
}

TEST(GraphSage, LinearThroughOneDnnByHand) {
  // W = [[1, 2], [3, 4], [5, 6]] (2 -> 3), b = (0.5, -1, 2); x = [[[1, 1]], [[2, -1]]] ([2, 1, 2]).
  //   y(1, 1) = (1+2+0.5, 3+4-1, 5+6+2) = (3.5, 6, 13);  y(2, -1) = (2-2+0.5, 6-4-1, 10-6+2) = (0.5, 1, 6).
  // loss = sum(y): dW[j] = x summed over rows = (3, 0) for every j; db = 2 per output;
  //   dx per row = column sums of W = (9, 12).
  torch::nn::Linear layer(2, 3);
  {
    torch::NoGradGuard no_grad;
    layer->weight.copy_(torch::tensor({1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f}).reshape({3, 2}));
    layer->bias.copy_(torch::tensor({0.5f, -1.0f, 2.0f}));
  }
  const torch::Tensor x = torch::tensor({1.0f, 1.0f, 2.0f, -1.0f}).reshape({2, 1, 2}).requires_grad_(true);
  ASSERT_TRUE(at::hasMKLDNN()) << "Debian's libtorch is built with oneDNN (USE_MKLDNN=ON); apply_linear relies on it for speed";
  const torch::Tensor y = apply_linear(layer, x);
  // Through oneDNN: the autograd graph behind y holds oneDNN's linear (walk the first inputs).
  std::string ops;
  for (auto node = y.grad_fn(); node; node = node->next_edges().empty() ? nullptr : node->next_edges()[0].function)
    ops += std::string(node->name()) + " ";
  EXPECT_NE(ops.find("MkldnnLinear"), std::string::npos) << ops;
  EXPECT_EQ(y.sizes().vec(), (std::vector<std::int64_t>{2, 1, 3}));
  EXPECT_TRUE(torch::allclose(y, torch::tensor({3.5f, 6.0f, 13.0f, 0.5f, 1.0f, 6.0f}).reshape({2, 1, 3})));
  y.sum().backward();
  EXPECT_TRUE(torch::allclose(layer->weight.grad(), torch::tensor({3.0f, 0.0f, 3.0f, 0.0f, 3.0f, 0.0f}).reshape({3, 2})));
  EXPECT_TRUE(torch::allclose(layer->bias.grad(), torch::tensor({2.0f, 2.0f, 2.0f})));
  EXPECT_TRUE(torch::allclose(x.grad(), torch::tensor({9.0f, 12.0f, 9.0f, 12.0f}).reshape({2, 1, 2})));
}

TEST(GraphSage, LinearThroughOneDnnEqualsTorchLinear) {
  // The policy's own shape (a GraphSAGE layer's 3 x 128 -> 128 on 5 rollouts of 224 nodes): values
  // and gradients as libtorch's own linear gives them, to float32 rounding.
  torch::manual_seed(3);
  torch::nn::Linear layer(384, 128);
  const torch::Tensor x = torch::randn({5, 224, 384}).requires_grad_(true);
  const torch::Tensor upstream = torch::randn({5, 224, 128});
  (apply_linear(layer, x) * upstream).sum().backward();
  const torch::Tensor gx = x.grad().clone(), gw = layer->weight.grad().clone(), gb = layer->bias.grad().clone();
  x.mutable_grad() = torch::Tensor();
  layer->weight.mutable_grad() = torch::Tensor();
  layer->bias.mutable_grad() = torch::Tensor();
  const torch::Tensor y = torch::linear(x, layer->weight, layer->bias);
  (y * upstream).sum().backward();
  EXPECT_TRUE(torch::allclose(apply_linear(layer, x), y, 1e-4, 1e-4));
  EXPECT_TRUE(torch::allclose(gx, x.grad(), 1e-4, 1e-3));
  EXPECT_TRUE(torch::allclose(gw, layer->weight.grad(), 1e-4, 1e-2));
  EXPECT_TRUE(torch::allclose(gb, layer->bias.grad(), 1e-4, 1e-3));
}

TEST(Ppo, ClippedLossAndItsGradientByHand) {
  // ratios 1.5, 0.5, 1.1 (logp_old = 0), advantages 1, -1, 2, clip 0.2:
  //   min(1.5, 1.2) = 1.2 (clipped);  min(-0.5, -0.8) = -0.8 (clipped);  min(2.2, 2.2) = 2.2.
  //   loss = -(1.2 - 0.8 + 2.2) / 3.  Gradient: 0 where the clipped term is the minimum, else
  //   -r A / 3: only the third, -1.1 * 2 / 3.
  const torch::Tensor logp_new =
      torch::tensor({std::log(1.5), std::log(0.5), std::log(1.1)}, torch::kFloat64).requires_grad_(true);
  const torch::Tensor loss = ppo_clipped_loss(logp_new, torch::zeros({3}, torch::kFloat64),
                                              torch::tensor({1.0, -1.0, 2.0}, torch::kFloat64), 0.2);
  EXPECT_NEAR(loss.item<double>(), -2.6 / 3, 1e-12);
  loss.backward();
  const torch::Tensor grad = logp_new.grad();
  EXPECT_NEAR(grad[0].item<double>(), 0.0, 1e-12);
  EXPECT_NEAR(grad[1].item<double>(), 0.0, 1e-12);
  EXPECT_NEAR(grad[2].item<double>(), -2.2 / 3, 1e-12);
}

TEST(Ppo, PerNodeRatioClipsEachNodeJointRatioClipsThePlacement) {
  // One rollout of two nodes, advantage 1, clip 0.2. New probabilities 0.5 and 0.5, old 0.25 and 0.5.
  // ratio=node: ratios 2 (clipped to 1.2) and 1: loss -(1.2 + 1) / 2 = -1.1.
  // ratio=joint: one ratio (0.5 * 0.5) / (0.25 * 0.5) = 2, clipped: loss -1.2.
  const torch::Tensor new_nodes = torch::tensor({std::log(0.5), std::log(0.5)}, torch::kFloat64).reshape({1, 2});
  const torch::Tensor old_nodes = torch::tensor({std::log(0.25), std::log(0.5)}, torch::kFloat64).reshape({1, 2});
  const torch::Tensor advantage = torch::ones({1, 1}, torch::kFloat64);
  EXPECT_NEAR(ppo_clipped_loss(new_nodes, old_nodes, advantage, 0.2).item<double>(), -1.1, 1e-12);
  EXPECT_NEAR(ppo_clipped_loss(new_nodes.sum(1, true), old_nodes.sum(1, true), advantage, 0.2).item<double>(), -1.2,
              1e-12);
}

TEST(Ppo, AdvantagesOverTheBatchMeanOrEachRolloutsStart) {
  // Rewards 1, 2, 3: mean 2, standard deviation sqrt(2/3).
  const double sd = std::sqrt(2.0 / 3.0);
  const std::vector<double> batch = ppo_advantages({1, 2, 3}, {}, RlAdvantage::batch);
  ASSERT_EQ(batch.size(), 3u);
  EXPECT_NEAR(batch[0], -1 / sd, 1e-12);
  EXPECT_NEAR(batch[1], 0.0, 1e-12);
  EXPECT_NEAR(batch[2], 1 / sd, 1e-12);
  // Starts 1.5, 2, 0: what each rollout added to its own start, in the same unit.
  const std::vector<double> start = ppo_advantages({1, 2, 3}, {1.5, 2, 0}, RlAdvantage::start);
  ASSERT_EQ(start.size(), 3u);
  EXPECT_NEAR(start[0], -0.5 / sd, 1e-12);
  EXPECT_NEAR(start[1], 0.0, 1e-12);
  EXPECT_NEAR(start[2], 3 / sd, 1e-12);
  // Equal rewards: nothing to learn, whatever the starts.
  EXPECT_TRUE(ppo_advantages({2, 2}, {1, 3}, RlAdvantage::start).empty());
  EXPECT_THROW(ppo_advantages({1, 2}, {1}, RlAdvantage::start), std::logic_error);
  EXPECT_THROW(parse_rl_advantage("critic"), InputError);
  EXPECT_THROW(parse_ppo_ratio("mean"), InputError);
}

TEST(RlSearch, TheBaselineSplitIsTheRewardUnit) {
  // The diamond on 4 chips with the memory split (test_strategies.cpp, by hand): x, a, b on chip 0,
  // c, d on chip 1, latency 4.201 us. RL's rewards are relative to that throughput.
  const PlacementProblem p = make_problem(test::tiny_ring(4), test::diamond());
  RlOptions o;
  o.samples = 2;
  o.rollouts = 2;
  o.minibatches = 1;
  o.train = false;
  o.baseline = GreedySplit::memory;
  const RlResult r = rl_search(p, o, std::nullopt);
  EXPECT_NEAR(r.reference_throughput, 1 / 4.201e-6, 1e-3);
  ASSERT_EQ(r.rewards.size(), 2u);
  // A reward is the sample's throughput in that unit: the best reward is the best throughput / 1/4.201 us.
  EXPECT_NEAR(*std::max_element(r.rewards.begin(), r.rewards.end()), r.search.best_throughput.back() * 4.201e-6, 1e-9);
}

PlacementProblem random_graph_on_ring36(std::uint64_t seed, int max_nodes) {
  workloads::RandomDagOptions o;
  o.seed = seed;
  o.min_nodes = 20;
  o.max_nodes = max_nodes;
  return make_problem(topology::load_system(kRing), workloads::random_dag(o));
}

RlOptions small_options(std::uint64_t seed) {
  RlOptions o;
  o.samples = 8;
  o.rollouts = 4;
  o.minibatches = 2;
  o.epochs = 2;
  o.seed = seed;
  o.keep_samples = true;
  return o;
}

TEST(RlSearch, SameSeedSamePlacementsAndEverySampleValid) {
  const PlacementProblem p = random_graph_on_ring36(7, 60);
  const RlResult a = rl_search(p, small_options(3)), b = rl_search(p, small_options(3));
  ASSERT_EQ(a.placements.size(), 8u);
  EXPECT_EQ(a.placements, b.placements);
  EXPECT_EQ(a.search.best, b.search.best);
  EXPECT_EQ(a.rewards, b.rewards);
  EXPECT_EQ(a.updates, 2);
  // Every sample went through the FIX-mode solver: eq. 2-4 always hold; H (memory) is checked
  // after, and this graph's tensors fit (each sample is then scored > 0).
  for (std::size_t k = 0; k < a.placements.size(); ++k) {
    const auto found = violations(p, a.placements[k]);
    EXPECT_TRUE(found.empty()) << "sample " << k << ": " << (found.empty() ? "" : found.front().message);
    EXPECT_GT(a.rewards[k], 0.0) << "sample " << k;
  }
  EXPECT_EQ(a.search.invalid_samples, 0);
  // Another seed draws other placements.
  EXPECT_NE(rl_search(p, small_options(4)).placements, a.placements);
}

TEST(RlSearch, StartIsTheGreedySplitOrARandomDrawPerRollout) {
  // With a stay bias of 100 on one step, a node leaves its y^(0) chip with probability
  // 35 / (35 + e^100) ~ 0: every candidate is y^(0). start=baseline: the greedy split for every
  // rollout, so every sample is the split (valid as it is, the repair keeps it). start=random: each
  // rollout starts from its own SAMPLE-mode draw, so the samples differ, and eq. 2-4 hold.
  const PlacementProblem p = random_graph_on_ring36(7, 60);
  RlOptions o = small_options(3);
  o.samples = 4;
  o.train = false;
  o.refinements = 1;
  o.stay_bias = 100;
  const Placement split = greedy_split(p, GreedySplit::compute);
  ASSERT_TRUE(is_valid(p, split));
  const RlResult from_split = rl_search(p, o);
  ASSERT_EQ(from_split.placements.size(), 4u);
  for (const Placement& f : from_split.placements) EXPECT_EQ(f, split);
  o.start = RlStart::random;
  const RlResult from_draws = rl_search(p, o);
  ASSERT_EQ(from_draws.placements.size(), 4u);
  std::set<Placement> distinct(from_draws.placements.begin(), from_draws.placements.end());
  EXPECT_EQ(distinct.size(), 4u);
  for (const Placement& f : from_draws.placements) {
    EXPECT_NE(f, split);
    EXPECT_TRUE(violations(p, f).empty());
  }
  EXPECT_EQ(parse_rl_start("random"), RlStart::random);
  EXPECT_THROW(parse_rl_start("uniform"), InputError);
}

TEST(RlSearch, ARepairThatGivesUpIsDrawnInSampleModeFromThePolicy) {
  // stay_bias 0: the untrained policy's candidates are about uniform over 36 chips, far from valid;
  // with a budget of 2 backtracks FIX gives up on them, and Algorithm 1 (SAMPLE) draws y' from the
  // same distribution within the domains instead (rl_search.hpp). Only a SAMPLE draw that gives up
  // too is invalid (this graph's tensors fit: H never fails).
  const PlacementProblem p = random_graph_on_ring36(7, 60);
  RlOptions o = small_options(3);
  o.samples = 20;
  o.rollouts = 20;
  o.train = false;
  o.stay_bias = 0;
  o.solver.max_failures = 2;
  const RlResult r = rl_search(p, o);
  ASSERT_EQ(r.placements.size(), 20u);
  EXPECT_GT(r.solver_gave_up, 0);
  EXPECT_LT(r.sample_gave_up, r.solver_gave_up);  // SAMPLE rescued some
  EXPECT_EQ(r.search.invalid_samples, r.sample_gave_up);
  int scored = 0;
  for (std::size_t k = 0; k < r.placements.size(); ++k)
    if (r.rewards[k] > 0) {
      ++scored;
      const auto found = violations(p, r.placements[k]);
      EXPECT_TRUE(found.empty()) << "sample " << k << ": " << (found.empty() ? "" : found.front().message);
    }
  EXPECT_EQ(scored, 20 - r.sample_gave_up);
}

TEST(RlSearch, WithoutTheSolverSamplesBreakTheConstraints) {
  // The paper's baseline (§5.1): raw policy samples are scored as they are, 0 when invalid. An
  // untrained policy spreads 36 chips over the nodes: every sample breaks eq. 2.
  const PlacementProblem p = random_graph_on_ring36(7, 60);
  RlOptions o = small_options(3);
  o.use_solver = false;
  const RlResult r = rl_search(p, o);
  EXPECT_EQ(r.search.invalid_samples, 8);
  EXPECT_EQ(r.raw_invalid_samples, 8);
  EXPECT_TRUE(r.search.best.empty());
}

/// A chain of 12 fc layers of uneven widths on 4 chips: where the cuts go decides the balance.
workloads::Graph uneven_chain() {
  workloads::NetBuilder b("uneven_chain", "");
  std::string x = b.input("x", {256, 1, 1});
  const int widths[] = {256, 512, 128, 384, 256, 512, 128, 256, 384, 128, 512, 256};
  for (int k = 0; k < 12; ++k) x = b.fc("fc" + std::to_string(k), x, widths[k]);
  return b.build(1);
}

class RlLearning : public ::testing::TestWithParam<PpoRatio> {};

TEST_P(RlLearning, ImprovesOverTheFirstSamples) {
  // PPO at the paper's settings (20 rollouts, 4 mini-batches, 10 epochs), 7 updates over 8 batches:
  // over four seeds, the mean reward of the last two batches beats the first two's by 5 % (the first
  // batch comes from the untrained policy; one batch alone is noisy: the FIX repair draws too, and a
  // single seed's run moves with float rounding). Measured: first two 0.80 / 0.87 / 0.81 / 0.86, last
  // two 0.82 / 0.97 / 1.09 / 0.93 of greedy's throughput (seeds 1-4); 7 of seeds 1-8 gain over 5 %.
  // Both PPO ratios (rl_search.hpp): mean of the four seeds, first two -> last two batches,
  // joint 0.834 -> 0.953, node 0.830 -> 1.041.
  const PlacementProblem p = make_problem(test::tiny_ring(4), uneven_chain());
  double first = 0, last = 0;
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    RlOptions o;
    o.samples = 160;
    o.seed = seed;
    // No pull towards the previous chip: on 4 chips the FIX repair of any candidate is cheap, and with
    // the default bias the samples start next to greedy's split (0.97 of its throughput) and PPO
    // settles on it (1.00): too little room to show learning on this small a graph.
    o.stay_bias = 0;
    o.ratio = GetParam();
    const RlResult r = rl_search(p, o);
    ASSERT_EQ(r.mean_reward.size(), 8u);
    EXPECT_GT(r.updates, 0);
    first += (r.mean_reward[0] + r.mean_reward[1]) / 8;
    last += (r.mean_reward[6] + r.mean_reward[7]) / 8;
    EXPECT_GT(r.search.best_cost.throughput_per_s(), r.reference_throughput) << "seed " << seed;  // beats greedy
  }
  EXPECT_GT(last, first * 1.05) << "first two batches " << first << ", last two " << last << " (mean of 4 seeds)";
}

std::string ratio_name(const ::testing::TestParamInfo<PpoRatio>& param) {
  return param.param == PpoRatio::joint ? "joint" : "node";
}
INSTANTIATE_TEST_SUITE_P(BothRatios, RlLearning, ::testing::Values(PpoRatio::joint, PpoRatio::node), ratio_name);

}  // namespace
}  // namespace partsim::mcm::rl

namespace partsim::mcm::rl {
namespace {

TEST(McmRlStrategy, SimplanPlansBertAndMcmPipelineReplaysIt) {
  const std::string bin = std::string(PARTSIM_BIN_DIR) + "/";
  const std::string plan = testing::TempDir() + "mcm_rl_plan.json";
  const std::string base = bin + "simplan --config " + kRing +
                           " --workload bert_base_ops --batch 1 --mode inference --strategy mcm_rl --seed 1 "
                           "--option samples=4 --option rollouts=4 --option minibatches=2 --option epochs=1 ";
  std::string out;
  ASSERT_EQ(test::run_command(base + "-o " + plan, &out), 0) << out;
  ASSERT_EQ(test::run_command(bin + "mcm_pipeline --config " + kRing + " --plan " + plan, &out), 0) << out;
  EXPECT_NE(out.find("\"strategy\":\"mcm_rl\""), std::string::npos) << out;
  // The bottleneck chip's two terms add up to the model's latency (max over chips of compute + receive).
  const nlohmann::json replayed = nlohmann::json::parse(out.substr(out.find('{')));
  EXPECT_NEAR(replayed["analytical_bottleneck_compute_s"].get<double>() + replayed["analytical_bottleneck_receive_s"].get<double>(),
              replayed["analytical_latency_s"].get<double>(), 1e-15);
  EXPECT_GT(replayed["analytical_bottleneck_receive_s"].get<double>(), 0.0);  // BERT's chips receive activations
  // A bad option: one line, exit 2.
  EXPECT_EQ(test::run_command(base + "--option minibatches=0 -o " + plan + ".bad", &out), 2);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
}

TEST(GraphSets, TrainingValidationAndTestSetsAreDisjoint) {
  const topology::SystemSpec ring = topology::load_system(kRing);
  const auto names = [&](GraphSet set) {
    std::vector<std::string> out;
    for (const PlacementProblem& p : graph_set(ring, set, {7, 3, 10, 40})) out.push_back(p.graph_name);
    return out;
  };
  EXPECT_EQ(names(GraphSet::training), (std::vector<std::string>{"random_7000", "random_7001", "random_7002"}));
  EXPECT_EQ(names(GraphSet::validation), (std::vector<std::string>{"random_7500", "random_7501", "random_7502"}));
  EXPECT_EQ(names(GraphSet::test), (std::vector<std::string>{"random_7900", "random_7901", "random_7902"}));
  EXPECT_THROW(graph_set(ring, GraphSet::test, {7, 101, 10, 40}), InputError);  // would reach seed 8000
  // A set's graph on the command line (simplan --workload, mcm_pipeline --workload): the same problem.
  const std::string spec = workloads::random_dag_spec(graph_set_dags(GraphSet::test, {7, 3, 10, 40})[1]);
  EXPECT_EQ(spec, "random_dag:seed=7901,min_nodes=10,max_nodes=40");
  const PlacementProblem named = make_problem(ring, workloads::load_workload(spec, 1));
  const PlacementProblem in_set = graph_set(ring, GraphSet::test, {7, 3, 10, 40})[1];
  ASSERT_EQ(named.size(), in_set.size());
  for (std::size_t v = 0; v < named.nodes.size(); ++v) EXPECT_EQ(named.nodes[v].compute_s, in_set.nodes[v].compute_s) << v;
}

TEST(McmTestSet, GeomeanCurvesOverTheTestGraphs) {
  const std::string bin = std::string(PARTSIM_BIN_DIR) + "/mcm_test_set --config " + kRing;
  std::string out;
  ASSERT_EQ(test::run_command(bin + " --graphs 2 --samples 3 --max-nodes 40 --split memory", &out), 0) << out;
  const nlohmann::json r = nlohmann::json::parse(out.substr(out.find('{')));
  ASSERT_EQ(r["graphs"].size(), 2u);
  const nlohmann::json& curves = r["geomean_improvement_per_sample"];
  for (const char* s : {"mcm_random", "mcm_sa", "mcm_rl"}) {
    ASSERT_EQ(curves[s].size(), 3u) << s;
    // The last point is the geometric mean of the graphs' final improvements; curves never fall.
    const double a = r["graphs"][0]["final_improvement"][s], b = r["graphs"][1]["final_improvement"][s];
    EXPECT_NEAR(curves[s][2].get<double>(), std::sqrt(a * b), 1e-9) << s;
    EXPECT_LE(curves[s][0].get<double>(), curves[s][2].get<double>()) << s;
    // The curve is 0 exactly until every graph has had its first valid placement.
    int last_first = 0;
    for (const nlohmann::json& g : r["graphs"]) {
      const nlohmann::json& first = g["first_valid_sample"][s];
      last_first = first.is_null() ? 4 : std::max(last_first, first.get<int>());
      if (!first.is_null()) {
        EXPECT_GE(first.get<int>(), 1) << s;
      }
    }
    for (int i = 0; i < 3; ++i) EXPECT_EQ(curves[s][i].get<double>() > 0, i + 1 >= last_first) << s << " sample " << i + 1;
  }
  // Each graph names its command-line form and the placements behind its numbers: replayed by
  // mcm_pipeline --workload/--placement, greedy's analytical throughput is the graph's baseline and a
  // search's final placement gives its final improvement.
  const nlohmann::json& g0 = r["graphs"][0];
  EXPECT_EQ(g0["workload"], workloads::random_dag_spec(graph_set_dags(GraphSet::test, {1, 2, 10, 40})[0]));
  const auto analytical_throughput = [&](const nlohmann::json& placement) {
    std::string list, replayed;
    for (const nlohmann::json& chip : placement) list += (list.empty() ? "" : ",") + std::to_string(chip.get<int>());
    EXPECT_EQ(test::run_command(std::string(PARTSIM_BIN_DIR) + "/mcm_pipeline --config " + kRing + " --workload " +
                                    g0["workload"].get<std::string>() + " --placement " + list,
                                &replayed),
              0)
        << replayed;
    return 1.0 / nlohmann::json::parse(replayed)["analytical_latency_s"].get<double>();
  };
  const double base = g0["greedy_throughput_per_s"];
  ASSERT_TRUE(g0["placements"]["mcm_greedy"].is_array());
  EXPECT_NEAR(analytical_throughput(g0["placements"]["mcm_greedy"]) / base, 1.0, 1e-9);
  ASSERT_TRUE(g0["placements"]["mcm_sa"].is_array());
  EXPECT_NEAR(analytical_throughput(g0["placements"]["mcm_sa"]) / base, g0["final_improvement"]["mcm_sa"].get<double>(),
              1e-9);
  EXPECT_FALSE(curves.contains("mcm_rl zero-shot"));  // no checkpoint given
  EXPECT_EQ(r["ratio"], "node");  // mcm_rl's defaults
  EXPECT_EQ(r["stay_bias"].get<double>(), 0.0);
  // The RL choices reach the searches and the report (RlCliChoices, shared with mcm_rl_train).
  ASSERT_EQ(test::run_command(bin + " --graphs 1 --samples 2 --max-nodes 30 --ratio joint --stay-bias 5", &out), 0)
      << out;
  const nlohmann::json chosen = nlohmann::json::parse(out.substr(out.find('{')));
  EXPECT_EQ(chosen["ratio"], "joint");
  EXPECT_EQ(chosen["stay_bias"].get<double>(), 5.0);
  EXPECT_EQ(test::run_command(bin + " --stay-bias -1", &out), 2);
  EXPECT_NE(out.find("--stay-bias"), std::string::npos) << out;
  EXPECT_EQ(test::run_command(bin + " --graphs 0", &out), 2);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
}

// libtorch is in a plugin that simplan dlopen()s when mcm_rl plans (sim/planners/mcm/rl/plugin.hpp): without
// it, mcm_rl is still listed, and planning with it is one line naming the path tried, exit 1.
TEST(McmRlStrategy, MissingPluginIsOneLineNamingThePathExitOne) {
  const std::string bin = std::string(PARTSIM_BIN_DIR) + "/";
  const std::string empty = testing::TempDir() + "mcm_rl_no_plugin";
  std::filesystem::create_directories(empty);
  const std::string env = "PARTSIM_PLUGIN_DIR=" + empty + " ";
  std::string out;
  ASSERT_EQ(test::run_command(env + bin + "simplan --list-strategies", &out), 0) << out;
  EXPECT_NE(out.find("mcm_rl"), std::string::npos) << out;
  EXPECT_EQ(test::run_command(env + bin + "simplan --config " + kRing +
                                  " --workload bert_base_ops --batch 1 --mode inference --strategy mcm_rl -o " +
                                  testing::TempDir() + "mcm_rl_no_plugin.json",
                              &out),
            1);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  EXPECT_NE(out.find(empty + "/libpartsim_mcm_rl_plugin.so"), std::string::npos) << out;
  EXPECT_NE(out.find("built with the project"), std::string::npos) << out;
}

// An error thrown inside the plugin reaches simplan's main() with its type: a checkpoint that does
// not exist is an InputError (exit 2, one line), not an internal error.
TEST(McmRlStrategy, ErrorsFromThePluginKeepTheirType) {
  const std::string bin = std::string(PARTSIM_BIN_DIR) + "/";
  std::string out;
  EXPECT_EQ(test::run_command(bin + "simplan --config " + kRing +
                                  " --workload bert_base_ops --batch 1 --mode inference --strategy mcm_rl "
                                  "--option checkpoint=/nonexistent/policy.pt -o " +
                                  testing::TempDir() + "mcm_rl_bad_checkpoint.json",
                              &out),
            2);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  EXPECT_NE(out.find("/nonexistent/policy.pt"), std::string::npos) << out;
}

}  // namespace
}  // namespace partsim::mcm::rl
