// The search's walk (sim/planners/search/search.hpp) against brute force over the same evaluator
// (issue 44 acceptance: a 3-layer chain on 4 devices), and its reproducibility.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <limits>

#include "sim/planners/search/search.hpp"
#include "sim/planners/search/search_log.hpp"
#include "tests/lowering_sharding/two_fc.hpp"

namespace partsim::search {
namespace {

// x (1024 features) -> fc1 -> fc2 -> fc3 (1024 -> 1024 each, no bias), batch 64.
workloads::Graph three_fc() { return fixtures::fc_chain("three_fc", 3); }

// AccPar's kinds: batch, channels and 2-D (5 layouts on 4 devices; 3 fit the input layer).
MenuKinds accpar_kinds() { return {true, true, false, true, false}; }

struct Fixture {
  topology::SystemSpec spec = fixtures::star(4, "1000GB/s", "1us");
  workloads::Graph graph = three_fc();
  planner::StrategyRegistry registry;  // no seed with a lowering of its own
  Pricer pricer{registry, spec, graph, EvaluatorKind::flow};

  Candidate data_parallel() const {
    const plan::Sharding batch4 = plan::mesh_sharding({0, 1, 2, 3}, {{plan::ShardDim::batch, 4}});
    return {fixtures::plan_of(graph, std::vector<plan::Sharding>(graph.size(), batch4)), "", "hand"};
  }
};

TEST(Search, FindsTheBruteForceOptimumOfAThreeLayerChainOnFourDevices) {
  Fixture f;
  // Every layer's menu, every schedule: 3 x 5 x 5 x 5 x 3 = 1,125 plans, each priced.
  std::vector<std::vector<plan::Sharding>> menus(f.graph.size());
  for (std::size_t v = 0; v < menus.size(); ++v)
    for (const Layout& l : layouts(4, accpar_kinds()))
      if (auto s = realize(l, f.graph.layers()[v], 64)) menus[v].push_back(*s);
  ASSERT_EQ(menus[0].size(), 3u);
  ASSERT_EQ(menus[1].size(), 5u);
  double best = std::numeric_limits<double>::infinity();
  long long priced = 0;
  Candidate c = f.data_parallel();
  for (const auto& schedule : schedule_variants())
    for (const auto& s0 : menus[0])
      for (const auto& s1 : menus[1])
        for (const auto& s2 : menus[2])
          for (const auto& s3 : menus[3]) {
            c.plan.schedule = schedule;
            c.plan.layers[0].sharding = s0;
            c.plan.layers[1].sharding = s1;
            c.plan.layers[2].sharding = s2;
            c.plan.layers[3].sharding = s3;
            const Price p = f.pricer.price(c);
            ASSERT_TRUE(p.usable()) << p.refused;
            best = std::min(best, p.predicted_s);
            ++priced;
          }
  ASSERT_EQ(priced, 1125);

  SearchOptions o;
  o.budget_s = 0;
  o.candidates = 400;  // about a third of the space
  o.kinds = accpar_kinds();
  o.seed = 7;
  o.finalists = 0;  // the walk alone (its resampling is the next test's)
  const SearchResult r = run_search({f.data_parallel()}, f.pricer, f.graph, 4, plan::Mode::training, o);
  EXPECT_EQ(r.best_price.predicted_s, best);
  EXPECT_LE(r.candidates, 400);
  // The data-parallel seed is not the optimum here (the walk had to move).
  EXPECT_GT(f.pricer.price(f.data_parallel()).predicted_s, best);
}

// The resampling (search.hpp): the finalists are evaluated again under jittered compute times, the
// lowest mean wins and is the prediction.
TEST(Search, ResamplingPicksTheFinalistWithTheLowestMeanAndPredictsThatMean) {
  Fixture f;
  SearchOptions o;
  o.budget_s = 0;
  o.candidates = 100;
  o.kinds = accpar_kinds();
  o.seed = 7;
  o.finalists = 4;
  o.samples = 5;
  o.jitter = 1e-3;
  const SearchResult r = run_search({f.data_parallel()}, f.pricer, f.graph, 4, plan::Mode::training, o);
  EXPECT_EQ(r.resampled, 4);
  EXPECT_EQ(r.samples, 5);
  const std::vector<double>& samples = r.best_price.samples;
  ASSERT_EQ(samples.size(), 5u);
  // The first sample is the exact evaluation, the others the Pricer's jittered ones, seeds from the search's.
  EXPECT_EQ(samples[0], f.pricer.price(r.best).predicted_s);
  const std::vector<double> jittered = f.pricer.resample(r.best, 4, 1e-3, 7 * 1'000'003ULL);
  ASSERT_EQ(jittered.size(), 4u);
  for (std::size_t k = 0; k < 4; ++k) EXPECT_EQ(samples[k + 1], jittered[k]);
  EXPECT_NE(samples[1], samples[0]);  // the jitter moved it
  const double mean = (samples[0] + samples[1] + samples[2] + samples[3] + samples[4]) / 5;
  EXPECT_DOUBLE_EQ(r.best_price.predicted_s, mean);
  // One log row per finalist, the chosen one accepted and the cheapest; the last row's best is it.
  std::vector<const LogRow*> rows;
  for (const LogRow& row : r.log)
    if (row.move == "resample") rows.push_back(&row);
  ASSERT_EQ(rows.size(), 4u);
  int accepted = 0;
  for (const LogRow* row : rows) {
    EXPECT_GE(row->predicted_s, r.best_price.predicted_s);
    accepted += row->accepted;
    if (row->accepted) {
      EXPECT_EQ(row->predicted_s, r.best_price.predicted_s);
    }
  }
  EXPECT_EQ(accepted, 1);
  EXPECT_EQ(r.log.back().best_s, r.best_price.predicted_s);
  EXPECT_EQ(r.log.back().index, static_cast<long long>(r.log.size()) - 1);
}

TEST(Search, ACandidateOverTheEvaluationLimitIsRefusedNotTimed) {
  Fixture f;
  const Pricer capped(f.registry, f.spec, f.graph, EvaluatorKind::flow, 0, 1);
  const Price p = capped.price(f.data_parallel());
  EXPECT_FALSE(p.usable());
  EXPECT_EQ(p.refused.rfind("not timed: its flow evaluation passed 1 re-solves", 0), 0u) << p.refused;
  EXPECT_TRUE(capped.resample(f.data_parallel(), 3, 1e-3, 1).empty());
}

TEST(Search, SeedsCheapToEvaluateComeFirstAndTheOtherSchedulesOfOneOverTheLimitAreNotPriced) {
  Fixture f;
  // Data parallel synchronises gradients over the network (flows: over a limit of 1 re-solve); all
  // on device 0 moves nothing (no re-solve at all). A network fast enough that data parallel's closed
  // form is the lower, so that it is timed first (seeds go in the order of their closed forms).
  const topology::SystemSpec fast = test::platform_from_yaml(
      "system:\n  name: star\n  precision: bf16\n  device_types:\n"
      "    dev: {kind: roofline, peak: 1TFLOP/s, memory: 16GiB, memory_bandwidth: 1000GB/s, network_bandwidth: 1PB/s}\n"
      "  devices:\n    - {type: dev, count: 4}\n  star:\n    latency: 0s\n");
  const Pricer capped(f.registry, fast, f.graph, EvaluatorKind::flow, 0, 1);
  Candidate dp_in_order = f.data_parallel();
  dp_in_order.plan.schedule = schedule_variants()[1];
  const plan::Sharding device0 = plan::mesh_sharding({0}, {});
  const Candidate one_device{fixtures::plan_of(f.graph, std::vector<plan::Sharding>(f.graph.size(), device0)), "", "one"};
  SearchOptions o;
  o.budget_s = 0;
  o.candidates = 0;
  o.patience = 1;
  o.kinds = {};  // an empty menu: the walk has nothing to try
  ASSERT_LT(capped.price(f.data_parallel(), 0).closed_s, capped.price(one_device, 0).closed_s);
  const SearchResult r =
      run_search({one_device, f.data_parallel(), dp_in_order}, capped, f.graph, 4, plan::Mode::training, o);
  ASSERT_GE(r.log.size(), 3u);
  // Two passes (search.cpp price_seeds): data parallel has the lower closed form but is over the
  // first pass's tenth of the limit, so all on device 0 (no re-solve) is priced first; the second
  // pass times data parallel with a seed's limit (refused) and not its other schedule. A seed's
  // limit is the Pricer's (1 re-solve) times the room its closed form leaves under the best price
  // (all on device 0's, its closed form: it moves nothing), between 1 and 2.
  const double room = capped.price(one_device).predicted_s / capped.price(f.data_parallel(), 0).closed_s;
  ASSERT_GT(room, 1);
  char refused[96];
  std::snprintf(refused, sizeof refused, "refused: not timed: its flow evaluation passed %.3g re-solves",
                std::min(2.0, room));
  EXPECT_EQ(r.log[0].origin, "one");
  EXPECT_TRUE(r.log[0].usable);
  EXPECT_EQ(r.log[1].origin, "hand");
  EXPECT_EQ(r.log[1].note.rfind(refused, 0), 0u) << r.log[1].note;
  EXPECT_EQ(r.log[2].note, "not priced: another schedule of this strategy's plan was over the evaluation limit");
  EXPECT_EQ(r.best.origin, "one");
}

TEST(Search, SeedsArePricedInTheOrderOfTheirClosedFormsAndThoseThatCannotWinAreNotTimed) {
  Fixture f;
  const plan::Sharding device0 = plan::mesh_sharding({0}, {});
  const Candidate one_device{fixtures::plan_of(f.graph, std::vector<plan::Sharding>(f.graph.size(), device0)), "", "one"};
  const Price one = f.pricer.price(one_device);  // moves nothing: its flow time is its closed form
  const Price dp = f.pricer.price(f.data_parallel(), 0);  // the closed form only
  // The fc layers' weights make data parallel's all-reduces dearer than the compute it saves: its
  // closed form (a lower bound of its flow time) is already over the one device's time.
  ASSERT_GT(dp.closed_s, one.predicted_s);
  SearchOptions o;
  o.budget_s = 0;
  o.candidates = 0;
  o.patience = 1;
  o.kinds = {};
  const SearchResult r = run_search({f.data_parallel(), one_device}, f.pricer, f.graph, 4, plan::Mode::training, o);
  ASSERT_GE(r.log.size(), 2u);
  EXPECT_EQ(r.log[0].origin, "one");  // registered second, priced first
  EXPECT_EQ(r.log[0].predicted_s, one.predicted_s);
  EXPECT_EQ(r.log[1].origin, "hand");
  EXPECT_EQ(r.log[1].note, "pruned: its closed form (predicted_s) cannot win");
  EXPECT_EQ(r.log[1].predicted_s, dp.closed_s);
  EXPECT_EQ(r.best.origin, "one");
}

TEST(Search, TheSameSeedGivesTheSamePlan) {
  Fixture f;
  SearchOptions o;
  o.budget_s = 0;
  o.candidates = 60;
  o.kinds = accpar_kinds();
  o.seed = 3;
  const SearchResult a = run_search({f.data_parallel()}, f.pricer, f.graph, 4, plan::Mode::training, o);
  const SearchResult b = run_search({f.data_parallel()}, f.pricer, f.graph, 4, plan::Mode::training, o);
  ASSERT_EQ(a.log.size(), b.log.size());
  for (std::size_t i = 0; i < a.log.size(); ++i) {
    EXPECT_EQ(a.log[i].move, b.log[i].move);
    EXPECT_EQ(a.log[i].predicted_s, b.log[i].predicted_s);
  }
  for (std::size_t v = 0; v < f.graph.size(); ++v) EXPECT_EQ(a.best.plan.layers[v].sharding, b.best.plan.layers[v].sharding);
  EXPECT_EQ(a.best.plan.schedule, b.best.plan.schedule);
  EXPECT_EQ(a.stopped_by, "candidates");
  EXPECT_EQ(a.candidates, 60);
}

TEST(Search, NeverKeepsAPlanOverMemory) {
  Fixture f;
  // 20 MiB per device: 3 x 1,048,576 parameters at 16 B each (bf16 weights and gradients, fp32
  // Adam states and master weights: the footprint model's defaults) are 50 MB replicated, so the
  // data-parallel plan does not fit; plans that split the weights can.
  const topology::SystemSpec small = test::platform_from_yaml(
      "system:\n  name: star\n  precision: bf16\n  device_types:\n"
      "    dev: {kind: roofline, peak: 1TFLOP/s, memory: 20MiB, memory_bandwidth: 1000GB/s, network_bandwidth: 1GB/s}\n"
      "  devices:\n    - {type: dev, count: 4}\n  star:\n    latency: 1us\n");
  const Pricer pricer(f.registry, small, f.graph, EvaluatorKind::flow);
  ASSERT_FALSE(pricer.price(f.data_parallel()).fits);
  SearchOptions o;
  o.budget_s = 0;
  o.candidates = 200;
  o.kinds = accpar_kinds();
  const SearchResult r = run_search({f.data_parallel()}, pricer, f.graph, 4, plan::Mode::training, o);
  EXPECT_TRUE(r.best_price.fits);
  ASSERT_TRUE(r.best_price.memory);
  EXPECT_LE(r.best_price.memory->per_device_bytes, 20.0 * 1024 * 1024);
  for (const LogRow& row : r.log) EXPECT_TRUE(row.usable || !row.accepted) << "row " << row.index;
}

TEST(Search, ASpentBudgetStillPricesSeedsUntilOneIsUsable) {
  Fixture f;
  SearchOptions o;
  o.budget_s = 1e-9;  // spent before the first seed
  o.kinds = accpar_kinds();
  Candidate second = f.data_parallel();
  second.plan.schedule = schedule_variants()[1];
  const SearchResult r = run_search({f.data_parallel(), second}, f.pricer, f.graph, 4, plan::Mode::training, o);
  EXPECT_TRUE(r.best_price.usable());
  EXPECT_EQ(r.stopped_by, "budget");
  EXPECT_EQ(r.candidates, 0);
  ASSERT_EQ(r.log.size(), 2u);  // the first seed priced, the second logged as not priced
  EXPECT_TRUE(r.log[0].usable);
  EXPECT_EQ(r.log[1].note, "not priced: the budget was spent");
}

TEST(SearchLog, OneLinePerCandidateWithItsNoteQuoted) {
  LogRow row;
  row.index = 3;
  row.elapsed_s = 0.5;
  row.move = "layer";
  row.origin = "dp";
  row.schedule = schedule_label(schedule_variants()[1]);
  row.predicted_s = 0.25;
  row.closed_s = 0.125;
  row.usable = false;
  row.note = "refused: a \"bad\" sharding";
  EXPECT_EQ(search_log_csv({row}),
            "index,elapsed_s,move,origin,schedule,predicted_s,closed_form_s,usable,accepted,best_s,note\n"
            "3,0.5,layer,dp,in_order/25MB,0.25,0.125,0,0,0,\"refused: a \"\"bad\"\" sharding\"\n");
}

}  // namespace
}  // namespace partsim::search
