// The pipelined SimGrid replay of a placement (sim/planners/mcm/pipeline.hpp) on the five-node diamond.
#include <gtest/gtest.h>

#include "sim/planners/mcm/cost_model.hpp"
#include "sim/planners/mcm/pipeline.hpp"
#include "tests/mcm/tiny_ring.hpp"

namespace partsim::mcm {
namespace {

TEST(Pipeline, CopiesKeepTheirOrderAndNames) {
  const workloads::Graph g = test::diamond();
  const workloads::Graph copies = micro_batches(g, 3);
  ASSERT_EQ(copies.size(), 15u);
  for (std::size_t k = 0; k < 3; ++k)
    for (std::size_t v = 0; v < g.size(); ++v)
      EXPECT_EQ(copies.layer(k * g.size() + v).name, "mb" + std::to_string(k) + "/" + g.layer(v).name);
  EXPECT_EQ(copies.totals().params, 3 * g.totals().params);
}

TEST(Pipeline, PeriodIsTheBusiestChipWhenReceivingOverlaps) {
  const topology::SystemSpec ring = test::tiny_ring(4);
  const workloads::Graph g = test::diamond();
  Placement f(g.size());
  for (const char* n : {"x", "a"}) f[*g.index_of(n)] = 0;
  for (const char* n : {"b", "c", "d"}) f[*g.index_of(n)] = 1;
  // Chip 1 computes b, c (2 us each) and d (1 ns) per micro-batch: 4.001 us. Tensor a (b and d
  // each fetch its 1000 B over the 1 GB/s link: 2.2 us together) arrives while chip 1 still works
  // on the previous micro-batch, so in steady state the period is chip 1's compute alone. The
  // analytical model adds the two (6.201 us, test_placement.cpp): the replay overlaps what the
  // model serialises.
  const PipelineReplay r = replay_pipeline(ring, g, f, 6);
  EXPECT_NEAR(r.period_s, 4.001e-6, 4.001e-6 * 1e-3);
  // The first micro-batch: a on chip 0 (2 us); both fetches of a share the link (2 x 1000 B at
  // 1 GB/s + 100 ns = 2.1 us); then chip 1 (4.001 us): 8.101 us.
  EXPECT_NEAR(r.finish_s.front(), 2e-6 + 2.1e-6 + 4.001e-6, 1e-8);
  EXPECT_NEAR(analytical_cost(make_problem(ring, g), f).latency_s, 6.201e-6, 1e-12);
}

}  // namespace
}  // namespace partsim::mcm
