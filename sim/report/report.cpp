#include "sim/report/report.hpp"

#include <nlohmann/json.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "sim/common/error.hpp"
#include "sim/common/number_text.hpp"
#include "sim/program/critical_path.hpp"

namespace partsim::report {
namespace {

// Seconds as milliseconds with 3 decimals: per-layer times are micro- to milliseconds.
constexpr int kMsDecimals = 3;

// Signed microseconds, "+0.0" rather than "-0.0" for gaps that round to nothing.
std::string signed_us(double seconds) {
  const std::string text = fixed(seconds * 1e6, 1);
  return text.front() == '-' ? text : "+" + text;
}

// A right-aligned column always keeps one space before its text, so wide numbers never run into
// the column before them ("0.0602073805.4").
std::string pad(const std::string& s, size_t width, bool left = false) {
  if (s.size() >= width) return left ? s : " " + s;
  return left ? s + std::string(width - s.size(), ' ') : std::string(width - s.size(), ' ') + s;
}

// Rows predicted below this share of the iteration get "n/a" for their relative error in the
// terminal table: an error of 500,000 % on a 0.001 ms ReLU says nothing (results.json keeps it).
constexpr double kErrorShownFromShare = 1e-3;

// results.json's "memory_timeline": the fullest device's peak and every device's, or why there is none.
nlohmann::ordered_json memory_json(const MemoryReport& memory) {
  nlohmann::ordered_json j;
  if (memory.devices.empty()) {
    j["available"] = false;
    j["reason"] = memory.unavailable;
    return j;
  }
  const DeviceMemoryPeak& fullest = memory.devices[memory.fullest()];
  j["available"] = true;
  j["evaluation"] = "simulated";
  j["peak_bytes"] = fullest.peak_bytes;
  j["peak_device"] = fullest.device;
  j["peak_time_s"] = fullest.peak_time_s;
  j["capacity_bytes"] = fullest.capacity_bytes;
  nlohmann::ordered_json devices = nlohmann::ordered_json::array();
  for (const DeviceMemoryPeak& d : memory.devices)
    devices.push_back({{"device", d.device},
                       {"peak_bytes", d.peak_bytes},
                       {"peak_time_s", d.peak_time_s},
                       {"resident_bytes", d.resident_bytes},
                       {"capacity_bytes", d.capacity_bytes}});
  j["devices"] = devices;
  return j;
}

// Bytes as GiB with 3 decimals for the table; "-" without a timeline.
std::string gib(double bytes) { return bytes < 0 ? std::string("-") : fixed(bytes / 1073741824.0, 3); }

}  // namespace

const std::string& Report::diagnosis(size_t row) const {
  static const std::string none;
  return row < diagnoses.size() ? diagnoses[row] : none;
}

double Row::rel_error() const {
  if (predicted_s == 0) return simulated_s == 0 ? 0.0 : 1.0;
  return (simulated_s - predicted_s) / predicted_s;
}

double pearson(const std::vector<double>& x, const std::vector<double>& y) {
  const size_t n = std::min(x.size(), y.size());
  if (n < 2) return 0;
  double mx = 0, my = 0;
  for (size_t i = 0; i < n; ++i) {
    mx += x[i];
    my += y[i];
  }
  mx /= static_cast<double>(n);
  my /= static_cast<double>(n);
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < n; ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  if (sxx <= 0 || syy <= 0) return 0;
  return sxy / std::sqrt(sxx * syy);
}

CrossCheck cross_check(const std::vector<Row>& rows) {
  CrossCheck c;
  std::vector<double> predicted, simulated;
  double sum = 0, abs_gap = 0, predicted_sum = 0;
  size_t counted = 0;
  for (const auto& r : rows) {
    if (r.predicted_s == 0 && r.simulated_s == 0) continue;
    const double e = std::fabs(r.rel_error());
    sum += e;
    abs_gap += std::fabs(r.simulated_s - r.predicted_s);
    predicted_sum += std::fabs(r.predicted_s);
    ++counted;
    if (e > c.max_abs_rel_error || c.max_error_row.empty()) {
      c.max_abs_rel_error = e;
      c.max_error_row = r.layer + "/" + r.pass;
    }
    predicted.push_back(r.predicted_s);
    simulated.push_back(r.simulated_s);
  }
  c.mean_abs_rel_error = counted ? sum / static_cast<double>(counted) : 0;
  c.weighted_abs_rel_error = predicted_sum > 0 ? abs_gap / predicted_sum : 0;
  c.pearson_r = pearson(predicted, simulated);
  return c;
}

Report build_report(const plan::Plan& plan, const program::Program& program, const program::Evaluation& closed_form,
                    const program::Evaluation& simulated, double useful_flops, double peak_flops) {
  Report r;
  r.strategy = plan.strategy;
  r.config = plan.config.name;
  r.workload = plan.workload.name;
  r.batch = plan.workload.batch;
  r.predicted_iteration_s = plan.predicted_iteration_s;
  r.closed_form_iteration_s = closed_form.makespan_s;
  r.simulated_iteration_s = simulated.makespan_s;
  r.activities = simulated.activities;
  r.utilization = simulated.makespan_s > 0 && peak_flops > 0 ? useful_flops / (peak_flops * simulated.makespan_s) : 0;

  // Evaluated spans by (layer name, pass).
  struct Times {
    double closed = 0, simulated = 0, compute = 0, memory = 0;
  };
  std::map<std::pair<std::string, int>, Times> spans;
  const auto closed_spans = program::layer_pass_spans(program, closed_form);
  const auto sim_spans = program::layer_pass_spans(program, simulated);
  for (const auto& s : closed_spans)
    spans[{program.layer_names()[static_cast<size_t>(s.layer)], static_cast<int>(s.pass)}].closed = s.span();
  for (const auto& s : sim_spans) {
    auto& t = spans[{program.layer_names()[static_cast<size_t>(s.layer)], static_cast<int>(s.pass)}];
    t.simulated = s.span();
    t.compute = s.compute_busy_s;
    t.memory = s.memory_only_s;
  }
  // Shares of the simulated critical path by (layer name, pass); a row takes its own (each share
  // once, so none counts twice), and what no row takes goes to critical_path_other_s.
  const program::CriticalPath path = program::critical_path(program, simulated);
  std::map<std::pair<std::string, int>, double> critical;
  for (const auto& s : path.shares)
    critical[{program.layer_names()[static_cast<size_t>(s.layer)], static_cast<int>(s.pass)}] += s.seconds;
  auto take_critical = [&critical](const std::string& layer, int pass) {
    const auto it = critical.find({layer, pass});
    if (it == critical.end()) return 0.0;
    const double seconds = it->second;
    critical.erase(it);
    return seconds;
  };
  for (const auto& layer : plan.layers) {
    if (!layer.passes.empty()) {
      for (const auto& p : layer.passes) {
        const Times t = spans[{layer.name, static_cast<int>(p.pass)}];
        const double exposed = std::max(0.0, t.simulated - t.compute);
        r.rows.push_back({layer.name, plan::to_string(p.pass), p.cost.total_s, t.closed, t.simulated, t.compute,
                          exposed, std::min(exposed, t.memory), -1, take_critical(layer.name, static_cast<int>(p.pass))});
      }
    } else {
      Row row{layer.name, "all", layer.predicted.total_s, 0, 0, 0, 0, 0, -1, 0};
      for (int pass = 0; pass < 3; ++pass) row.critical_path_s += take_critical(layer.name, pass);
      bool has_tasks = false;
      for (int pass = 0; pass < 3; ++pass) {
        auto it = spans.find({layer.name, pass});
        if (it == spans.end()) continue;
        has_tasks = true;
        row.closed_form_s += it->second.closed;
        row.simulated_s += it->second.simulated;
        row.compute_s += it->second.compute;
        row.exposed_memory_s += it->second.memory;
      }
      row.exposed_s = std::max(0.0, row.simulated_s - row.compute_s);
      row.exposed_memory_s = std::min(row.exposed_s, row.exposed_memory_s);
      // A layer the planner folded into another (dsm: an activation or pooling runs as its primary
      // layer's auxiliary work) has neither a prediction nor tasks of its own: no row.
      if (has_tasks || row.predicted_s != 0) r.rows.push_back(row);
    }
  }
  r.critical_path_other_s = path.other_s;
  for (const auto& [key, seconds] : critical) r.critical_path_other_s += seconds;
  r.cross_check = cross_check(r.rows);
  return r;
}

std::size_t MemoryReport::fullest() const {
  if (devices.empty()) throw Error("MemoryReport::fullest: no memory timeline (" + unavailable + ")");
  std::size_t best = 0;
  for (std::size_t d = 1; d < devices.size(); ++d)
    if (devices[d].peak_bytes > devices[best].peak_bytes) best = d;
  return best;
}

void add_memory_timeline(Report& report, const memory::MemoryTimeline& timeline, const program::Program& program,
                         const program::Evaluation& simulated, const std::vector<std::string>& device_names,
                         const std::vector<double>& capacities_bytes) {
  report.memory = {};
  report.memory.unavailable.clear();
  for (const memory::DeviceMemoryTimeline& d : timeline.devices) {
    const auto i = static_cast<std::size_t>(d.device);
    report.memory.devices.push_back({device_names.at(i), d.peak_bytes, d.peak_time_s, d.resident_bytes,
                                     capacities_bytes.at(i)});
  }
  // A row's peak: the largest use over the simulated spans of its pass, or of every pass ("all").
  std::map<std::pair<std::string, std::string>, double> peaks;
  for (const auto& s : program::layer_pass_spans(program, simulated)) {
    const std::string& layer = program.layer_names()[static_cast<std::size_t>(s.layer)];
    const double peak = timeline.peak_between(s.start, s.finish);
    for (const std::string& pass : {plan::to_string(s.pass), std::string("all")}) {
      double& p = peaks.try_emplace({layer, pass}, 0.0).first->second;
      p = std::max(p, peak);
    }
  }
  for (Row& row : report.rows) {
    const auto it = peaks.find({row.layer, row.pass});
    row.memory_peak_bytes = it == peaks.end() ? 0.0 : it->second;
  }
}

nlohmann::ordered_json report_json(const Report& report) {
  nlohmann::ordered_json j;
  j["schema"] = 1;
  j["strategy"] = report.strategy;
  j["config"] = report.config;
  j["workload"] = report.workload;
  j["batch"] = report.batch;
  j["granularity"] = report.granularity;
  j["overrides"] = nlohmann::ordered_json::object();
  for (const auto& [key, value] : report.overrides) j["overrides"][key] = value;
  if (!report.platform_changes.empty()) j["platform_changes"] = report.platform_changes;
  if (!report.notes.empty()) j["notes"] = report.notes;
  j["predicted_iteration_s"] = report.predicted_iteration_s;
  j["closed_form_iteration_s"] = report.closed_form_iteration_s;
  j["simulated_iteration_s"] = report.simulated_iteration_s;
  j["critical_path_other_s"] = report.critical_path_other_s;
  j["utilization"] = report.utilization;
  j["activities"] = report.activities;
  j["simgrid_comms"] = report.simgrid_comms;
  j["lone_transfers"] = report.lone_transfers;
  j["wall_s"] = report.wall_s;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const auto& row : report.rows)
    rows.push_back({{"name", row.layer},
                    {"pass", row.pass},
                    {"predicted_s", row.predicted_s},
                    {"closed_form_s", row.closed_form_s},
                    {"simulated_s", row.simulated_s},
                    {"critical_path_s", row.critical_path_s},
                    {"compute_s", row.compute_s},
                    {"exposed_s", row.exposed_s},
                    {"exposed_communication_s", row.exposed_communication_s()},
                    {"exposed_memory_s", row.exposed_memory_s},
                    {"rel_error", row.rel_error()},
                    {"memory_peak_bytes", row.memory_peak_bytes < 0 ? nlohmann::ordered_json(nullptr)
                                                                    : nlohmann::ordered_json(row.memory_peak_bytes)}});
  // Diagnosed rows (diagnosis.hpp) carry their cause; the others have no "diagnosis" key.
  for (size_t i = 0; i < report.rows.size(); ++i)
    if (!report.diagnosis(i).empty()) rows[i]["diagnosis"] = report.diagnosis(i);
  j["layers"] = rows;
  // Links that carried traffic, by link id (link_usage.hpp).
  std::vector<const LinkUsage*> used;
  for (const auto& l : report.links)
    if (l.bytes > 0) used.push_back(&l);
  std::stable_sort(used.begin(), used.end(), [](const LinkUsage* a, const LinkUsage* b) { return a->id < b->id; });
  nlohmann::ordered_json links = nlohmann::ordered_json::array();
  for (const LinkUsage* l : used)
    links.push_back({{"id", l->id},
                     {"link", l->link},
                     {"kind", l->kind},
                     {"axis", l->axis},
                     {"bandwidth_Bps", l->bandwidth},
                     {"bytes", l->bytes},
                     {"busy_fraction", l->busy_fraction},
                     {"utilization", l->utilization}});
  j["links"] = links;
  j["memory_timeline"] = memory_json(report.memory);
  j["cross_check"] = {{"mean_abs_rel_error", report.cross_check.mean_abs_rel_error},
                      {"weighted_abs_rel_error", report.cross_check.weighted_abs_rel_error},
                      {"max_abs_rel_error", report.cross_check.max_abs_rel_error},
                      {"max_error_row", report.cross_check.max_error_row},
                      {"pearson_r", report.cross_check.pearson_r}};
  return j;
}

std::string report_table(const Report& report, size_t worst_rows) {
  std::ostringstream out;
  size_t name_width = 5;
  for (const auto& row : report.rows) name_width = std::max(name_width, row.layer.size());
  // "span" and "share" under the headers say which times overlap between rows and which add up.
  out << pad("layer", name_width, true) << "  pass  " << pad("predicted", 11) << pad("closed", 11)
      << pad("simulated", 11) << pad("crit. path", 12) << pad("error", 9) << pad("compute", 11) << pad("exp. comm", 11)
      << pad("exp. mem", 11) << pad("mem peak", 11) << "\n";
  out << pad("", name_width, true) << "        " << pad("[ms]", 11) << pad("span [ms]", 11) << pad("span [ms]", 11)
      << pad("share [ms]", 12) << pad("[%]", 9) << pad("[ms]", 11) << pad("[ms]", 11) << pad("[ms]", 11)
      << pad("[GiB]", 11) << "\n";
  size_t not_shown = 0;
  double critical_rows = 0;
  for (const auto& row : report.rows) {
    const bool tiny = row.predicted_s < kErrorShownFromShare * report.predicted_iteration_s;
    not_shown += tiny ? 1 : 0;
    critical_rows += row.critical_path_s;
    out << pad(row.layer, name_width, true) << "  " << pad(row.pass, 4, true) << "  "
        << pad(ms_number(row.predicted_s, kMsDecimals), 11) << pad(ms_number(row.closed_form_s, kMsDecimals), 11)
        << pad(ms_number(row.simulated_s, kMsDecimals), 11) << pad(ms_number(row.critical_path_s, kMsDecimals), 12)
        << pad(tiny ? std::string("n/a") : fixed(row.rel_error() * 100, 1), 9)
        << pad(ms_number(row.compute_s, kMsDecimals), 11)
        << pad(ms_number(row.exposed_communication_s(), kMsDecimals), 11)
        << pad(ms_number(row.exposed_memory_s, kMsDecimals), 11) << pad(gib(row.memory_peak_bytes), 11) << "\n";
  }
  out << "span: first start to last finish of the row's tasks (rows overlap); share: the row's part of the simulated "
         "critical path (rows "
      << ms_number(critical_rows, kMsDecimals) << " + other " << ms_number(report.critical_path_other_s, kMsDecimals)
      << " = simulated iteration, ms)\n";
  if (not_shown > 0)
    out << "error n/a: " << not_shown << " row" << (not_shown > 1 ? "s" : "")
        << " predicted below 0.1 % of the iteration (results.json keeps their rel_error)\n";
  out << "\niteration: predicted " << ms_number(report.predicted_iteration_s, kMsDecimals) << " ms, closed form "
      << ms_number(report.closed_form_iteration_s, kMsDecimals) << " ms, simulated "
      << ms_number(report.simulated_iteration_s, kMsDecimals) << " ms\n";
  if (report.memory.devices.empty()) {
    out << "memory timeline: none (" << report.memory.unavailable << ")\n";
  } else {
    const DeviceMemoryPeak& m = report.memory.devices[report.memory.fullest()];
    out << "memory peak " << gib(m.peak_bytes) << " GiB on " << m.device << " at "
        << ms_number(m.peak_time_s, kMsDecimals) << " ms (capacity " << gib(m.capacity_bytes)
        << " GiB; resident weights, gradients and optimizer " << gib(m.resident_bytes) << " GiB)\n";
  }
  out << "utilization " << fixed(report.utilization, 3) << "; " << report.activities << " activities in "
      << fixed(report.wall_s, 3) << " s wall\n";
  // The time-weighted error first: the plain mean over rows is dominated by rows predicted near 0
  // (an activation the planner counts in FLOPs only), thousands of percent of microseconds.
  out << "cross-check over " << report.rows.size() << " rows: |error| weighted by predicted time "
      << fixed(report.cross_check.weighted_abs_rel_error * 100, 2) << " % (sum |simulated - predicted| / sum predicted), "
      << "Pearson r " << fixed(report.cross_check.pearson_r, 4) << "\n";
  out << "  per row: max |error| " << fixed(report.cross_check.max_abs_rel_error * 100, 2) << " % ("
      << report.cross_check.max_error_row << "), unweighted mean |error| "
      << fixed(report.cross_check.mean_abs_rel_error * 100, 2) << " % (rows predicted near 0 weigh as much as the rest)\n";

  if (worst_rows > 0 && !report.rows.empty()) {
    std::vector<const Row*> sorted;
    for (const auto& row : report.rows) sorted.push_back(&row);
    std::map<const Row*, size_t> index_of;  // for the row's diagnosis
    for (size_t i = 0; i < report.rows.size(); ++i) index_of[&report.rows[i]] = i;
    std::stable_sort(sorted.begin(), sorted.end(), [](const Row* a, const Row* b) {
      return std::fabs(a->simulated_s - a->predicted_s) > std::fabs(b->simulated_s - b->predicted_s);
    });
    out << "largest disagreements (simulated - predicted, microseconds):\n";
    for (size_t i = 0; i < std::min(worst_rows, sorted.size()); ++i) {
      const Row& row = *sorted[i];
      // Cause: where the closed form already differs, the lowering charges events the planner does
      // not (latency, overlap); the rest of the gap is contention only the replay sees.
      const double model_gap = row.closed_form_s - row.predicted_s;
      const double contention = row.simulated_s - row.closed_form_s;
      out << "  " << row.layer << "/" << row.pass << ": " << signed_us(row.simulated_s - row.predicted_s)
          << " us = " << signed_us(model_gap) << " us planner vs program (latency, overlap, compute) "
          << signed_us(contention) << " us contention\n";
      const std::string& cause = report.diagnosis(index_of[&row]);
      if (!cause.empty()) out << "    cause: " << cause << "\n";
    }
  }
  return out.str();
}

std::string report_csv(const Report& report) {
  std::ostringstream out;
  out.precision(9);
  out << "layer,pass,predicted_s,closed_form_s,simulated_s,compute_s,exposed_s,exposed_communication_s,"
         "exposed_memory_s,rel_error,memory_peak_bytes,critical_path_s\n";
  for (const auto& row : report.rows) {
    out << row.layer << "," << row.pass << "," << row.predicted_s << "," << row.closed_form_s << "," << row.simulated_s
        << "," << row.compute_s << "," << row.exposed_s << "," << row.exposed_communication_s() << ","
        << row.exposed_memory_s << "," << row.rel_error() << ",";
    if (row.memory_peak_bytes >= 0) out << fixed(row.memory_peak_bytes, 0);  // whole bytes, not 9 digits
    out << "," << row.critical_path_s << "\n";
  }
  return out.str();
}

}  // namespace partsim::report
