// The mcm searches and strategies: greedy split by hand, seeded reproducibility, and plans that
// simplan writes and simrun replays on configs/mcm_ring36.yaml.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <optional>
#include <sstream>
#include <vector>

#include "sim/planners/mcm/constraints.hpp"
#include "sim/planners/mcm/searches.hpp"
#include "tests/mcm/tiny_ring.hpp"
#include "tests/support/run_command.hpp"
#include "topology/system_parser.hpp"
#include "workloads/zoo.hpp"

#include "tests/support/text_file.hpp"

namespace partsim::mcm {
namespace {

using test::run_command;
const std::string kBin = std::string(PARTSIM_BIN_DIR) + "/";
const std::string kRing = std::string(PARTSIM_TEST_DATA_DIR) + "/platforms/mcm_ring36.yaml";

TEST(Greedy, SplitsByEqualComputeThenRepairs) {
  const workloads::Graph g = test::diamond();
  const PlacementProblem p = make_problem(test::tiny_ring(4), g);
  // Total compute 3 * 2 us + 1 ns (+1 ps for x): target ~1.5 us per chip. x and a fill chip 0
  // (x computes ~0), then b, c and d each exceed the target alone: chips 1, 2, 3.
  const Placement split = greedy_split(p);
  const auto chip = [&](const char* n) { return split[*g.index_of(n)]; };
  EXPECT_EQ(chip("x"), 0);
  EXPECT_EQ(chip("a"), 0);
  EXPECT_EQ(chip("b"), 1);
  EXPECT_EQ(chip("c"), 2);
  EXPECT_EQ(chip("d"), 3);
  // a -> d jumps 0 -> 3 while 0 -> 1 -> 2 -> 3 exists: eq. 4 fails, the FIX solver repairs it.
  EXPECT_FALSE(static_violations(p, split).empty());
  const SearchResult r = greedy_search(p, {});
  ASSERT_FALSE(r.best.empty());
  EXPECT_TRUE(violations(p, r.best).empty());
}

TEST(Greedy, MemorySplitFillsEachChipsSram) {
  const workloads::Graph g = test::diamond();
  const PlacementProblem p = make_problem(test::tiny_ring(4), g);
  // SRAM 2 MiB = 2,097,152 B; each fc holds 1,001,000 B of weights, tensors are 1,000 B (int8).
  // Chip 0: x, a, then b (2,002,000 B of weights + a's and b's outputs at b's step = 2,004,000 B,
  // fits); c would bring the weights to 3,003,000 B: chip 1 takes c and then d (no weights).
  const Placement split = greedy_split(p, GreedySplit::memory);
  const auto chip = [&](const char* n) { return split[*g.index_of(n)]; };
  EXPECT_EQ(chip("x"), 0);
  EXPECT_EQ(chip("a"), 0);
  EXPECT_EQ(chip("b"), 0);
  EXPECT_EQ(chip("c"), 1);
  EXPECT_EQ(chip("d"), 1);
  SearchOptions o;
  o.split = GreedySplit::memory;
  const SearchResult r = greedy_search(p, o);
  EXPECT_EQ(r.best, split);  // valid as it is: no repair
  // Chip 0: x (1 ps) + a + b = 4.000001 us. Chip 1: c (2 us) + d (1,000 adds at 1 TFLOP/s, 1 ns)
  // + receiving b -> c and a -> d over link 0 -> 1: 2 x (1,000 B / 1 GB/s + 100 ns) = 2.2 us:
  // 4.201 us, the bottleneck (the compute split above uses all four chips).
  EXPECT_NEAR(r.best_cost.latency_s, 4.201e-6, 1e-12);
  EXPECT_EQ(r.best_cost.bottleneck_chip, 1);
}

TEST(Searches, SameSeedSameResultAndSaNeverWorseThanItsStart) {
  const workloads::Graph g = workloads::build_zoo("bert_base_ops", 1);
  const PlacementProblem p = make_problem(topology::load_system(kRing), g);
  SearchOptions o;
  o.samples = 6;
  o.seed = 11;
  const SearchResult a = random_search(p, o), b = random_search(p, o);
  ASSERT_FALSE(a.best.empty());
  EXPECT_EQ(a.best, b.best);
  EXPECT_EQ(a.best_throughput, b.best_throughput);
  EXPECT_TRUE(violations(p, a.best).empty());
  // The trace is the running best: non-decreasing.
  for (std::size_t k = 1; k < a.best_throughput.size(); ++k) EXPECT_GE(a.best_throughput[k], a.best_throughput[k - 1]);
  const SearchResult s = annealing_search(p, o);
  ASSERT_FALSE(s.best.empty());
  EXPECT_TRUE(violations(p, s.best).empty());
  EXPECT_GE(s.best_throughput.back(), s.best_throughput.front());
}

TEST(Searches, RandomAndAnnealingReportTheirProgressOncePerSample) {
  // The progress seam (sim/common/progress.hpp): done 1..samples, total = samples, best_s the best
  // valid latency so far; the results are the same without a callback.
  const workloads::Graph g = workloads::build_zoo("bert_base_ops", 1);
  const PlacementProblem p = make_problem(topology::load_system(kRing), g);
  SearchOptions o;
  o.samples = 4;
  o.seed = 11;
  const SearchResult plain = random_search(p, o);
  for (const bool annealing : {false, true}) {
    std::vector<std::size_t> done;
    std::optional<double> best;
    o.progress = [&](const SearchProgress& q) {
      EXPECT_EQ(q.total, 4u);
      EXPECT_EQ(q.unit, "samples");
      done.push_back(q.done);
      best = q.best_s;
    };
    const SearchResult r = annealing ? annealing_search(p, o) : random_search(p, o);
    EXPECT_EQ(done, (std::vector<std::size_t>{1, 2, 3, 4})) << (annealing ? "annealing" : "random");
    ASSERT_TRUE(best);
    EXPECT_DOUBLE_EQ(*best, r.best_cost.latency_s);
    if (!annealing) {
      EXPECT_EQ(r.best, plain.best);
    }
  }
}

TEST(Strategies, SimplanWritesAPlanSimrunReplays) {
  const std::string plan = testing::TempDir() + "mcm_random_plan.json";
  const std::string again = testing::TempDir() + "mcm_random_plan_again.json";
  const std::string base = kBin + "simplan --config " + kRing +
                           " --workload bert_base_ops --batch 1 --mode inference --strategy mcm_random --seed 5 "
                           "--option samples=4 -o ";
  std::string out;
  ASSERT_EQ(run_command(base + plan, &out), 0) << out;
  ASSERT_EQ(run_command(base + again, &out), 0) << out;
  EXPECT_EQ(partsim::test::read_text_file(plan), partsim::test::read_text_file(again));  // seeded
  const auto j = nlohmann::json::parse(partsim::test::read_text_file(plan));
  EXPECT_EQ(j["family"]["samples"].get<int>(), 4);
  ASSERT_EQ(j["layers"].size(), 224u);
  for (const auto& layer : j["layers"]) EXPECT_EQ(layer["sharding"]["devices"].size(), 1u);

  const std::string results = testing::TempDir() + "mcm_random_results.json";
  ASSERT_EQ(run_command(kBin + "simrun --config " + kRing + " --plan " + plan + " --out " + results, &out), 0) << out;
  const auto r = nlohmann::json::parse(partsim::test::read_text_file(results));
  EXPECT_GT(r["simulated_iteration_s"].get<double>(), 0);
  // One inference runs every chip's share one after the other: at least the slowest chip's
  // compute, which the analytical latency includes.
  double slowest_compute = 0;
  for (const auto& c : j["family"]["chips"]) slowest_compute = std::max(slowest_compute, c["compute_s"].get<double>());
  EXPECT_GE(r["simulated_iteration_s"].get<double>(), slowest_compute * (1 - 1e-9));
}

TEST(Strategies, AHandEditedPlanBreakingEq2IsRefused) {
  const std::string plan = testing::TempDir() + "mcm_greedy_plan.json";
  std::string out;
  ASSERT_EQ(run_command(kBin + "simplan --config " + kRing +
                            " --workload bert_base_ops --batch 1 --mode inference --strategy mcm_greedy -o " + plan,
                        &out),
            0)
      << out;
  auto j = nlohmann::json::parse(partsim::test::read_text_file(plan));
  j["layers"][0]["sharding"]["devices"] = {35};  // the first input on the last chip
  const std::string bad = testing::TempDir() + "mcm_bad_plan.json";
  std::ofstream(bad) << j.dump(2);
  ASSERT_EQ(run_command(kBin + "simrun --config " + kRing + " --plan " + bad, &out), 2) << out;
  EXPECT_NE(out.find("acyclic dataflow (eq. 2): tensor"), std::string::npos) << out;
}

TEST(Strategies, TrainingModeIsRefused) {
  std::string out;
  EXPECT_EQ(run_command(kBin + "simplan --config " + kRing + " --workload bert_base_ops --batch 1 --strategy mcm_greedy -o " +
                            testing::TempDir() + "x.json",
                        &out),
            2);
  EXPECT_NE(out.find("use --mode inference"), std::string::npos) << out;
}

}  // namespace
}  // namespace partsim::mcm
