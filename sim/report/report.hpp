#pragma once
// The cross-check report: for every layer and pass, the planner's prediction, the closed-form
// evaluation of the lowered Program and the simulated time, with where the time went; then totals
// and how well prediction and simulation agree (DESIGN.md principle 2).
//
// Rows follow the plan's granularity: a plan that predicts per pass (dsm) gives one row per layer
// and pass; a plan that predicts per layer (the AccPar family) gives one row per layer with pass
// "all", whose evaluated times are the sum of the layer's pass spans.

#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "sim/memory/memory_timeline.hpp"
#include "sim/plan/plan.hpp"
#include "sim/program/evaluation.hpp"

namespace partsim::report {

struct Row {
  std::string layer;
  std::string pass;           // fwd | bwd | upd | all
  double predicted_s = 0;     // the planner's own number, from plan.json
  double closed_form_s = 0;   // the Program timed without contention
  double simulated_s = 0;     // the Program replayed on SimGrid
  double compute_s = 0;       // compute busy time in the simulation (most-loaded device)
  double exposed_s = 0;       // simulated_s - compute_s: communication and memory not hidden
  /// The part of exposed_s during which the row's external-memory traffic (transfers to or from a
  /// memory, memory delays) runs while none of the row's compute does; at most exposed_s.
  double exposed_memory_s = 0;
  /// exposed_s - exposed_memory_s: chip-to-chip and on-chip transfers, latencies and waiting.
  double exposed_communication_s() const { return exposed_s - exposed_memory_s; }
  /// The largest memory use of any device during the row's simulated span(s), in bytes (the
  /// replay's memory timeline); < 0 when the plan has no timeline (MemoryReport::unavailable).
  double memory_peak_bytes = -1;
  /// The row's share of the simulated critical path (sim/program/critical_path.hpp): unlike the
  /// spans above, which overlap, the rows' shares plus Report::critical_path_other_s add up to the
  /// simulated iteration. 0 for a row with no task on the path.
  double critical_path_s = 0;
  /// (simulated - predicted) / predicted; 0 when both are 0.
  double rel_error() const;
};

struct CrossCheck {
  double mean_abs_rel_error = 0;  // over rows with a non-zero prediction or simulation
  /// sum |simulated - predicted| / sum predicted over rows: the error weighted by each row's
  /// predicted time, so rows of microseconds (an activation the planner counts in FLOPs only)
  /// do not dominate it as they do the plain mean. 0 when nothing is predicted.
  double weighted_abs_rel_error = 0;
  double max_abs_rel_error = 0;
  std::string max_error_row;      // "layer/pass" of the largest error
  double pearson_r = 0;           // of predicted vs simulated over rows; 0 if undefined (< 2 rows
                                  // or no variance), so it never prints NaN
};

/// Per-link load in the simulation: the fraction of the iteration the link was busy (link_usage.hpp).
struct LinkUsage {
  std::string link;
  double bytes = 0;
  double busy_fraction = 0;
  int id = -1;               // TopoLink id in the TopologyGraph (names of parallel links may repeat)
  std::string kind;          // chip_to_chip | on_chip | memory
  std::string axis;          // torus links: direction and dimension, e.g. "+x"; else empty
  double bandwidth = 0;      // bytes/s in this direction
  double utilization = 0;    // bytes / (bandwidth x iteration time)
};

/// One device's peak in the replay's memory timeline (sim/memory/memory_timeline.hpp).
struct DeviceMemoryPeak {
  std::string device;         // the platform's name for it
  double peak_bytes = 0;
  double peak_time_s = 0;     // when the peak is first reached, from the start of the iteration
  double resident_bytes = 0;  // weights + gradients + optimizer, held throughout
  double capacity_bytes = 0;  // the device type's memory
};

/// The replay's memory timeline as results.json reports it: every device's peak, or why there is
/// no timeline.
struct MemoryReport {
  std::string unavailable = "no memory timeline was computed";  // why there is none; "" when there is one
  std::vector<DeviceMemoryPeak> devices;  // device order; empty when unavailable
  /// Index of the device with the largest peak (the lowest on a tie); devices must not be empty.
  std::size_t fullest() const;
};

struct Report {
  std::string strategy;
  std::string config;
  std::string workload;
  long long batch = 0;
  std::string granularity;
  /// What the run changed from its inputs' files, in order (key -> value as written): every --set
  /// platform key, then what a sweep varied besides the platform (batch, workload, strategy,
  /// option.NAME; simrun --record). A key given twice keeps its first place and its last value.
  std::vector<std::pair<std::string, std::string>> overrides;
  /// Platform keys that differ from the platform the plan was made for ("key: old -> new"; a plan
  /// replayed with --allow-config-change); empty when the plan is replayed where it was made.
  std::vector<std::string> platform_changes;
  /// What the reader must know to read the figures (e.g. a megatron plan lowered with
  /// fold_replicas: the folded replicas' devices ran only their DP collectives); empty: none.
  std::vector<std::string> notes;
  double predicted_iteration_s = 0;
  double closed_form_iteration_s = 0;
  double simulated_iteration_s = 0;
  /// The simulated critical path's share that no row takes: tasks of no layer (joins, collectives
  /// a lowering assigns to no layer) and of a layer or pass the plan has no row for. The rows'
  /// critical_path_s plus this = simulated_iteration_s (up to rounding).
  double critical_path_other_s = 0;
  double utilization = 0;  // useful FLOP / (peak FLOP/s x simulated time)
  long long activities = 0;
  // The replay's transfers that SimGrid's network model ran (they met another transfer on a link,
  // or every transfer with --lone-transfers simgrid) and those timed alone from start to end.
  long long simgrid_comms = 0;
  long long lone_transfers = 0;
  double wall_s = 0;
  std::vector<Row> rows;
  std::vector<LinkUsage> links;
  CrossCheck cross_check;
  MemoryReport memory;  // filled by add_memory_timeline; unavailable until then
  /// The cause of a row's disagreement (diagnosis.hpp), same index as rows; "" for a row not
  /// diagnosed; may be shorter than rows (or empty) when nothing was diagnosed.
  std::vector<std::string> diagnoses;
  const std::string& diagnosis(size_t row) const;
};

/// Pearson correlation of two equally long series; 0 when undefined.
double pearson(const std::vector<double>& x, const std::vector<double>& y);

/// Cross-check statistics over rows.
CrossCheck cross_check(const std::vector<Row>& rows);

/// Builds the rows and totals. `useful_flops` is the workload's FLOP for one iteration, `peak_flops`
/// the platform's; both only serve the utilization.
Report build_report(const plan::Plan& plan, const program::Program& program, const program::Evaluation& closed_form,
                    const program::Evaluation& simulated, double useful_flops, double peak_flops);

/// Puts the simulated memory timeline in the report: every device's peak (named by `device_names`,
/// against `capacities_bytes`, both in device order) and each row's memory_peak_bytes over the
/// simulated spans of its layer's passes.
void add_memory_timeline(Report& report, const memory::MemoryTimeline& timeline, const program::Program& program,
                         const program::Evaluation& simulated, const std::vector<std::string>& device_names,
                         const std::vector<double>& capacities_bytes);

/// results.json (schema in docs/results-format.md).
nlohmann::ordered_json report_json(const Report& report);
/// The per-layer table and the totals, as simrun prints them.
std::string report_table(const Report& report, size_t worst_rows = 5);
/// One line per row: layer,pass,predicted_s,closed_form_s,simulated_s,compute_s,exposed_s,
/// exposed_communication_s,exposed_memory_s,rel_error,memory_peak_bytes (empty without a timeline),
/// critical_path_s (last: readers that index the older columns keep working).
std::string report_csv(const Report& report);

}  // namespace partsim::report
