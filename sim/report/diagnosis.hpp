#pragma once
// Why a report row's simulated time differs from the planner's prediction, in one line.
//
// The gap simulated - predicted splits exactly into (closed form - predicted) + (simulated - closed
// form) (DESIGN.md principle 1: both evaluators time the same Program):
// - the second part is contention, which only the replay sees. When it is the larger part, the row
//   is "contention": its transfers that took longer in the simulation than in the closed form, and
//   the (at most 3) links of their routes that carried the most bytes during the row's simulated
//   span, with how busy each was in that span (every transfer on the link counts, whichever layer it
//   belongs to: other layers' traffic is contention too);
// - the first part is the lowering and the planner reading the layer differently. When it is the
//   larger part, the row is "latency" if the row's transfers are latency-bound (their routes'
//   latency is more than half of their closed-form time; the planners' models count bytes over
//   bandwidth), "compute" if the row's compute alone outlasts the prediction (the device model
//   times the work differently from the planner), else "overlap": closed form and simulation
//   agree but not with the prediction, and the line names the task kind (and label) that takes
//   most of the row's closed-form task time. When the platform changed since planning
//   (DiagnosisOptions::platform_change), a model gap that is not latency is "platform changed".
// - "agrees" when simulated is within the tolerance of the prediction.
// Examples:
//   "contention: d0->d1 (+x) 92% busy, d1->d2 (+x) 88%; 12 of 40 transfers slower;
//    simulated +14% over closed form"
//   "latency: 96 transfers of 4.1 kB mean, route latency 71% of their closed-form time;
//    closed form +30% vs prediction"
//   "overlap: closed form = simulated, +25% vs prediction; largest task kind transfer
//    (62% of task time, 'grad_allreduce_x')"
//   (one line each; wrapped here). When the smaller gap is not negligible, the line adds it:
//   "... closed form -44% vs prediction (simulated +30% over closed form) ...".

#include <cstddef>
#include <string>

#include "sim/program/evaluation.hpp"
#include "sim/report/link_usage.hpp"
#include "sim/report/report.hpp"
#include "topology/topology_graph.hpp"

namespace partsim::report {

struct DiagnosisOptions {
  double tolerance = 0.01;  // relative: gaps below tolerance x max(|predicted|, |simulated|) are agreement
  /// Non-empty when the plan is replayed on a platform whose parameters changed since planning
  /// (simrun --allow-config-change), e.g. "system.torus.bandwidth[0]: 120GB/s -> 60GB/s": a model
  /// gap is then "platform changed ..." rather than "compute" or "overlap".
  std::string platform_change;
};

/// The cause of `row`'s disagreement. `closed_form` and `simulated` time the same `program`.
std::string diagnose_row(const Row& row, const program::Program& program, const program::Evaluation& closed_form,
                         const program::Evaluation& simulated, const topology::TopologyGraph& graph,
                         const TransferRoutes& routes, const DiagnosisOptions& options = {});

/// Fills Report::diagnoses (one per row, "" where not diagnosed) for the `worst` rows with the
/// largest |simulated - predicted| (the rows report_table lists as the largest disagreements; ties
/// in row order).
void diagnose(Report& report, const program::Program& program, const program::Evaluation& closed_form,
              const program::Evaluation& simulated, const topology::TopologyGraph& graph, size_t worst = 5,
              const DiagnosisOptions& options = {});
/// Same, with routes already computed.
void diagnose(Report& report, const program::Program& program, const program::Evaluation& closed_form,
              const program::Evaluation& simulated, const topology::TopologyGraph& graph,
              const TransferRoutes& routes, size_t worst = 5, const DiagnosisOptions& options = {});

}  // namespace partsim::report
