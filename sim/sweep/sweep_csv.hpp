#pragma once
// The sweep CSV (README "Sweeps", the contract the plots rely on): for every axis `<axis>` (the
// value as written) and `<axis>_si` (the value in SI base units; empty for workload and strategy
// names and other values that are no number), then
// status,predicted_s,closed_form_s,simulated_s,utilization,memory_peak_bytes,error,warnings; one row per point in the
// sweep's order. status is `ok`, `warning` (ran, but a program printed a warning; the warnings
// column lists them, "; "-separated), `over_memory` (the plan does not fit a device's memory; the
// error column says by how much; times only when it was replayed all the same: simplan
// --allow-over-memory, or a --fixed-plan on less memory) or `failed` (the error column holds the
// program's error line).

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/sweep/sweep_axis.hpp"

namespace partsim::sweep {

/// A CSV field: quoted (RFC 4180) when it holds a comma, a quote or a line break.
std::string csv_field(std::string_view text);

/// The header line, with its "\n".
std::string csv_header(const std::vector<SweepAxis>& axes);

/// The axis columns of a point's row, each followed by its comma: "10GB/s,10000000000,".
std::string csv_axis_columns(const std::vector<SweepAxis>& axes, const SweepPoint& point);

/// What a point's run left in its folder.
struct PointOutcome {
  std::string status;                     // ok | warning | over_memory | failed
  double predicted_s = 0, closed_form_s = 0, simulated_s = 0, utilization = 0;  // when `timed`
  /// The replay's memory timeline peak (whole bytes), none when the strategy has no timeline (dsm).
  std::optional<double> memory_peak_bytes;
  std::string error;                      // failed: the program's last line; over_memory: the line saying so
  std::vector<std::string> warnings;      // the programs' warning lines, in order
  bool timed = false;                     // the point was replayed: the times above are its results.json's
};

/// The warning lines of a log: partsim's "PROGRAM: warning: ..." and SimGrid's "[...WARNING] ...".
std::vector<std::string> warning_lines(std::string_view log);

/// The totals of a results.json text, or std::nullopt when it is missing or incomplete.
struct Totals {
  double predicted_s, closed_form_s, simulated_s, utilization;
  std::optional<double> memory_peak_bytes;  // results.json memory_timeline.peak_bytes; none without a timeline
};
std::optional<Totals> results_totals(const std::filesystem::path& results_file);

/// Reads `dir`/results.json and `dir`/log.txt of a point whose programs ended with `exit_code`.
PointOutcome read_outcome(const std::filesystem::path& dir, int exit_code);

/// One row, with its "\n".
std::string csv_row(const std::vector<SweepAxis>& axes, const SweepPoint& point, const PointOutcome& outcome);

/// A shard's CSV (written by simsweep --shard) and the points it must hold.
struct ShardFile {
  std::string name;                 // for messages
  std::string text;
  std::vector<SweepPoint> points;   // the shard's block of the sweep, in order
};

/// The whole sweep's CSV from its shards' CSVs in shard order: the header once, then every shard's
/// rows. Throws InputError naming the file when a shard's header differs from `header`, or its rows
/// are not exactly its block's points (a shard that did not finish, or files given out of order).
std::string merge_shards(const std::vector<ShardFile>& shards, const std::vector<SweepAxis>& axes);

}  // namespace partsim::sweep
