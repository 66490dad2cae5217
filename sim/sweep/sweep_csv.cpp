#include "sim/sweep/sweep_csv.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "sim/common/error.hpp"
#include "sim/common/text.hpp"
#include "sim/plan/memory_use.hpp"
#include "sim/sweep/si_quantity.hpp"

namespace partsim::sweep {
namespace {

// Bytes as a whole number ("121291481088"), not 9 significant digits.
std::string whole_bytes(double bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f", bytes);
  return buf;
}

std::string number(double v) {
  std::ostringstream os;
  os.precision(9);
  os << v;
  return os.str();
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    lines.push_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

// The axis's SI value: none for names (a workload called "8" is still a name).
std::string si_column(AxisKind kind, const std::string& value) {
  return kind == AxisKind::workload || kind == AxisKind::strategy ? std::string() : si_text(value);
}

// The first line saying the plan does not fit memory (plan::kPlanDoesNotFit), or "".
std::string does_not_fit_line(std::string_view log) {
  for (const auto line : lines_of(log))
    if (line.find(plan::kPlanDoesNotFit) != std::string_view::npos) return std::string(line);
  return {};
}

}  // namespace

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string csv_header(const std::vector<SweepAxis>& axes) {
  std::string header;
  for (const auto& axis : axes) header += csv_field(axis.key) + "," + csv_field(axis.key + "_si") + ",";
  return header + "status,predicted_s,closed_form_s,simulated_s,utilization,memory_peak_bytes,error,warnings\n";
}

std::string csv_axis_columns(const std::vector<SweepAxis>& axes, const SweepPoint& point) {
  std::string columns;
  for (size_t a = 0; a < axes.size() && a < point.size(); ++a)
    columns += csv_field(point[a].second) + "," + csv_field(si_column(axes[a].kind, point[a].second)) + ",";
  return columns;
}

std::vector<std::string> warning_lines(std::string_view log) {
  std::vector<std::string> warnings;
  for (const auto line : lines_of(log))
    if (line.find(": warning: ") != std::string_view::npos || line.find("/WARNING] ") != std::string_view::npos)
      warnings.emplace_back(line);
  return warnings;
}

std::optional<Totals> results_totals(const std::filesystem::path& results_file) {
  std::ifstream in(results_file);
  if (!in) return std::nullopt;
  try {
    const auto j = nlohmann::json::parse(in);
    // The memory timeline's peak (the fullest device's), absent when the strategy has none (dsm).
    std::optional<double> memory_peak;
    const auto memory = j.find("memory_timeline");
    if (memory != j.end() && memory->value("available", false)) memory_peak = memory->at("peak_bytes").get<double>();
    return Totals{j.at("predicted_iteration_s").get<double>(), j.at("closed_form_iteration_s").get<double>(),
                  j.at("simulated_iteration_s").get<double>(), j.at("utilization").get<double>(), memory_peak};
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

PointOutcome read_outcome(const std::filesystem::path& dir, int exit_code) {
  PointOutcome outcome;
  const std::string log = read_file(dir / "log.txt");
  outcome.warnings = warning_lines(log);
  const std::string over_memory = does_not_fit_line(log);
  if (exit_code != 0) {
    outcome.status = "failed";
    // The last non-empty line of the log: the one-line error the program printed.
    for (const auto line : lines_of(log))
      if (!line.empty()) outcome.error = std::string(line);
    if (outcome.error.empty()) outcome.error = "exit code " + std::to_string(exit_code) + ", nothing printed";
    // simplan refused the plan for its memory: not a failure of the sweep but a point that cannot run.
    if (!over_memory.empty() && outcome.error == over_memory) outcome.status = "over_memory";
    return outcome;
  }
  const auto totals = results_totals(dir / "results.json");
  if (!totals) {
    outcome.status = "failed";
    outcome.error = "no complete results.json in " + dir.string();
    return outcome;
  }
  // Replayed although it does not fit (--simplan-arg=--allow-over-memory, or a --fixed-plan on less
  // memory than it was made for): timed, but marked, with the line that says so.
  outcome.status = !over_memory.empty() ? "over_memory" : outcome.warnings.empty() ? "ok" : "warning";
  if (!over_memory.empty()) outcome.error = over_memory;
  outcome.predicted_s = totals->predicted_s;
  outcome.closed_form_s = totals->closed_form_s;
  outcome.simulated_s = totals->simulated_s;
  outcome.utilization = totals->utilization;
  outcome.memory_peak_bytes = totals->memory_peak_bytes;
  outcome.timed = true;
  return outcome;
}

std::string csv_row(const std::vector<SweepAxis>& axes, const SweepPoint& point, const PointOutcome& outcome) {
  std::string row = csv_axis_columns(axes, point) + outcome.status + ",";
  if (!outcome.timed)
    row += ",,,,,";
  else
    row += number(outcome.predicted_s) + "," + number(outcome.closed_form_s) + "," + number(outcome.simulated_s) + "," +
           number(outcome.utilization) + "," +
           (outcome.memory_peak_bytes ? whole_bytes(*outcome.memory_peak_bytes) : std::string()) + ",";
  return row + csv_field(outcome.error) + "," + csv_field(join(outcome.warnings, [](const std::string& w) -> const std::string& { return w; }, "; ")) + "\n";
}

std::string merge_shards(const std::vector<ShardFile>& shards, const std::vector<SweepAxis>& axes) {
  const std::string header = csv_header(axes);
  std::string merged = header;
  for (const auto& shard : shards) {
    if (!shard.text.starts_with(header))
      throw InputError(shard.name + ": not a shard of this sweep: its header is not '" +
                       header.substr(0, header.size() - 1) + "'");
    auto rows = lines_of(std::string_view(shard.text).substr(header.size()));
    if (rows.size() != shard.points.size())
      throw InputError(shard.name + ": " + std::to_string(rows.size()) + " rows, but its shard of this sweep has " +
                       std::to_string(shard.points.size()) + " points (a shard that did not finish, or the files out of shard order?)");
    for (size_t r = 0; r < rows.size(); ++r)
      if (!rows[r].starts_with(csv_axis_columns(axes, shard.points[r])))
        throw InputError(shard.name + ": row " + std::to_string(r + 2) + " is not the shard's point " +
                         std::to_string(r + 1) + " (" + csv_axis_columns(axes, shard.points[r]) +
                         "...): the files must be given in shard order 0, 1, ...");
    for (const auto row : rows) merged += std::string(row) + "\n";
  }
  return merged;
}

}  // namespace partsim::sweep
