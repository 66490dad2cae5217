// DeePa's §4 search (node elimination eq. 2, edge elimination eq. 3, enumeration, undo) against
// brute force and against costs worked out by hand.

#include <gtest/gtest.h>

#include <random>

#include "sim/common/error.hpp"
#include "sim/planners/deepa/elimination.hpp"

using namespace partsim;
using namespace partsim::deepa;

namespace {

CostTable table(int rows, int cols, std::vector<double> cost) { return {rows, cols, std::move(cost)}; }

/// Random costs on a given DAG shape: K configurations per node in [1, max_k].
CostGraph random_costs(int nodes, const std::vector<std::pair<int, int>>& edges, std::mt19937& rng, int max_k = 4) {
  std::uniform_int_distribution<int> k_of(1, max_k);
  std::uniform_real_distribution<double> cost(0, 10);
  CostGraph g;
  for (int v = 0; v < nodes; ++v) {
    std::vector<double> c(static_cast<std::size_t>(k_of(rng)));
    for (double& x : c) x = cost(rng);
    g.node_cost.push_back(c);
  }
  for (auto [a, b] : edges) {
    const int ka = static_cast<int>(g.node_cost[static_cast<std::size_t>(a)].size());
    const int kb = static_cast<int>(g.node_cost[static_cast<std::size_t>(b)].size());
    CostTable t{ka, kb, std::vector<double>(static_cast<std::size_t>(ka * kb))};
    for (double& x : t.cost) x = cost(rng);
    g.edges.push_back({a, b, t});
  }
  return g;
}

std::vector<std::pair<int, int>> chain(int n) {
  std::vector<std::pair<int, int>> e;
  for (int i = 0; i + 1 < n; ++i) e.push_back({i, i + 1});
  return e;
}

/// An inception-like block: 0 -> branches (chains of lengths `branch`) -> concat -> tail.
std::pair<int, std::vector<std::pair<int, int>>> inception_block(const std::vector<int>& branch) {
  std::vector<std::pair<int, int>> e;
  int next = 1;
  std::vector<int> ends;
  for (int len : branch) {
    int prev = 0;
    for (int i = 0; i < len; ++i) {
      e.push_back({prev, next});
      prev = next++;
    }
    ends.push_back(prev);
  }
  const int concat = next++;
  for (int end : ends) e.push_back({end, concat});  // a zero-length branch is an edge 0 -> concat
  e.push_back({concat, next});
  return {next + 1, e};
}

void expect_optimal(const CostGraph& g, const std::string& what) {
  const SearchResult fast = eliminate_and_search(g);
  const SearchResult slow = brute_force(g);
  EXPECT_NEAR(fast.cost, slow.cost, 1e-9) << what;
  EXPECT_NEAR(global_cost(g, fast.choice), fast.cost, 1e-9) << what;  // the undo gives a real configuration
}

}  // namespace

TEST(DeepaElimination, ChainByHand) {
  // a -> w -> b, two configurations each.
  //   node costs: a {0, 0}, w {1, 5}, b {0, 0}
  //   e1 = xfer(a, w): [[0, 4], [3, 0]]; e2 = xfer(w, b): [[2, 9], [0, 0]]
  // Eq. 2: e'(ca, cb) = min_cw e1(ca, cw) + w(cw) + e2(cw, cb):
  //   e'(0,0) = min(0+1+2, 4+5+0) = 3 (cw 0); e'(0,1) = min(0+1+9, 4+5+0) = 9 (cw 1)
  //   e'(1,0) = min(3+1+2, 0+5+0) = 5 (cw 1); e'(1,1) = min(3+1+9, 0+5+0) = 5 (cw 1)
  // Optimum 3 at (a, w, b) = (0, 0, 0).
  CostGraph g;
  g.node_cost = {{0, 0}, {1, 5}, {0, 0}};
  g.edges = {{0, 1, table(2, 2, {0, 4, 3, 0})}, {1, 2, table(2, 2, {2, 9, 0, 0})}};
  const SearchResult r = eliminate_and_search(g);
  EXPECT_DOUBLE_EQ(r.cost, 3);
  EXPECT_EQ(r.choice, (std::vector<int>{0, 0, 0}));
  EXPECT_EQ(r.node_eliminations, 1);
  EXPECT_EQ(r.nodes_left, 2);
  EXPECT_EQ(r.enumerated, 4u);  // 2 x 2 configurations of the final graph
}

TEST(DeepaElimination, DiamondByHand) {
  // s -> a -> t and s -> b -> t, one configuration for a and b except a {1, 0}, s and t two.
  //   node costs: s {0, 1}, a {1, 0}, b {0}, t {0, 0}
  //   s->a [[0, 5], [5, 0]], a->t [[0, 5], [5, 0]], s->b [[0], [0]], b->t [[2, 0]]
  // Node elimination of a: e_a(s,t) = min_ca (s->a + a + a->t):
  //   (0,0): min(0+1+0, 5+0+5) = 1; (0,1): min(0+1+5, 5+0+0) = 5; (1,0): min(5+1+0, 0+0+5) = 5; (1,1): min(5+1+5, 0+0+0) = 0
  // of b: e_b(s,t) = t's column of b->t: (.,0) = 2, (.,1) = 0. Edge elimination: e = e_a + e_b:
  //   (0,0) 3, (0,1) 5, (1,0) 7, (1,1) 0; plus s's cost: (0,0) 3, (0,1) 5, (1,0) 8, (1,1) 1 -> optimum 1.
  CostGraph g;
  g.node_cost = {{0, 1}, {1, 0}, {0}, {0, 0}};
  g.edges = {{0, 1, table(2, 2, {0, 5, 5, 0})}, {1, 3, table(2, 2, {0, 5, 5, 0})},
             {0, 2, table(2, 1, {0, 0})},       {2, 3, table(1, 2, {2, 0})}};
  const SearchResult r = eliminate_and_search(g);
  EXPECT_DOUBLE_EQ(r.cost, 1);
  EXPECT_EQ(r.choice, (std::vector<int>{1, 1, 0, 1}));
  EXPECT_EQ(r.node_eliminations, 2);
  EXPECT_EQ(r.edge_eliminations, 1);
  EXPECT_EQ(r.nodes_left, 2);
  EXPECT_EQ(r.edges_left, 1);
}

TEST(DeepaElimination, RandomChainsEqualBruteForce) {
  std::mt19937 rng(1);
  for (int trial = 0; trial < 40; ++trial) {
    const int n = 2 + trial % 7;
    expect_optimal(random_costs(n, chain(n), rng), "chain " + std::to_string(n));
  }
}

TEST(DeepaElimination, RandomDiamondsAndInceptionBlocksEqualBruteForce) {
  std::mt19937 rng(2);
  const std::vector<std::vector<int>> blocks{{1, 1}, {1, 2}, {0, 1, 2}, {1, 2, 3, 1}, {2, 2}, {0, 3}};
  for (int trial = 0; trial < 60; ++trial) {
    const auto& [n, edges] = inception_block(blocks[static_cast<std::size_t>(trial) % blocks.size()]);
    if (n > 10) continue;  // brute force stays small
    const CostGraph g = random_costs(n, edges, rng, 3);
    expect_optimal(g, "block " + std::to_string(trial));
    EXPECT_EQ(eliminate_and_search(g).nodes_left, 2) << trial;  // like the paper's Inception: 2 nodes left
  }
  // Two blocks in a row (the tail of the first is the source of the second), parallel edges included.
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<std::pair<int, int>> e{{0, 1}, {0, 1}, {0, 2}, {1, 3}, {2, 3}, {3, 4}, {3, 5}, {4, 6}, {5, 6}, {3, 6}};
    expect_optimal(random_costs(7, e, rng, 3), "two blocks " + std::to_string(trial));
  }
}

TEST(DeepaElimination, StopsEarlyAndEnumeratesWhatIsLeft) {
  // a -> b, a -> c, b -> c, b -> d, c -> d: b has two out-edges, c two in-edges, no parallel
  // edges: neither elimination applies, all 4 nodes are enumerated.
  std::mt19937 rng(3);
  const std::vector<std::pair<int, int>> e{{0, 1}, {0, 2}, {1, 2}, {1, 3}, {2, 3}};
  for (int trial = 0; trial < 20; ++trial) {
    const CostGraph g = random_costs(4, e, rng, 3);
    const SearchResult r = eliminate_and_search(g);
    EXPECT_EQ(r.node_eliminations, 0);
    EXPECT_EQ(r.nodes_left, 4);
    std::uint64_t space = 1;
    for (const auto& c : g.node_cost) space *= c.size();
    EXPECT_EQ(r.enumerated, space);
    EXPECT_NEAR(r.cost, brute_force(g).cost, 1e-9);
  }
  // Beyond the limit: a clear error, not a silent wrong answer.
  CostGraph g = random_costs(4, e, rng, 1);
  for (auto& c : g.node_cost) c.assign(10, 1.0);
  for (auto& edge : g.edges) edge.xfer = table(10, 10, std::vector<double>(100, 0));
  EXPECT_THROW(eliminate_and_search(g, 1000), InputError);
  // The same refusal from the structure alone (10^4 configurations left), before any table; 10^4
  // is within a limit of 10^4, and a chain of the same sizes reduces to one edge (10^2).
  std::string full, structural;
  try {
    eliminate_and_search(g, 1000);
  } catch (const InputError& x) {
    full = x.what();
  }
  try {
    check_enumeration({10, 10, 10, 10}, e, 1000);
  } catch (const InputError& x) {
    structural = x.what();
  }
  EXPECT_FALSE(full.empty());
  EXPECT_EQ(structural, full);
  EXPECT_NO_THROW(check_enumeration({10, 10, 10, 10}, e, 10'000));
  EXPECT_NO_THROW(check_enumeration({10, 10, 10, 10}, chain(4), 100));
  EXPECT_THROW(check_enumeration({10, 10, 10, 10}, chain(4), 99), InputError);
}
