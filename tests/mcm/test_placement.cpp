// The placement problem of seed 002 (eq. 2-5): the constraint checker, the analytical model and
// the Gecode solver (Algorithms 1 and 2) on graphs small enough to check by hand.
#include <gtest/gtest.h>

#include <gecode/kernel.hh>

#include <malloc.h>

#include <cstring>
#include <map>

#include "sim/mcm/constraints.hpp"
#include "sim/mcm/cost_model.hpp"
#include "sim/mcm/solver.hpp"
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

/// What a seeded run of `repairs` FIX repairs gives (every repaired placement): each candidate is
/// the last repaired placement with a few nodes moved to a neighbouring chip, as RL's candidates
/// near the policy's previous placement.
std::vector<Placement> fix_trace(const PlacementProblem& p, std::uint64_t seed, int repairs) {
  PlacementSolver solver(p);
  std::mt19937_64 rng(seed);
  std::vector<Placement> out;
  Placement last = solve_sample(solver, random_order(p.size(), rng), {}, rng);
  for (int k = 0; k < repairs; ++k) {
    Placement candidate = last;
    for (int m = 0; m < 4; ++m) {
      int& chip = candidate[rng() % candidate.size()];
      chip = std::clamp(chip + (rng() % 2 == 0 ? 1 : -1), 0, p.chips - 1);
    }
    try {
      last = solve_fix(solver, random_order(p.size(), rng), candidate, rng);
    } catch (const SolverLimitError&) {
    }
    out.push_back(last);
  }
  return out;
}

/// Leaves `byte` in the memory Gecode takes next: glibc's M_PERTURB fills what malloc returns
/// with ~byte (0: untouched), and a space that fills its heap and dies returns its blocks to the
/// pool Gecode's next spaces draw from.
void fill_solver_memory(unsigned char byte) {
  (void)mallopt(M_PERTURB, static_cast<unsigned char>(~byte));
  struct Scratch : Gecode::Space {
    Scratch() = default;
    Scratch(Scratch& other) : Gecode::Space(other) {}
    Gecode::Space* copy() override { return new Scratch(*this); }
  };
  for (int k = 0; k < 8; ++k) {
    Scratch s;
    for (int i = 0; i < 4096; ++i) std::memset(s.ralloc(48), byte, 48);
    for (int i = 0; i < 256; ++i) std::memset(s.ralloc(1024), byte, 1024);
  }
}

TEST(Solver, PropagationDoesNotDependOnRecycledMemory) {
  // Gecode recycles a space's memory for the next spaces; a propagator that reads memory it did not
  // write (Gecode 6.2's nvalues does, in its view-value graph's prune) prunes by what an earlier
  // search or malloc left there, and RL's runs then parted after ~150 samples. The same seeded
  // repairs with different bytes in that memory must give the same placements.
  const topology::SystemSpec ring = topology::load_system(std::string(PARTSIM_TEST_DATA_DIR) + "/platforms/mcm_ring36.yaml");
  for (std::uint64_t graph = 1900; graph < 1916; ++graph) {
    const PlacementProblem p = make_problem(ring, workloads::random_dag({graph, 10, 120, 1}));
    fill_solver_memory(0x00);
    const auto zeros = fix_trace(p, graph, 300);
    for (const unsigned char byte : std::vector<unsigned char>{0xff, 0x5a}) {
      fill_solver_memory(byte);
      EXPECT_EQ(fix_trace(p, graph, 300), zeros) << p.graph_name << " after filling with " << int{byte};
    }
  }
  (void)mallopt(M_PERTURB, 0);
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
