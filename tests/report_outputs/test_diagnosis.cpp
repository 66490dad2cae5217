// The diagnosis of disagreements (sim/report/diagnosis.hpp), from Programs and Evaluations built by
// hand (the TaskTiming values are chosen here), every number worked out in the comments.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

#include "sim/program/platform_binding.hpp"
#include "sim/report/diagnosis.hpp"
#include "sim/report/report.hpp"
#include "tests/report_outputs/report_fixtures.hpp"

using namespace partsim;
using namespace partsim::test::report_outputs;  // also Endpoint, Evaluation, Program, Pass

// ---- diagnosis --------------------------------------------------------------------------------

namespace {

// Three rows on the ring, each with its own cause, and one transfer of another layer.
struct DiagnosisCase {
  topology::TopologyGraph g{spec_of(kRing4)};
  Program p;
  Evaluation closed, sim;
  DiagnosisCase() {
    const int c = p.add_layer("contended");
    const int x = p.add_layer("other");
    const int lat = p.add_layer("small");
    const int ov = p.add_layer("serial");
    const int rf = p.add_layer("roofline");
    std::vector<std::pair<double, double>> cf, sm;  // ms
    auto add = [&](int id, std::pair<double, double> closed_ms, std::pair<double, double> sim_ms) {
      EXPECT_EQ(id, static_cast<int>(cf.size()));
      cf.push_back(closed_ms);
      sm.push_back(sim_ms);
    };
    // contended/fwd: a d0->d2 and b d1->d2 (10 MB each) share d1->d2. Closed form: 1 us per link +
    // 10 MB / 10 GB/s = 1 ms: a 1.002 ms, b 1.001 ms. Simulated (fair sharing, as in
    // tests/replay): b ends at 2.000 ms, a at 2.001 ms. Then c d2->d3 (10 MB, 1.001 ms, not slowed).
    const int a = p.add_transfer(c, Pass::fwd, "a", dev(0), dev(2), 10e6, {});
    add(a, {0, 1.002}, {0, 2.001});
    const int b = p.add_transfer(c, Pass::fwd, "b", dev(1), dev(2), 10e6, {});
    add(b, {0, 1.001}, {0, 2.000});
    add(p.add_transfer(c, Pass::fwd, "c", dev(2), dev(3), 10e6, {a, b}), {1.002, 2.003}, {2.001, 3.002});
    // other/fwd: 1 MB on d0->d1 in [2.5, 2.6) ms of the simulation (inside contended's span).
    add(p.add_transfer(x, Pass::fwd, "x", dev(0), dev(1), 1e6, {}), {2.5, 2.6}, {2.5, 2.6});
    // small/fwd: 4 transfers of 1 kB d0->d1 one after the other: 1 us + 1 kB / 10 GB/s = 1.1 us each.
    double t = 5.0;
    int prev = -1;
    for (int k = 0; k < 4; ++k) {
      prev = p.add_transfer(lat, Pass::fwd, "grad_allreduce_x step " + std::to_string(k + 1), dev(0), dev(1), 1e3,
                            prev < 0 ? std::vector<int>{} : std::vector<int>{prev});
      add(prev, {t, t + 1.1e-3}, {t, t + 1.1e-3});
      t += 1.1e-3;
    }
    // serial/fwd: compute 1 ms on d0, then send 100 MB d0->d1 (1 us + 10 ms = 10.001 ms); the planner
    // overlapped them (max = 10.001 ms), the Program does not (11.001 ms), both evaluators agree.
    const int k = p.add_compute(ov, Pass::fwd, "compute", dev(0), 1e-3, {});
    add(k, {6, 7}, {6, 7});
    add(p.add_transfer(ov, Pass::fwd, "send", dev(0), dev(1), 100e6, {k}), {7, 17.001}, {7, 17.001});
    // roofline/fwd: 2 ms of memory-bound compute on d1, which the planner counted as 0.5 ms.
    add(p.add_compute(rf, Pass::fwd, "compute (memory-bound)", dev(1), 2e-3, {}), {20, 22}, {20, 22});
    closed = timed(cf);
    sim = timed(sm);
  }
  std::string diagnose(const report::Row& row, const report::DiagnosisOptions& options = {}) const {
    return report::diagnose_row(row, p, closed, sim, g, report::TransferRoutes(p, g), options);
  }
};

// Rows with predicted, closed form and simulated spans (s), as build_report makes them.
report::Row row(const std::string& layer, double predicted, double closed, double simulated) {
  report::Row r;
  r.layer = layer;
  r.pass = "fwd";
  r.predicted_s = predicted;
  r.closed_form_s = closed;
  r.simulated_s = simulated;
  return r;
}

}  // namespace

TEST(Diagnosis, ContentionNamesTheBusiestLinksOfTheSlowedTransfers) {
  const DiagnosisCase c;
  // Spans: closed [0, 2.003) ms, simulated [0, 3.002) ms; predicted 2 ms. Contention (0.999 ms)
  // outweighs the model gap (0.003 ms). Slowed: a and b (2 of 3); their links d0->d1, d1->d2.
  // In the simulated span (3.002 ms): d1->d2 carried a + b = 20 MB, busy [0, 2.001) = 66.7 % -> 67%;
  // d0->d1 carried a + x = 11 MB, busy [0, 2.001) + [2.5, 2.6) = 2.101 / 3.002 = 70.0 % -> 70%.
  // Simulated over closed: 3.002 / 2.003 - 1 = 49.9 % -> +50%.
  EXPECT_EQ(c.diagnose(row("contended", 2e-3, 2.003e-3, 3.002e-3)),
            "contention: d1->d2 (+x) 67% busy, d0->d1 (+x) 70%; 2 of 3 transfers slower; "
            "simulated +50% over closed form");
}

TEST(Diagnosis, LatencyBoundRowOfSmallTransfers) {
  const DiagnosisCase c;
  // 4 x 1.1 us = 4.4 us in both evaluators; the planner counted 4 x 0.1 us = 0.4 us of bytes.
  // Route latency 4 x 1 us of 4.4 us = 90.9 % -> 91%; closed over predicted 4.4 / 0.4 - 1 = +1000%.
  EXPECT_EQ(c.diagnose(row("small", 0.4e-6, 4.4e-6, 4.4e-6)),
            "latency: 4 transfers of 1 kB mean, route latency 91% of their closed-form time; "
            "closed form +1000% vs prediction");
}

TEST(Diagnosis, OverlapWhenClosedFormEqualsSimulationButNotPrediction) {
  const DiagnosisCase c;
  // 11.001 / 10.001 - 1 = +10.0 %; task time: transfer 10.001 of 11.001 ms = 90.9 % -> 91%;
  // latency share of the transfer 1 us / 10.001 ms: not latency-bound.
  EXPECT_EQ(c.diagnose(row("serial", 10.001e-3, 11.001e-3, 11.001e-3)),
            "overlap: closed form = simulated, +10% vs prediction; largest task kind transfer "
            "(91% of task time, 'send')");
}

// A plan replayed on changed parameters (simrun --allow-config-change): the same gap is the change,
// not overlap, and the compute rule does not apply either.
TEST(Diagnosis, PlatformChangeInsteadOfOverlapOrCompute) {
  const DiagnosisCase c;
  report::DiagnosisOptions options;
  options.platform_change = "system.torus.bandwidth[0]: 10GB/s -> 5GB/s";
  EXPECT_EQ(c.diagnose(row("serial", 10.001e-3, 11.001e-3, 11.001e-3), options),
            "platform changed since planning (system.torus.bandwidth[0]: 10GB/s -> 5GB/s), the prediction is for "
            "the old parameters: closed form = simulated, +10% vs prediction; largest task kind transfer "
            "(91% of task time, 'send')");
  report::Row r = row("roofline", 0.5e-3, 2e-3, 2e-3);
  r.compute_s = 2e-3;
  EXPECT_EQ(c.diagnose(r, options).rfind("platform changed since planning", 0), 0u);
}

TEST(Diagnosis, ComputeWhenTheComputeAloneOutlastsThePrediction) {
  const DiagnosisCase c;
  // Compute alone 2 ms against a prediction of 0.5 ms: 2 / 0.5 - 1 = +300 %; no overlap explains it.
  report::Row r = row("roofline", 0.5e-3, 2e-3, 2e-3);
  r.compute_s = 2e-3;
  EXPECT_EQ(c.diagnose(r),
            "compute: closed form = simulated, +300% vs prediction; compute alone takes 2 ms (+300% vs "
            "prediction), largest 'compute (memory-bound)' (100% of task time)");
  // The serial row's compute (1 ms) is within its prediction (10.001 ms): still overlap.
  report::Row serial = row("serial", 10.001e-3, 11.001e-3, 11.001e-3);
  serial.compute_s = 1e-3;
  EXPECT_EQ(c.diagnose(serial).rfind("overlap: ", 0), 0u);
}

TEST(Diagnosis, AgreementAndReportRows) {
  const DiagnosisCase c;
  EXPECT_EQ(c.diagnose(row("serial", 11.0e-3, 11.001e-3, 11.001e-3)), "agrees: simulated within 1% of prediction");
  // Closed form 2.003 ms vs predicted 3 ms (-33 %), simulated 3.002 ms: agreement by compensation.
  EXPECT_EQ(c.diagnose(row("contended", 3e-3, 2.003e-3, 3.002e-3)),
            "agrees: simulated within 1% of prediction; closed form -33%, contention makes up the difference");
  // diagnose() fills the 2 largest |simulated - predicted|: contended (1.002 ms), serial (1 ms); not
  // small (4 us). The JSON carries them; rows not diagnosed have no key.
  report::Report r;
  r.rows = {row("contended", 2e-3, 2.003e-3, 3.002e-3), row("small", 0.4e-6, 4.4e-6, 4.4e-6),
            row("serial", 10.001e-3, 11.001e-3, 11.001e-3)};
  report::diagnose(r, c.p, c.closed, c.sim, c.g, 2);
  ASSERT_EQ(r.diagnoses.size(), 3u);
  EXPECT_EQ(r.diagnoses[0].rfind("contention: ", 0), 0u);
  EXPECT_TRUE(r.diagnoses[1].empty());
  EXPECT_EQ(r.diagnoses[2].rfind("overlap: ", 0), 0u);
  const auto j = report::report_json(r);
  EXPECT_EQ(j["layers"][0]["diagnosis"], r.diagnoses[0]);
  EXPECT_FALSE(j["layers"][1].contains("diagnosis"));
  EXPECT_NE(report::report_table(r, 2).find("cause: overlap: "), std::string::npos);
}
