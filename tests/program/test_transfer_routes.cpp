// A Program bound to a platform (platform_binding.hpp TransferRoutes): every transfer's route
// resolved once per node pair, and the closed form timed from those routes exactly as from the
// graph (the same doubles), so simrun resolves them once for the closed form, the replay and the report.
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "sim/common/error.hpp"
#include "sim/program/closed_form.hpp"
#include "sim/program/platform_binding.hpp"
#include "tests/support/platform_yaml.hpp"

using namespace partsim;
using namespace partsim::program;
using plan::Pass;

namespace {

Endpoint dev(int d) { return {d, -1, false}; }

}  // namespace

TEST(TransferRoutes, ResolvesEachPairOnceAndTimesAsTheGraphDoes) {
  const topology::TopologyGraph g(test::unidirectional_ring(4));  // d0 -> d1 -> d2 -> d3 -> d0, 10 GB/s, 1 us
  Program p;
  const int l = p.add_layer("l");
  const int c = p.add_compute(l, Pass::fwd, "compute", dev(0), 1e-3, {});
  const int far = p.add_transfer(l, Pass::fwd, "far", dev(0), dev(2), 1e6, {c});     // 2 links
  const int again = p.add_transfer(l, Pass::fwd, "again", dev(0), dev(2), 3e6, {});  // the same pair
  const int back = p.add_transfer(l, Pass::fwd, "back", dev(3), dev(0), 2e6, {far});  // 1 link
  const int local = p.add_transfer(l, Pass::fwd, "local", dev(1), dev(1), 5e6, {});  // same node
  const int d = p.add_delay(l, Pass::fwd, "delay", 2e-6, {back, local}, Endpoint::nowhere());

  const TransferRoutes routes(p, g);
  EXPECT_EQ(routes.task_count(), p.size());
  EXPECT_EQ(routes.pair_count(), 3u);
  EXPECT_EQ(routes.pair_of(static_cast<std::size_t>(far)), routes.pair_of(static_cast<std::size_t>(again)));
  EXPECT_EQ(routes.pair_of(static_cast<std::size_t>(c)), -1);
  EXPECT_EQ(routes.pair_of(static_cast<std::size_t>(d)), -1);
  EXPECT_EQ(routes.route(static_cast<std::size_t>(far)).size(), 2u);
  EXPECT_EQ(routes.route(static_cast<std::size_t>(back)).size(), 1u);
  EXPECT_TRUE(routes.route(static_cast<std::size_t>(local)).empty());
  // Sorted, without the same-node pair: d0 -> d2 and d3 -> d0 by node id.
  const std::vector<std::pair<int, int>> pairs = routes.communicating_pairs();
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_LT(pairs[0], pairs[1]);
  // 2 us + 1 MB / 10 GB/s = 102 us; the closed form from the routes equals the graph's, bit for bit.
  EXPECT_DOUBLE_EQ(routes.uncontended_time(static_cast<std::size_t>(far), 1e6), 102e-6);
  EXPECT_EQ(routes.uncontended_time(static_cast<std::size_t>(local), 5e6), 0.0);
  EXPECT_THROW(routes.uncontended_time(static_cast<std::size_t>(c), 1.0), Error);
  const Evaluation bound = ClosedFormEvaluator(routes).evaluate(p);
  const Evaluation from_graph = ClosedFormEvaluator(uncontended_transfer_time(g)).evaluate(p);
  ASSERT_EQ(bound.tasks.size(), from_graph.tasks.size());
  for (std::size_t i = 0; i < bound.tasks.size(); ++i) {
    EXPECT_EQ(bound.tasks[i].start, from_graph.tasks[i].start) << i;
    EXPECT_EQ(bound.tasks[i].finish, from_graph.tasks[i].finish) << i;
  }
  EXPECT_EQ(bound.makespan_s, from_graph.makespan_s);

  // Routes resolved for another Program (here: before a task was added) are refused.
  p.add_compute(l, Pass::fwd, "later", dev(1), 1e-3, {});
  EXPECT_THROW(ClosedFormEvaluator(routes).evaluate(p), Error);
}
