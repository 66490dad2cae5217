#include "sim/report/diagnosis.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/common/error.hpp"

namespace partsim::report {
namespace {

using program::Task;
using program::TaskKind;

std::string percent(double fraction, bool sign) {
  char buf[64];
  std::snprintf(buf, sizeof buf, sign ? "%+.0f%%" : "%.0f%%", fraction * 100);
  return buf;
}

// Relative difference of a to b, as a signed fraction; 0 when both are 0.
double rel(double a, double b) {
  if (b == 0) return a == 0 ? 0.0 : 1.0;
  return (a - b) / b;
}

std::string human_bytes(double bytes) {
  static const char* const units[] = {"B", "kB", "MB", "GB", "TB"};
  int u = 0;
  while (bytes >= 1000 && u < 4) {
    bytes /= 1000;
    ++u;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g %s", bytes, units[u]);
  return buf;
}

std::string human_seconds(double s) {
  static const char* const units[] = {"s", "ms", "us", "ns"};
  int u = 0;
  while (std::fabs(s) < 1 && s != 0 && u < 3) {
    s *= 1000;
    ++u;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g %s", s, units[u]);
  return buf;
}

// What a task's time is counted under: a collective's transfers under the collective's label (its
// steps, "grad_allreduce_x step 3", are one collective: Program::collective_of, not the label's text);
// every other task under its own label (a collective's overhead and latency delays keep theirs).
const std::string& what_label(const program::Program& program, const Task& task) {
  if (task.kind == TaskKind::transfer)
    if (const program::CollectiveInstance* collective = program.collective_of(task)) return collective->label;
  return task.label;
}

std::string kind_name(TaskKind kind) {
  switch (kind) {
    case TaskKind::compute: return "compute";
    case TaskKind::transfer: return "transfer";
    case TaskKind::delay: return "delay";
  }
  return "task";
}

// The tasks of a row: its layer, and its pass unless the row is "all".
std::vector<size_t> row_tasks(const Row& row, const program::Program& program) {
  const auto& names = program.layer_names();
  const auto it = std::find(names.begin(), names.end(), row.layer);
  std::vector<size_t> out;
  if (it == names.end()) return out;
  const int layer = static_cast<int>(it - names.begin());
  const auto& tasks = program.tasks();
  for (size_t i = 0; i < tasks.size(); ++i)
    if (tasks[i].layer == layer && (row.pass == "all" || plan::to_string(tasks[i].pass) == row.pass))
      out.push_back(i);
  return out;
}

double duration(const program::Evaluation& e, size_t i) { return e.tasks[i].finish - e.tasks[i].start; }

std::string contention_line(const Row& row, const std::vector<size_t>& tasks, const program::Program& program,
                            const program::Evaluation& closed, const program::Evaluation& sim,
                            const topology::TopologyGraph& graph, const TransferRoutes& routes) {
  const auto& all = program.tasks();
  size_t transfers = 0;
  std::vector<char> candidate(static_cast<size_t>(graph.link_count()), 0);
  std::vector<size_t> slowed;
  double span_start = INFINITY, span_end = -INFINITY;
  for (size_t i : tasks) {
    span_start = std::min(span_start, sim.tasks[i].start);
    span_end = std::max(span_end, sim.tasks[i].finish);
    if (all[i].kind != TaskKind::transfer || routes.route(i).empty()) continue;
    ++transfers;
    const double c = duration(closed, i);
    if (duration(sim, i) > c + 1e-9 * c + 1e-15) {
      slowed.push_back(i);
      for (int l : routes.route(i)) candidate[static_cast<size_t>(l)] = 1;
    }
  }
  const std::string tail = "simulated " + percent(rel(row.simulated_s, row.closed_form_s), true) + " over closed form";
  if (slowed.empty())
    return "contention elsewhere: this row's transfers ran at closed-form speed, its tasks waited on others; " + tail;

  // Bytes each candidate link carried during the row's span, from every transfer on it (prorated by
  // the part of the transfer inside the span), and the intervals it was busy there.
  const double span = span_end - span_start;
  std::unordered_map<int, double> bytes;
  std::unordered_map<int, std::vector<std::pair<double, double>>> busy;
  for (size_t i = 0; i < all.size(); ++i) {
    if (all[i].kind != TaskKind::transfer || all[i].bytes <= 0) continue;
    const double s = sim.tasks[i].start, f = sim.tasks[i].finish;
    const double lo = std::max(s, span_start), hi = std::min(f, span_end);
    double share = 0;
    if (f > s) {
      if (hi <= lo) continue;
      share = (hi - lo) / (f - s);
    } else {
      if (s < span_start || s > span_end) continue;
      share = 1;
    }
    for (int l : routes.route(i)) {
      if (!candidate[static_cast<size_t>(l)]) continue;
      bytes[l] += all[i].bytes * share;
      if (hi > lo) busy[l].emplace_back(lo, hi);
    }
  }
  std::vector<std::pair<double, int>> ranked;  // (-bytes, link): most bytes first, ties by link id
  for (const auto& [l, b] : bytes) ranked.emplace_back(-b, l);
  std::sort(ranked.begin(), ranked.end());
  std::string line = "contention: ";
  for (size_t k = 0; k < std::min<size_t>(3, ranked.size()); ++k) {
    const int l = ranked[k].second;
    const double fraction = span > 0 ? union_length(busy[l]) / span : 0;
    line += (k ? ", " : "") + link_label(graph.link(l)) + " " + percent(fraction, false) + (k == 0 ? " busy" : "");
  }
  return line + "; " + std::to_string(slowed.size()) + " of " + std::to_string(transfers) + " transfers slower; " +
         tail;
}

std::string model_line(const Row& row, const std::vector<size_t>& tasks, const program::Program& program,
                       const program::Evaluation& closed, const topology::TopologyGraph& graph,
                       const TransferRoutes& routes, double tol, const std::string& platform_change) {
  const auto& all = program.tasks();
  // The model gap, and the smaller contention gap when it is not negligible.
  const bool contended = std::fabs(row.simulated_s - row.closed_form_s) > tol;
  const std::string contention =
      contended ? " (simulated " + percent(rel(row.simulated_s, row.closed_form_s), true) + " over closed form)" : "";
  const std::string tail =
      "closed form " + percent(rel(row.closed_form_s, row.predicted_s), true) + " vs prediction" + contention;
  // Latency share of the row's transfers, in the closed form (no contention): route latency over
  // their durations.
  double latency = 0, time = 0, bytes = 0;
  size_t transfers = 0;
  for (size_t i : tasks) {
    if (all[i].kind != TaskKind::transfer || routes.route(i).empty()) continue;
    latency += graph.route_latency(routes.route(i));
    time += duration(closed, i);
    bytes += all[i].bytes;
    ++transfers;
  }
  if (time > 0 && latency / time > 0.5)
    return "latency: " + std::to_string(transfers) + " transfers of " +
           human_bytes(bytes / static_cast<double>(transfers)) + " mean, route latency " +
           percent(latency / time, false) + " of their closed-form time; " + tail;

  // What the Program spends its task time on in this row.
  std::map<std::pair<int, std::string>, double> by_label;
  std::map<int, double> by_kind;
  double total = 0;
  for (size_t i : tasks) {
    const double d = duration(closed, i);
    if (d <= 0) continue;
    by_kind[static_cast<int>(all[i].kind)] += d;
    by_label[{static_cast<int>(all[i].kind), what_label(program, all[i])}] += d;
    total += d;
  }
  auto largest_label = [&](int kind) {
    std::string label;
    double best = -1;
    for (const auto& [key, d] : by_label)
      if (key.first == kind && d > best) best = d, label = key.second;
    return label;
  };
  const std::string versus = contended ? tail
                                       : "closed form = simulated, " +
                                             percent(rel(row.closed_form_s, row.predicted_s), true) + " vs prediction";

  // "; largest task kind transfer (62% of task time, 'grad_allreduce_x')" appended to `line`.
  auto with_largest_kind = [&](const std::string& line) {
    if (total <= 0) return line;
    int kind = -1;
    double best = -1;
    for (const auto& [k, d] : by_kind)
      if (d > best) best = d, kind = k;
    return line + "; largest task kind " + kind_name(static_cast<TaskKind>(kind)) + " (" +
           percent(best / total, false) + " of task time, '" + largest_label(kind) + "')";
  };
  // A plan replayed on changed platform parameters: the prediction is for the old ones, so the
  // model gap is the change, not a term the planner left out (compute, overlap).
  if (!platform_change.empty())
    return with_largest_kind("platform changed since planning (" + platform_change +
                             "), the prediction is for the old parameters: " + versus);

  // Compute: the row's compute alone (on its most-loaded device) outlasts the prediction, so no
  // overlap can explain the gap: the device model times the work differently from the planner
  // (e.g. the roofline finds an activation memory-bound that the planner counts in FLOPs).
  const int compute = static_cast<int>(TaskKind::compute);
  if (row.compute_s > row.predicted_s + tol && by_kind.count(compute)) {
    return "compute: " + versus + "; compute alone takes " + human_seconds(row.compute_s) + " (" +
           percent(rel(row.compute_s, row.predicted_s), true) + " vs prediction), largest '" + largest_label(compute) +
           "' (" + percent(by_kind.at(compute) / total, false) + " of task time)";
  }

  // Overlap: the lowering and the planner disagree on what overlaps (or on a term).
  return with_largest_kind("overlap: " + versus);
}

}  // namespace

std::string diagnose_row(const Row& row, const program::Program& program, const program::Evaluation& closed_form,
                         const program::Evaluation& simulated, const topology::TopologyGraph& graph,
                         const TransferRoutes& routes, const DiagnosisOptions& options) {
  if (closed_form.tasks.size() != program.size() || simulated.tasks.size() != program.size())
    throw Error("diagnosis: the evaluations do not time this Program");
  const double tol = options.tolerance * std::max(std::fabs(row.predicted_s), std::fabs(row.simulated_s));
  if (std::fabs(row.simulated_s - row.predicted_s) <= tol) {
    std::string line = "agrees: simulated within " + percent(options.tolerance, false) + " of prediction";
    // Agreement by compensation: the Program is faster (or slower) than the planner says and
    // contention makes up the difference.
    if (std::fabs(row.closed_form_s - row.predicted_s) > tol)
      line += "; closed form " + percent(rel(row.closed_form_s, row.predicted_s), true) +
              ", contention makes up the difference";
    return line;
  }
  const std::vector<size_t> tasks = row_tasks(row, program);
  if (tasks.empty()) return "no tasks: the Program has no work for this row";
  const double model_gap = row.closed_form_s - row.predicted_s;
  const double contention_gap = row.simulated_s - row.closed_form_s;
  if (contention_gap > tol && contention_gap >= std::fabs(model_gap))
    return contention_line(row, tasks, program, closed_form, simulated, graph, routes);
  return model_line(row, tasks, program, closed_form, graph, routes, tol, options.platform_change);
}

void diagnose(Report& report, const program::Program& program, const program::Evaluation& closed_form,
              const program::Evaluation& simulated, const topology::TopologyGraph& graph, size_t worst,
              const DiagnosisOptions& options) {
  diagnose(report, program, closed_form, simulated, graph, TransferRoutes(program, graph), worst, options);
}

void diagnose(Report& report, const program::Program& program, const program::Evaluation& closed_form,
              const program::Evaluation& simulated, const topology::TopologyGraph& graph,
              const TransferRoutes& routes, size_t worst, const DiagnosisOptions& options) {
  const auto& rows = report.rows;
  std::vector<size_t> sorted(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) sorted[i] = i;
  // The same order report_table uses for "largest disagreements".
  std::stable_sort(sorted.begin(), sorted.end(), [&](size_t a, size_t b) {
    return std::fabs(rows[a].simulated_s - rows[a].predicted_s) > std::fabs(rows[b].simulated_s - rows[b].predicted_s);
  });
  report.diagnoses.assign(rows.size(), "");
  for (size_t i = 0; i < std::min(worst, sorted.size()); ++i) {
    const size_t r = sorted[i];
    report.diagnoses[r] = diagnose_row(rows[r], program, closed_form, simulated, graph, routes, options);
  }
}

}  // namespace partsim::report
