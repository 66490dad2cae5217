// The placement problem of seed 002 (eq. 2-5): the constraint checker, the analytical model and
// the Gecode solver (Algorithms 1 and 2) on graphs small enough to check by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "sim/planners/mcm/constraints.hpp"
#include "sim/planners/mcm/cost_model.hpp"
#include "sim/planners/mcm/solver.hpp"
#include "tests/mcm/tiny_ring.hpp"
#include "topology/system_parser.hpp"
#include "workloads/random_dag.hpp"
#include "workloads/zoo.hpp"

namespace partsim::mcm {
namespace {

struct Diamond {
  workloads::Graph graph = test::diamond();
  PlacementProblem problem = make_problem(test::tiny_ring(), graph);
  /// Chips by node name.
  Placement place(const std::map<std::string, int>& chips) const {
    Placement f(graph.size());
    for (const auto& [name, chip] : chips) f[*graph.index_of(name)] = chip;
    return f;
  }
};

std::string kinds(const std::vector<Violation>& vs) {
  std::string out;
  for (const Violation& v : vs) out += to_string(v.kind) + ": " + v.message + "\n";
  return out;
}

TEST(Constraints, ValidPlacementHasNoViolation) {
  Diamond d;
  const Placement f = d.place({{"x", 0}, {"a", 0}, {"b", 1}, {"c", 1}, {"d", 1}});
  EXPECT_TRUE(violations(d.problem, f).empty()) << kinds(violations(d.problem, f));
  // Chip 1: weights of b and c 2 * 1,001,000 bytes; tensors a (received), b, c, d of 1000 bytes:
  // at c's step a, b, c are live (3000 bytes), at d's a, c, d (3000).
  const auto memory = chip_memory(d.problem, f);
  EXPECT_DOUBLE_EQ(memory[1].weights_bytes, 2002000.0);
  EXPECT_DOUBLE_EQ(memory[1].peak_activation_bytes, 3000.0);
  EXPECT_DOUBLE_EQ(memory[0].weights_bytes, 1001000.0);
  EXPECT_DOUBLE_EQ(memory[0].peak_activation_bytes, 2000.0);  // x and a at a's step
}

TEST(Constraints, EachConstraintNamesItsCulprit) {
  Diamond d;
  auto only = [&](const Placement& f) {
    const auto vs = violations(d.problem, f);
    EXPECT_EQ(vs.size(), 1u) << kinds(vs);
    return vs.empty() ? Violation{ConstraintKind::memory, ""} : vs.front();
  };
  Violation v = only(d.place({{"x", 1}, {"a", 0}, {"b", 0}, {"c", 1}, {"d", 1}}));
  EXPECT_EQ(v.kind, ConstraintKind::acyclic_dataflow);
  EXPECT_EQ(v.message, "tensor 'x' (chip 1) -> 'a' (chip 0) flows from a higher to a lower chip; ring links only carry data to higher chips");

  v = only(d.place({{"x", 0}, {"a", 0}, {"b", 2}, {"c", 2}, {"d", 2}}));
  EXPECT_EQ(v.kind, ConstraintKind::skipped_chip);
  EXPECT_EQ(v.message, "chip 1 has no node but chip 2 is used");

  // a -> d goes 0 -> 2 directly while a -> b -> c -> d goes 0 -> 1 -> 2 (Fig. 2e).
  v = only(d.place({{"x", 0}, {"a", 0}, {"b", 1}, {"c", 1}, {"d", 2}}));
  EXPECT_EQ(v.kind, ConstraintKind::triangle_dependency);
  EXPECT_EQ(v.message, "tensor 'a' (chip 0) -> 'd' (chip 2) is a direct dependency chip 0 -> 2 but the chips are also "
                       "connected through chip 1 (longest path 2 links, must be 1)");

  // Everything on chip 0: weights 3 * 1,001,000 = 3,003,000 bytes > 2 MiB = 2,097,152.
  v = only(d.place({{"x", 0}, {"a", 0}, {"b", 0}, {"c", 0}, {"d", 0}}));
  EXPECT_EQ(v.kind, ConstraintKind::memory);
  EXPECT_EQ(v.message, "chip 0 needs 2.87 MiB (weights 2.86 MiB, tensors 0.00 MiB at 'c') but has 2.00 MiB SRAM");
}

TEST(Constraints, ChipOutsideThePlatformIsAnInputError) {
  Diamond d;
  EXPECT_THROW(violations(d.problem, d.place({{"x", 4}})), InputError);
  EXPECT_THROW(violations(d.problem, Placement{0, 0}), InputError);
}

TEST(CostModel, PerChipLatencyByHand) {
  Diamond d;
  const AnalyticalCost cost = analytical_cost(d.problem, d.place({{"x", 0}, {"a", 0}, {"b", 1}, {"c", 1}, {"d", 1}}));
  // Chip 0: a = 2e6 FLOP / 1e12 FLOP/s = 2 us (x computes nothing: 1000 B / 1e15 B/s = 1e-12 s).
  EXPECT_NEAR(cost.chips[0].compute_s, 2e-6 + 1e-12, 1e-15);
  EXPECT_DOUBLE_EQ(cost.chips[0].receive_s, 0.0);
  // Chip 1: b, c 2 us each, d 1000 adds = 1 ns; b and d each fetch a: 2 x (1000 B / 1e9 B/s +
  // 100 ns) = 2.2 us. L_1 = 6.201 us, the bottleneck.
  EXPECT_NEAR(cost.chips[1].compute_s, 4.001e-6, 1e-15);
  EXPECT_NEAR(cost.chips[1].receive_s, 2.2e-6, 1e-15);
  EXPECT_EQ(cost.bottleneck_chip, 1);
  EXPECT_NEAR(cost.latency_s, 6.201e-6, 1e-15);
  EXPECT_NEAR(cost.throughput_per_s(), 1.0 / 6.201e-6, 1e-3);
}

TEST(Solver, SampleAlwaysGivesStaticallyValidPlacements) {
  Diamond d;
  PlacementSolver solver(d.problem);
  std::mt19937_64 rng(7);
  int distinct = 0;
  std::map<Placement, int> seen;
  for (int k = 0; k < 200; ++k) {
    const Placement f = solve_sample(solver, random_order(d.problem.size(), rng), {}, rng);
    EXPECT_TRUE(static_violations(d.problem, f).empty()) << kinds(static_violations(d.problem, f));
    // weights_fit: at most two fc layers per chip.
    for (const ChipMemory& m : chip_memory(d.problem, f)) EXPECT_LE(m.weights_bytes, d.problem.sram_bytes);
    distinct += seen[f]++ == 0;
  }
  EXPECT_GT(distinct, 3);  // it explores
}

TEST(Solver, AgreesWithTheCheckerOnRandomGraphsOf36Chips) {
  const topology::SystemSpec ring = topology::load_system(std::string(PARTSIM_TEST_DATA_DIR) + "/platforms/mcm_ring36.yaml");
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const workloads::Graph g = workloads::random_dag({seed, 20, 120, 1});
    const PlacementProblem p = make_problem(ring, g);
    PlacementSolver solver(p);
    std::mt19937_64 rng(seed);
    for (int k = 0; k < 5; ++k) {
      const Placement f = solve_sample(solver, random_order(p.size(), rng), {}, rng);
      EXPECT_TRUE(static_violations(p, f).empty()) << g.name() << ": " << kinds(static_violations(p, f));
    }
  }
}

TEST(Solver, FixKeepsAValidCandidateAndRepairsAnInvalidOne) {
  Diamond d;
  PlacementSolver solver(d.problem);
  std::mt19937_64 rng(3);
  const Placement valid = d.place({{"x", 0}, {"a", 0}, {"b", 1}, {"c", 1}, {"d", 1}});
  EXPECT_EQ(solve_fix(solver, random_order(d.problem.size(), rng), valid, rng), valid);
  const Placement invalid = d.place({{"x", 0}, {"a", 0}, {"b", 1}, {"c", 1}, {"d", 2}});  // eq. 4
  for (int k = 0; k < 20; ++k) {
    const Placement f = solve_fix(solver, random_order(d.problem.size(), rng), invalid, rng);
    EXPECT_TRUE(static_violations(d.problem, f).empty()) << kinds(static_violations(d.problem, f));
  }
}

TEST(Solver, DomainsShrinkByPropagation) {
  Diamond d;
  PlacementSolver solver(d.problem);
  const int a = static_cast<int>(*d.graph.index_of("a")), b = static_cast<int>(*d.graph.index_of("b"));
  const int x = static_cast<int>(*d.graph.index_of("x"));
  EXPECT_EQ(solver.get_domain(b), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(solver.set_domain(a, {1}), 1);
  // eq. 2: b >= 1 and x <= 1; eq. 3: chip 0 must be used and x is the only node that can take
  // it (a, b, c, d are all >= 1), so x = 0.
  EXPECT_EQ(solver.get_domain(b), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(solver.get_domain(x), (std::vector<int>{0}));
}

TEST(Solver, NoNodeTakesAChipTooFewNodesCouldReach) {
  // x -> a -> b on 4 chips: chip 3 in use needs chips 0..3 each used (eq. 3), four distinct nodes
  // of three; so every domain is capped at chip 2 before any decision.
  workloads::NetBuilder b("chain", "");
  b.fc("b", b.fc("a", b.input("x", {10, 1, 1}), 10), 10);
  const workloads::Graph g = b.build(1);
  PlacementSolver solver(make_problem(test::tiny_ring(4), g));
  for (int v = 0; v < 3; ++v) EXPECT_EQ(solver.get_domain(v), (std::vector<int>{0, 1, 2})) << g.layer(static_cast<std::size_t>(v)).name;
}

/// Every placement of `p` that breaks none of eq. 2-4 and fits every chip's weights, by enumeration.
std::vector<Placement> all_valid_placements(const PlacementProblem& p) {
  std::vector<Placement> valid;
  Placement f(static_cast<std::size_t>(p.size()), 0);
  for (;;) {
    bool fits = true;
    for (const ChipMemory& m : chip_memory(p, f)) fits = fits && m.weights_bytes <= p.sram_bytes;
    if (fits && static_violations(p, f).empty()) valid.push_back(f);
    std::size_t k = 0;  // next placement, counting in base `chips`
    while (k < f.size() && ++f[k] == p.chips) f[k++] = 0;
    if (k == f.size()) return valid;
  }
}

TEST(Solver, PropagationNeverRemovesAChipSomeValidPlacementUses) {
  // Soundness of the propagators (eq. 2's rel, NoSkippedChip, TriangleDependency, the bin packing)
  // against enumeration: at the root every (node, chip) of a valid placement is in the domain, and
  // deciding it does not fail. 20 MiB of SRAM: the weights bind on some graphs (up to 72 MiB in
  // all), exceed a chip on two. Graphs of 6-7 nodes on 4 chips, and of 4-5 nodes on 6 chips (fewer nodes than chips: eq. 3's cap).
  std::vector<std::pair<workloads::Graph, int>> cases{{test::diamond(), 4}};
  for (std::uint64_t seed = 1; seed <= 12; ++seed) cases.push_back({workloads::random_dag({seed, 6, 7, 1}), 4});
  for (std::uint64_t seed = 1; seed <= 6; ++seed) cases.push_back({workloads::random_dag({seed, 4, 5, 1}), 6});
  int checked = 0;
  for (const auto& [g, chips] : cases) {
    const PlacementProblem p = make_problem(test::tiny_ring(chips, "20MiB"), g);
    const std::vector<Placement> valid = all_valid_placements(p);
    if (valid.empty()) {  // a node heavier than a chip's SRAM: the solver must say so
      EXPECT_THROW({ PlacementSolver solver(p); std::mt19937_64 rng(1); (void)solve_sample(solver, random_order(p.size(), rng), {}, rng); },
                   InfeasibleError) << g.name();
      continue;
    }
    ++checked;
    std::set<std::pair<int, int>> used;
    for (const Placement& f : valid)
      for (int v = 0; v < p.size(); ++v) used.insert({v, f[static_cast<std::size_t>(v)]});
    PlacementSolver solver(p);
    for (const auto& [v, chip] : used) {
      const std::vector<int> domain = solver.get_domain(v);
      EXPECT_TRUE(std::find(domain.begin(), domain.end(), chip) != domain.end()) << g.name() << " node " << v << " chip " << chip;
      solver.begin_solve();
      EXPECT_EQ(solver.set_domain(v, {chip}), 1) << g.name() << " node " << v << " chip " << chip;
      solver.reset();
    }
    // And the solver finds nothing else: every full SAMPLE draw is one of them.
    std::mt19937_64 rng(g.size());
    for (int k = 0; k < 20; ++k) {
      const Placement f = solve_sample(solver, random_order(p.size(), rng), {}, rng);
      EXPECT_TRUE(std::find(valid.begin(), valid.end(), f) != valid.end()) << g.name();
    }
  }
  EXPECT_GE(checked, 13);
}

TEST(Solver, InfeasibleInstancesAreReported) {
  // Five fc layers of 1,001,000 bytes of weights on two chips of 2 MiB hold at most four.
  workloads::NetBuilder b("five", "");
  std::string x = b.input("x", {1000, 1, 1});
  for (int k = 0; k < 5; ++k) x = b.fc("fc" + std::to_string(k), x, 1000);
  const workloads::Graph g = b.build(1);
  const PlacementProblem p = make_problem(test::tiny_ring(2), g);
  try {
    PlacementSolver solver(p);
    std::mt19937_64 rng(1);
    (void)solve_sample(solver, random_order(p.size(), rng), {}, rng);
    FAIL() << "expected InfeasibleError";
  } catch (const InfeasibleError& e) {
    EXPECT_EQ(std::string(e.what()), "no placement of graph 'five' (6 nodes) on 2 chips satisfies eq. 2-4 with every "
                                     "chip's weights in its SRAM");
  }
  // One layer larger than a chip's SRAM: found at the root.
  workloads::NetBuilder big("big", "");
  big.fc("huge", big.input("x", {3000, 1, 1}), 1000);  // 3,001,000 bytes > 2 MiB
  const workloads::Graph gb = big.build(1);
  EXPECT_THROW(PlacementSolver(make_problem(test::tiny_ring(4), gb)), InfeasibleError);
}

TEST(Problem, NonRingPlatformsAreRefused) {
  const topology::SystemSpec torus = topology::load_system(std::string(PARTSIM_TEST_DATA_DIR) + "/platforms/torus_8pf.yaml");
  const workloads::Graph g = test::diamond();
  EXPECT_THROW(make_problem(torus, g), InputError);
}

}  // namespace
}  // namespace partsim::mcm
