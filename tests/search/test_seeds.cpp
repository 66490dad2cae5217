// The search's seeds (sim/planners/search/registration.hpp): a seed planner held to a share of the
// budget (deepa's xfer_limit) is tried again on a narrower space when its full one is over it.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

#include "sim/common/error.hpp"
#include "sim/planners/builtin_strategies.hpp"
#include "sim/planners/search/registration.hpp"
#include "topology/system_parser.hpp"
#include "workloads/zoo.hpp"

namespace partsim::search {
namespace {

// deepa on k80_16gpu, alexnet batch 512: its eq. 1 tables are 1.61e7 link-load updates over the
// full space and 8.85e5 with dims=n,c (both as deepa's refusal prints them with xfer_limit=1).
struct K80Alexnet {
  topology::SystemSpec spec = topology::load_system(std::string(PARTSIM_TEST_DATA_DIR) + "/platforms/k80_16gpu.yaml");
  workloads::Graph graph = workloads::build_zoo("alexnet", 512);
  planner::PlanInputs inputs{spec, graph, "alexnet"};
  std::map<std::string, std::string> refusals, narrowed;

  bool deepa_seeded(double seconds) {
    const auto seeds = plan_seeds(planner::builtin_strategies(), inputs, {"deepa"}, refusals, seconds, &narrowed);
    return std::any_of(seeds.begin(), seeds.end(), [](const Candidate& c) { return c.origin == "deepa"; });
  }
};

TEST(SearchSeeds, DeepaGetsItsShareOfTheBudgetAsXferLimitThenAQuarterOnImagesAndChannels) {
  // 5 ns per update: 1 s -> 2e8, a quarter -> 5e7.
  const auto ladder = seed_option_ladder("deepa", 1.0);
  ASSERT_EQ(ladder.size(), 2u);
  EXPECT_EQ(ladder[0].options, std::vector<std::string>{"xfer_limit=2e+08"});
  EXPECT_EQ(ladder[0].narrowing, "");
  EXPECT_EQ(ladder[1].options, (std::vector<std::string>{"xfer_limit=5e+07", "dims=n,c"}));
  EXPECT_EQ(ladder[1].narrowing, "dims=n,c");
  // Other strategies, and no budget: the defaults alone.
  EXPECT_EQ(seed_option_ladder("accpar", 1.0).size(), 1u);
  EXPECT_TRUE(seed_option_ladder("accpar", 1.0)[0].options.empty());
  EXPECT_TRUE(seed_option_ladder("deepa", 0)[0].options.empty());
}

TEST(SearchSeeds, AFullSpaceOverItsBoundIsPlannedOnTheNarrowerOne) {
  K80Alexnet f;
  // 0.02 s: the full space may have 4e6 updates (it needs 1.61e7), dims=n,c 1e6 (it needs 8.85e5).
  EXPECT_TRUE(f.deepa_seeded(0.02));
  EXPECT_FALSE(f.refusals.count("deepa"));
  ASSERT_TRUE(f.narrowed.count("deepa"));
  EXPECT_EQ(f.narrowed["deepa"].rfind("dims=n,c (the full space: deepa: the eq. 1 xfer tables", 0), 0u) << f.narrowed["deepa"];
  EXPECT_NE(f.narrowed["deepa"].find("over option xfer_limit=4e+06"), std::string::npos) << f.narrowed["deepa"];
}

TEST(SearchSeeds, BothOverTheirBoundsIsARefusalNamingBoth) {
  K80Alexnet f;
  // 0.004 s: 8e5 for the full space, 2e5 for dims=n,c: both over.
  EXPECT_FALSE(f.deepa_seeded(0.004));
  EXPECT_TRUE(f.narrowed.empty());
  ASSERT_TRUE(f.refusals.count("deepa"));
  const std::string& why = f.refusals["deepa"];
  EXPECT_NE(why.find("over option xfer_limit=8e+05"), std::string::npos) << why;
  EXPECT_NE(why.find("; then with dims=n,c: deepa: the eq. 1 xfer tables"), std::string::npos) << why;
  EXPECT_NE(why.find("over option xfer_limit=2e+05"), std::string::npos) << why;
}

TEST(SearchSeeds, TheFullSpaceWithinItsBoundIsNotNarrowed) {
  K80Alexnet f;
  EXPECT_TRUE(f.deepa_seeded(0.1));  // 2e7 >= 1.61e7
  EXPECT_TRUE(f.narrowed.empty());
  EXPECT_FALSE(f.refusals.count("deepa"));
}

}  // namespace
}  // namespace partsim::search
