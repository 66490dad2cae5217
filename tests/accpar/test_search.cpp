// The layer-wise DP (seed 000 eq. 9, §5.2) equals brute force (3^N) on random chains and DAGs.

#include <gtest/gtest.h>

#include <map>
#include <random>

#include "sim/planners/accpar/search.hpp"

using namespace partsim::accpar;

namespace {

// A random problem: node i > 0 takes `max_inputs` random producers among 0..i-1 (chain: i-1).
Problem random_dag(std::mt19937& rng, int n, int max_inputs) {
  Problem p;
  for (int i = 0; i < n; ++i) {
    Node node;
    node.name = "n" + std::to_string(i);
    if (i > 0) {
      std::uniform_int_distribution<int> count(1, std::min(i, max_inputs));
      std::uniform_int_distribution<int> pick(0, i - 1);
      const int k = max_inputs == 1 ? 1 : count(rng);
      for (int j = 0; j < k; ++j) node.inputs.push_back({max_inputs == 1 ? i - 1 : pick(rng), 1.0});
    }
    p.nodes.push_back(node);
  }
  return p;
}

// Random non-negative cost per (node, type, input types), drawn lazily and remembered.
struct RandomCost {
  std::mt19937* rng;
  std::map<std::vector<int>, double> table;
  double operator()(int v, Type t, const std::vector<Type>& inputs) {
    std::vector<int> key{v, static_cast<int>(t)};
    for (Type i : inputs) key.push_back(static_cast<int>(i));
    auto it = table.find(key);
    if (it != table.end()) return it->second;
    const double c = std::uniform_real_distribution<double>(0, 10)(*rng);
    table[key] = c;
    return c;
  }
};

void compare(int seed, int n, int max_inputs, bool restricted) {
  std::mt19937 rng(static_cast<unsigned>(seed));
  const Problem p = random_dag(rng, n, max_inputs);
  Allowed allowed(static_cast<size_t>(n), {Type::I, Type::II, Type::III});
  if (restricted)
    for (auto& a : allowed)
      if (rng() % 3 == 0) a = {Type::I, Type::II};
  RandomCost table{&rng, {}};
  const NodeCost cost = [&](int v, Type t, const std::vector<Type>& in) { return table(v, t, in); };
  const auto dp = search_types(p, allowed, cost);
  const auto brute = brute_force_types(p, allowed, cost);
  EXPECT_NEAR(typing_cost(p, dp, cost), typing_cost(p, brute, cost), 1e-9) << "seed " << seed << " n " << n;
  for (size_t v = 0; v < dp.size(); ++v) {
    const auto& a = allowed[v];
    EXPECT_NE(std::find(a.begin(), a.end(), dp[v]), a.end());
  }
}

}  // namespace

TEST(Search, ChainOfOneLayerHasThreeStates) {
  Problem p;
  p.nodes.push_back(Node{});
  const NodeCost cost = [](int, Type t, const std::vector<Type>&) { return t == Type::III ? 1.0 : 2.0; };
  EXPECT_EQ(search_types(p, {{Type::I, Type::II, Type::III}}, cost)[0], Type::III);
}

TEST(Search, Eq9OnAHandChain) {
  // Three layers. Node costs 1 except: layer 1 Type-II costs 0; transitions into layer 2 cost
  // 5 unless layer 1 is Type-II. Best: (I or II or III, II, ...) with layer 0 free: the cheapest is
  // layer 0 Type-I (1, first in order), layer 1 Type-II (0), layer 2 Type-I (1): total 2.
  Problem p;
  for (int i = 0; i < 3; ++i) {
    Node n;
    if (i > 0) n.inputs.push_back({i - 1, 1});
    p.nodes.push_back(n);
  }
  const NodeCost cost = [](int v, Type t, const std::vector<Type>& in) {
    if (v == 1 && t == Type::II) return 0.0;
    if (v == 2 && in[0] != Type::II) return 6.0;
    return 1.0;
  };
  const auto types = search_types(p, Allowed(3, {Type::I, Type::II, Type::III}), cost);
  EXPECT_EQ(types[1], Type::II);
  EXPECT_DOUBLE_EQ(typing_cost(p, types, cost), 2.0);
}

TEST(Search, RandomChainsEqualBruteForce) {
  for (int seed = 0; seed < 40; ++seed) compare(seed, 2 + seed % 9, 1, seed % 2 == 1);  // N = 2..10
}

TEST(Search, RandomDagsEqualBruteForce) {
  for (int seed = 100; seed < 160; ++seed) compare(seed, 3 + seed % 8, 3, seed % 3 == 0);  // N = 3..10
}

TEST(Search, ResidualBlockShapeEqualsBruteForce) {
  // x -> a -> b -> add(b, x) -> c: the ResNet shortcut of Fig. 4 (two paths between x and add).
  Problem p;
  p.nodes.resize(5);
  p.nodes[1].inputs = {{0, 1}};
  p.nodes[2].inputs = {{1, 1}};
  p.nodes[3].inputs = {{2, 1}, {0, 1}};
  p.nodes[4].inputs = {{3, 1}};
  for (int seed = 0; seed < 20; ++seed) {
    std::mt19937 rng(static_cast<unsigned>(seed));
    RandomCost table{&rng, {}};
    const NodeCost cost = [&](int v, Type t, const std::vector<Type>& in) { return table(v, t, in); };
    const Allowed allowed(5, {Type::I, Type::II, Type::III});
    EXPECT_NEAR(typing_cost(p, search_types(p, allowed, cost), cost),
                typing_cost(p, brute_force_types(p, allowed, cost), cost), 1e-9);
  }
}
