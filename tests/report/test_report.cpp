#include <nlohmann/json.hpp>
#include <gtest/gtest.h>

#include <cmath>

#include "sim/program/closed_form.hpp"
#include "sim/report/report.hpp"

using namespace partsim;
using plan::Pass;

TEST(Report, PearsonByHand) {
  // x = 1,2,3; y = 2,4,7: mean x 2, mean y 13/3; sxy = (-1)(-7/3) + 0 + (1)(8/3) = 5;
  // sxx = 2; syy = 49/9 + 1/9 + 64/9 = 114/9; r = 5 / sqrt(2 * 114/9) = 0.99339927...
  EXPECT_NEAR(report::pearson({1, 2, 3}, {2, 4, 7}), 5.0 / std::sqrt(2.0 * 114.0 / 9.0), 1e-12);
  EXPECT_EQ(report::pearson({1}, {2}), 0.0);
  EXPECT_EQ(report::pearson({1, 1}, {2, 3}), 0.0);  // no variance: undefined, reported as 0
}

TEST(Report, CrossCheckStatistics) {
  std::vector<report::Row> rows{{"a", "fwd", 1.0, 1.0, 1.1, 0, 0}, {"b", "fwd", 2.0, 2.0, 1.5, 0, 0},
                                {"c", "bwd", 0.0, 0.0, 0.0, 0, 0}};
  auto c = report::cross_check(rows);
  // Errors: +10 %, -25 %; the all-zero row is left out: mean 17.5 %, max 25 % at b/fwd.
  EXPECT_NEAR(c.mean_abs_rel_error, 0.175, 1e-12);
  EXPECT_NEAR(c.max_abs_rel_error, 0.25, 1e-12);
  EXPECT_EQ(c.max_error_row, "b/fwd");
  // Weighted: (|1.1 - 1| + |1.5 - 2|) / (1 + 2) = 0.6 / 3 = 20 %.
  EXPECT_NEAR(c.weighted_abs_rel_error, 0.2, 1e-12);
  // A tiny row with a huge relative error moves the mean, hardly the weighted error:
  // + row d, predicted 1e-6, simulated 1e-4 (+9900 %): mean (0.1 + 0.25 + 99) / 3 = 33.1167;
  // weighted (0.6 + 0.000099) / 3.000001.
  rows.push_back({"d", "fwd", 1e-6, 1e-4, 1e-4, 0, 0});
  c = report::cross_check(rows);
  EXPECT_NEAR(c.mean_abs_rel_error, (0.1 + 0.25 + 99) / 3, 1e-9);
  EXPECT_NEAR(c.weighted_abs_rel_error, (0.6 + 0.000099) / 3.000001, 1e-12);
}

TEST(Report, RowsFollowThePlansGranularity) {
  // Layer "x" predicted per pass (dsm-like), layer "y" per layer (AccPar-like).
  plan::Plan p;
  p.strategy = "test";
  p.predicted_iteration_s = 6e-3;
  plan::LayerPlan x;
  x.name = "x";
  plan::PassPrediction f;
  f.pass = Pass::fwd;
  f.cost.total_s = 1e-3;
  plan::PassPrediction b = f;
  b.pass = Pass::bwd;
  b.cost.total_s = 2e-3;
  x.passes = {f, b};
  plan::LayerPlan y;
  y.name = "y";
  y.predicted.total_s = 3e-3;
  p.layers = {x, y};

  program::Program prog;
  const int lx = prog.add_layer("x");
  const int ly = prog.add_layer("y");
  const int t0 = prog.add_compute(lx, Pass::fwd, "c", {0}, 1e-3, {});
  const int t1 = prog.add_transfer(lx, Pass::fwd, "t", {0}, {1}, 1e6, {t0});  // 1 MB at 1 GB/s = 1 ms
  const int t2 = prog.add_compute(ly, Pass::fwd, "c", {1}, 1e-3, {t1});
  const int t3 = prog.add_compute(ly, Pass::bwd, "c", {1}, 2e-3, {t2});
  prog.add_compute(lx, Pass::bwd, "c", {0}, 2e-3, {t3});

  program::ClosedFormEvaluator closed([](const auto&, const auto&, double bytes) { return bytes / 1e9; });
  const auto e = closed.evaluate(prog);
  // Use the closed form as the "simulation" too, with 1e12 FLOP of useful work on a 1e15 FLOP/s platform.
  const auto r = report::build_report(p, prog, e, e, 1e12, 1e15);
  ASSERT_EQ(r.rows.size(), 3u);
  EXPECT_EQ(r.rows[0].pass, "fwd");
  EXPECT_NEAR(r.rows[0].simulated_s, 2e-3, 1e-15);  // compute 1 ms + transfer 1 ms
  EXPECT_NEAR(r.rows[0].compute_s, 1e-3, 1e-15);
  EXPECT_NEAR(r.rows[0].exposed_s, 1e-3, 1e-15);
  EXPECT_EQ(r.rows[2].layer, "y");
  EXPECT_EQ(r.rows[2].pass, "all");
  EXPECT_NEAR(r.rows[2].simulated_s, 3e-3, 1e-15);  // y fwd 1 ms + y bwd 2 ms
  EXPECT_NEAR(r.simulated_iteration_s, 7e-3, 1e-15);
  EXPECT_NEAR(r.utilization, 1e12 / (1e15 * 7e-3), 1e-12);
  const auto j = report::report_json(r);
  for (const char* key : {"schema", "predicted_iteration_s", "closed_form_iteration_s", "simulated_iteration_s",
                          "utilization", "activities", "wall_s", "layers", "links", "cross_check"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_NE(report::report_table(r).find("largest disagreements"), std::string::npos);
  EXPECT_NE(report::report_table(r).find("exp. comm   exp. mem"), std::string::npos);
  EXPECT_EQ(report::report_csv(r).substr(0, 6), "layer,");
}

// Where the time went. One pass: d0 computes [0, 1) ms, then reads from its memory [1, 3) (a delay
// at the memory, as chip-granularity lowerings write it), then sends 1 MB to d1 [3, 4) (1 GB/s).
// With d1 computing [1, 4) meanwhile: compute (most-loaded endpoint, d1) 3 ms, exposed 4 - 3 = 1 ms;
// the memory read lies under d1's compute, so exposed memory is 0 and the 1 ms is communication.
// Without d1's compute: compute 1 ms, exposed 3 ms = memory [1, 3) 2 ms + communication 1 ms.
TEST(Report, ExposedTimeSplitsIntoMemoryAndCommunication) {
  plan::Plan p;
  p.strategy = "test";
  plan::LayerPlan x;
  x.name = "x";
  plan::PassPrediction f;
  f.pass = Pass::fwd;
  f.cost.total_s = 4e-3;
  x.passes = {f};
  p.layers = {x};
  for (bool overlapped : {true, false}) {
    program::Program prog;
    const int lx = prog.add_layer("x");
    const int c0 = prog.add_compute(lx, Pass::fwd, "c", {0}, 1e-3, {});
    const int m = prog.add_delay(lx, Pass::fwd, "memory read", 2e-3, {c0}, {0, -1, true});
    if (overlapped) prog.add_compute(lx, Pass::fwd, "c", {1}, 3e-3, {c0});
    prog.add_transfer(lx, Pass::fwd, "t", {0}, {1}, 1e6, {m});  // 1 MB at 1 GB/s = 1 ms
    program::ClosedFormEvaluator closed([](const auto&, const auto&, double bytes) { return bytes / 1e9; });
    const auto e = closed.evaluate(prog);
    const auto r = report::build_report(p, prog, e, e, 0, 1);
    ASSERT_EQ(r.rows.size(), 1u);
    const auto& row = r.rows[0];
    EXPECT_NEAR(row.simulated_s, 4e-3, 1e-15) << overlapped;
    EXPECT_NEAR(row.compute_s, overlapped ? 3e-3 : 1e-3, 1e-15);
    EXPECT_NEAR(row.exposed_s, overlapped ? 1e-3 : 3e-3, 1e-15);
    EXPECT_NEAR(row.exposed_memory_s, overlapped ? 0.0 : 2e-3, 1e-15);
    EXPECT_NEAR(row.exposed_communication_s(), 1e-3, 1e-15);
    const auto j = report::report_json(r);
    EXPECT_NEAR(j["layers"][0]["exposed_memory_s"].get<double>(), row.exposed_memory_s, 0);
    EXPECT_NEAR(j["layers"][0]["exposed_communication_s"].get<double>(), 1e-3, 1e-15);
  }
}

// Issue 41 item 4: the terminal table never runs two columns together, and a row predicted below
// 0.1 % of the iteration shows "n/a" for its error instead of a meaningless +9,999,900 %.
TEST(Report, TableColumnsStaySeparatedAndTinyRowsShowNoError) {
  report::Report r;
  r.predicted_iteration_s = 1.0;
  r.memory.unavailable = "test";
  // "big": 123456.789 s predicted = 123456789.000 ms, wider than its 11-character column.
  r.rows.push_back({"big", "all", 123456.789, 123456.789, 123456.789, 0, 0});
  // "relu": 1e-6 s predicted (0.0001 % of the iteration), simulated 0.1 s: +9999900 %.
  r.rows.push_back({"relu", "all", 1e-6, 0.1, 0.1, 0, 0});
  const std::string table = report::report_table(r, 0);
  EXPECT_NE(table.find(" 123456789.000 123456789.000"), std::string::npos) << table;
  const std::string relu = table.substr(table.find("relu"), table.find('\n', table.find("relu")) - table.find("relu"));
  EXPECT_NE(relu.find(" n/a "), std::string::npos) << relu;
  EXPECT_EQ(relu.find("9999900"), std::string::npos) << relu;
  EXPECT_NE(table.find("error n/a: 1 row predicted below 0.1 % of the iteration"), std::string::npos) << table;
}

// Issue 41 item 4: per-layer output that adds up. Two layers whose spans overlap, per pass (dsm-like):
//   t0  A fwd compute on d0, 3 ms:                  [0, 3] ms
//   t1  A fwd transfer d0 -> d1, 1 MB at 1 GB/s:    [0, 1] ms
//   t2  B fwd compute on d1, 4 ms, after t1:        [1, 5] ms
//   t3  join (no layer), a 0.5 ms delay, after t0 and t2: [5, 5.5] ms
//   t4  C bwd compute on d0, 1 ms (a pass the plan has no row for: C predicts fwd only), no dependency
// Spans: A 3 ms + B 4 ms = 7 ms for a 5.5 ms iteration. Critical path (critical_path.hpp): t1 1 ms,
// t2 4 ms, t3 0.5 ms; C's bwd is off the path. Rows: A 1 ms, B 4 ms, C fwd 0; other 0.5 ms (the
// join); 1 + 4 + 0.5 = 5.5 ms = the simulated iteration.
TEST(Report, CriticalPathSharesAddUpToTheIteration) {
  plan::Plan p;
  p.strategy = "test";
  p.predicted_iteration_s = 5e-3;
  for (const char* name : {"A", "B", "C"}) {
    plan::LayerPlan l;
    l.name = name;
    plan::PassPrediction f;
    f.pass = Pass::fwd;
    f.cost.total_s = 2e-3;
    l.passes = {f};
    p.layers.push_back(l);
  }
  program::Program prog;
  const int a = prog.add_layer("A");
  const int b = prog.add_layer("B");
  const int c = prog.add_layer("C");
  const int t0 = prog.add_compute(a, Pass::fwd, "compute", {0}, 3e-3, {});
  const int t1 = prog.add_transfer(a, Pass::fwd, "send", {0}, {1}, 1e6, {});
  const int t2 = prog.add_compute(b, Pass::fwd, "compute", {1}, 4e-3, {t1});
  prog.add_delay(-1, Pass::fwd, "join", 0.5e-3, {t0, t2});
  prog.add_compute(c, Pass::bwd, "compute", {0}, 1e-3, {});
  program::ClosedFormEvaluator closed([](const auto&, const auto&, double bytes) { return bytes / 1e9; });
  const auto e = closed.evaluate(prog);
  const auto r = report::build_report(p, prog, e, e, 0, 1);
  ASSERT_EQ(r.rows.size(), 3u);
  EXPECT_NEAR(r.simulated_iteration_s, 5.5e-3, 1e-15);
  EXPECT_NEAR(r.rows[0].simulated_s + r.rows[1].simulated_s, 7e-3, 1e-15);  // spans overlap
  EXPECT_NEAR(r.rows[0].critical_path_s, 1e-3, 1e-15);
  EXPECT_NEAR(r.rows[1].critical_path_s, 4e-3, 1e-15);
  EXPECT_EQ(r.rows[2].critical_path_s, 0.0);
  EXPECT_NEAR(r.critical_path_other_s, 0.5e-3, 1e-15);
  double sum = r.critical_path_other_s;
  for (const auto& row : r.rows) sum += row.critical_path_s;
  EXPECT_NEAR(sum, r.simulated_iteration_s, 1e-15);

  const auto j = report::report_json(r);
  EXPECT_NEAR(j["critical_path_other_s"].get<double>(), 0.5e-3, 1e-15);
  EXPECT_NEAR(j["layers"][1]["critical_path_s"].get<double>(), 4e-3, 1e-15);
  const std::string csv = report::report_csv(r);
  EXPECT_NE(csv.find(",memory_peak_bytes,critical_path_s\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\nB,fwd,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",,0.004\n"), std::string::npos) << csv;  // no memory timeline, then B's 4 ms
  const std::string table = report::report_table(r, 0);
  EXPECT_NE(table.find(" crit. path "), std::string::npos) << table;
  EXPECT_NE(table.find(" span [ms]  share [ms] "), std::string::npos) << table;
  // B's row: predicted 2 ms, closed and simulated spans 4 ms, its share of the path 4 ms.
  EXPECT_NE(table.find("B      fwd         2.000      4.000      4.000       4.000"), std::string::npos) << table;
  EXPECT_NE(table.find("(rows 5.000 + other 0.500 = simulated iteration, ms)"), std::string::npos) << table;
}
