// Per-link usage of a replay (sim/report/link_usage.hpp), from Programs and Evaluations built by hand
// (the TaskTiming values are chosen here), so every number below is worked out in the comments.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <string>

#include "sim/program/platform_binding.hpp"
#include "sim/report/link_usage.hpp"
#include "sim/report/report.hpp"
#include "tests/report_outputs/report_fixtures.hpp"

using namespace partsim;
using namespace partsim::test::report_outputs;  // also Endpoint, Evaluation, Program, Pass

// ---- link usage -------------------------------------------------------------------------------

TEST(LinkUsage, BytesBusyFractionAndUtilizationByHand) {
  const topology::TopologyGraph g(spec_of(kRing4));
  Program p;
  const int l = p.add_layer("l0");
  p.add_transfer(l, Pass::fwd, "a", dev(0), dev(2), 10e6, {});  // 0: d0->d1, d1->d2
  p.add_transfer(l, Pass::fwd, "b", dev(1), dev(2), 10e6, {});  // 1: d1->d2
  p.add_transfer(l, Pass::fwd, "c", dev(2), dev(3), 5e6, {});   // 2: d2->d3
  p.add_transfer(l, Pass::fwd, "d", dev(0), dev(1), 1e6, {});   // 3: d0->d1
  p.add_transfer(l, Pass::fwd, "self", dev(1), dev(1), 7e6, {});  // 4: no link
  p.add_compute(l, Pass::fwd, "compute", dev(3), 4e-3, {});       // 5
  const Evaluation e = timed({{0, 2}, {1, 3}, {3.5, 4}, {3, 3.5}, {0, 0}, {0, 4}});  // makespan 4 ms
  const auto u = report::link_usage(p, e, g);
  // Capacity over the iteration: 10 GB/s x 4 ms = 40 MB.
  ASSERT_EQ(u.size(), 3u);  // d3->d0 carried nothing
  const auto* d01 = usage_of(u, "d0->d1");
  const auto* d12 = usage_of(u, "d1->d2");
  const auto* d23 = usage_of(u, "d2->d3");
  ASSERT_TRUE(d01 && d12 && d23);
  // d0->d1: a (10 MB, [0, 2)) and d (1 MB, [3, 3.5)): 11 MB, busy 2.5 ms of 4 = 0.625, 11/40 = 0.275.
  EXPECT_DOUBLE_EQ(d01->bytes, 11e6);
  EXPECT_NEAR(d01->busy_fraction, 0.625, 1e-12);
  EXPECT_NEAR(d01->utilization, 0.275, 1e-12);
  // d1->d2: a [0, 2) and b [1, 3) overlap: union [0, 3) = 3 ms -> 0.75; 20 MB / 40 MB = 0.5.
  EXPECT_DOUBLE_EQ(d12->bytes, 20e6);
  EXPECT_NEAR(d12->busy_fraction, 0.75, 1e-12);
  EXPECT_NEAR(d12->utilization, 0.5, 1e-12);
  // d2->d3: c, 5 MB in [3.5, 4): 0.125 and 5/40 = 0.125.
  EXPECT_DOUBLE_EQ(d23->bytes, 5e6);
  EXPECT_NEAR(d23->busy_fraction, 0.125, 1e-12);
  EXPECT_NEAR(d23->utilization, 0.125, 1e-12);
  // Sorted by id, with the topology's kind, axis and bandwidth.
  EXPECT_LT(u[0].id, u[1].id);
  EXPECT_LT(u[1].id, u[2].id);
  EXPECT_EQ(d01->id, link_id(g, "d0->d1"));
  EXPECT_EQ(d01->kind, "chip_to_chip");
  EXPECT_EQ(d01->axis, "+x");
  EXPECT_DOUBLE_EQ(d01->bandwidth, 10e9);
}

TEST(LinkUsage, UnionLengthMergesOverlapsAndIgnoresEmptyIntervals) {
  // [0,1) [0.5,2) [2,3) [5,5) [4,4.5): union [0,3) + [4,4.5) = 3.5.
  std::vector<std::pair<double, double>> v{{2, 3}, {0.5, 2}, {5, 5}, {0, 1}, {4, 4.5}};
  EXPECT_DOUBLE_EQ(report::union_length(v), 3.5);
  std::vector<std::pair<double, double>> none;
  EXPECT_DOUBLE_EQ(report::union_length(none), 0.0);
}

TEST(LinkUsage, CoreGranularityNamesMemoryAndOnChipLinks) {
  const topology::TopologyGraph g(spec_of(kChips2), topology::Granularity::core);
  Program p;
  const int l = p.add_layer("l0");
  p.add_transfer(l, Pass::fwd, "load", {0, -1, true}, {0, 1, false}, 4e6, {});   // memory -> core 0 -> core 1
  p.add_transfer(l, Pass::fwd, "send", {0, 0, false}, {1, 0, false}, 2e6, {});  // off chip
  const Evaluation e = timed({{0, 1}, {0, 2}});
  const auto u = report::link_usage(p, e, g);
  std::map<std::string, double> bytes_by_kind;
  double total = 0;
  for (const auto& x : u) {
    bytes_by_kind[x.kind] += x.bytes;
    total += x.bytes;
    EXPECT_EQ(x.kind, report::to_string(g.link(x.id).kind));
  }
  // The load crosses the memory link (4 MB) and at least one on-chip link; the send a chip-to-chip link.
  EXPECT_DOUBLE_EQ(bytes_by_kind["memory"], 4e6);
  EXPECT_GE(bytes_by_kind["on_chip"], 4e6);
  EXPECT_GE(bytes_by_kind["chip_to_chip"], 2e6);
  // Every link's bytes = the sum over the transfers whose route crosses it.
  const report::TransferRoutes routes(p, g);
  double expected = 0;
  for (size_t i = 0; i < p.size(); ++i) expected += p.tasks()[i].bytes * static_cast<double>(routes.route(i).size());
  EXPECT_DOUBLE_EQ(total, expected);
}

TEST(LinkUsage, ReportJsonWritesUsedLinksSortedById) {
  report::Report r;
  report::LinkUsage a{"d1->d2", 20e6, 0.75, 1, "chip_to_chip", "+x", 10e9, 0.5};
  report::LinkUsage idle{"d3->d0", 0, 0, 3, "chip_to_chip", "+x", 10e9, 0};
  report::LinkUsage b{"d0->d1", 11e6, 0.625, 0, "chip_to_chip", "+x", 10e9, 0.275};
  r.links = {a, idle, b};
  const auto j = report::report_json(r);
  ASSERT_EQ(j["links"].size(), 2u);
  EXPECT_EQ(j["links"][0]["link"], "d0->d1");
  EXPECT_EQ(j["links"][0]["id"], 0);
  EXPECT_EQ(j["links"][0]["kind"], "chip_to_chip");
  EXPECT_DOUBLE_EQ(j["links"][0]["utilization"].get<double>(), 0.275);
  EXPECT_DOUBLE_EQ(j["links"][1]["busy_fraction"].get<double>(), 0.75);
  EXPECT_DOUBLE_EQ(j["links"][1]["bandwidth_Bps"].get<double>(), 10e9);
}
