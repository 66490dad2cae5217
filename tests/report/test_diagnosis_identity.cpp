// The diagnosis reads what a task is from its collective identity (program.hpp CollectiveInstance),
// not from its label: a collective's steps are counted as one collective even when the collective's
// own name contains " step " (which parsing " step " out of the label cut short and merged).

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/report/diagnosis.hpp"
#include "sim/report/link_usage.hpp"
#include "tests/support/platform_yaml.hpp"

using namespace partsim;
using program::Endpoint;
using program::Program;

namespace {

// Adds collective `label` of one transfer d0 -> d1 per (step, ms) and times them back to back from
// `t` ms (both evaluations: no contention).
void add_steps(Program& p, int layer, const std::string& label, const std::vector<double>& ms, double& t,
               program::Evaluation& e) {
  const int c = p.add_collective_instance(collectives::Kind::all_reduce, "ring", {0, 1}, label);
  for (std::size_t s = 0; s < ms.size(); ++s) {
    const int id = p.add_transfer(layer, plan::Pass::fwd, label + " step " + std::to_string(s + 1), {0, -1, false},
                                  {1, -1, false}, ms[s] * 1e7, {});
    p.mark_collective(id, c, static_cast<int>(s));
    e.tasks.push_back({t * 1e-3, (t + ms[s]) * 1e-3});
    t += ms[s];
    e.makespan_s = t * 1e-3;
  }
}

}  // namespace

// Layer "l": collectives "warm step 2 sync" (2 steps of 3 ms), "warm step 3 sync" (2 of 3 ms) and
// "grad" (1 of 10 ms), 22 ms of transfers against a prediction of 20 ms (+10 %), both evaluators
// agreeing: an overlap row whose largest collective is 'grad' (10 ms). Cutting labels at " step "
// would count both warm-ups as one "warm" of 12 ms and name it instead.
TEST(DiagnosisIdentity, GroupsACollectivesStepsByIdentityNotByTheStepInItsLabel) {
  const topology::TopologyGraph g(test::unidirectional_ring(2));
  Program p;
  program::Evaluation e;
  const int l = p.add_layer("l");
  double t = 0;
  add_steps(p, l, "warm step 2 sync", {3, 3}, t, e);
  add_steps(p, l, "warm step 3 sync", {3, 3}, t, e);
  add_steps(p, l, "grad", {10}, t, e);
  report::Row row;
  row.layer = "l";
  row.pass = "fwd";
  row.predicted_s = 20e-3;
  row.closed_form_s = row.simulated_s = 22e-3;
  EXPECT_EQ(report::diagnose_row(row, p, e, e, g, report::TransferRoutes(p, g), {}),
            "overlap: closed form = simulated, +10% vs prediction; largest task kind transfer "
            "(100% of task time, 'grad')");

  // Another instance under the first warm-up's label (4 steps of 3 ms): that label now counts 6 + 12 =
  // 18 ms, more than 'grad', and is named in full (cutting at " step " would say 'warm', 30 ms).
  add_steps(p, l, "warm step 2 sync", {3, 3, 3, 3}, t, e);
  row.closed_form_s = row.simulated_s = t * 1e-3;
  row.predicted_s = row.simulated_s / 1.1;
  EXPECT_EQ(report::diagnose_row(row, p, e, e, g, report::TransferRoutes(p, g), {}),
            "overlap: closed form = simulated, +10% vs prediction; largest task kind transfer "
            "(100% of task time, 'warm step 2 sync')");
}

// Transfers that belong to no collective are counted under their whole label: nothing is parsed.
TEST(DiagnosisIdentity, TransfersOfNoCollectiveKeepTheirWholeLabel) {
  const topology::TopologyGraph g(test::unidirectional_ring(2));
  Program p;
  program::Evaluation e;
  const int l = p.add_layer("l");
  // "send step 1" 4 ms and "send step 2" 4 ms (no collective: two labels), "other" 6 ms.
  const std::vector<std::pair<std::string, double>> sends = {{"send step 1", 4}, {"send step 2", 4}, {"other", 6}};
  double t = 0;
  for (const auto& [label, ms] : sends) {
    p.add_transfer(l, plan::Pass::fwd, label, {0, -1, false}, {1, -1, false}, ms * 1e7, {});
    e.tasks.push_back({t * 1e-3, (t + ms) * 1e-3});
    t += ms;
  }
  e.makespan_s = t * 1e-3;
  report::Row row;
  row.layer = "l";
  row.pass = "fwd";
  row.closed_form_s = row.simulated_s = 14e-3;
  row.predicted_s = 14e-3 / 1.1;
  EXPECT_EQ(report::diagnose_row(row, p, e, e, g, report::TransferRoutes(p, g), {}),
            "overlap: closed form = simulated, +10% vs prediction; largest task kind transfer "
            "(100% of task time, 'other')");
}
