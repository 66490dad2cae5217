#pragma once
// What one point of a sweep runs: the sweep's fixed inputs with the point's values applied, the
// programs it runs (simplan unless a plan is fixed, then simrun) and its definition, the text
// --resume compares to decide whether a point's earlier results still stand.

#include <filesystem>
#include <string>
#include <vector>

#include "sim/sweep/process_pool.hpp"
#include "sim/sweep/sweep_axis.hpp"

namespace partsim::sweep {

/// What every point shares (simsweep's options besides --vary).
struct SweepBase {
  std::string config;                      // platform YAML
  std::string workload;                    // zoo name or workload file
  long long batch = 0;
  std::string strategy;
  std::vector<std::string> options;        // --option NAME=VALUE
  std::vector<std::string> sets;           // --set KEY=VALUE at every point
  std::string fixed_plan;                  // replayed at every point instead of re-planning
  std::string granularity = "chip";
  std::vector<std::string> simplan_args;   // passed to simplan as they are
};

/// One point's inputs.
struct PointInputs {
  std::string workload;
  long long batch = 0;
  std::string strategy;
  std::vector<std::string> options;  // the sweep's, then the point's option.NAME values
  std::vector<std::string> sets;     // the sweep's --set, then the point's platform keys
  std::vector<std::string> records;  // KEY=VALUE of the point's other axes (simrun --record)
};

/// A batch value of a --vary axis: a whole number from 1 to 1e9. Throws InputError naming it.
long long parse_batch(const std::string& text);

/// The base with `point`'s values applied (one value per axis, in axis order).
PointInputs point_inputs(const SweepBase& base, const std::vector<SweepAxis>& axes, const SweepPoint& point);

/// The programs of a point, in order, their output in `dir`/log.txt: simplan writes `dir`/plan.json
/// (unless the plan is fixed), simrun writes `dir`/results.json with the point's overrides recorded.
std::vector<Command> point_commands(const SweepBase& base, const PointInputs& inputs, const std::filesystem::path& bin,
                                    const std::filesystem::path& dir);

/// The point's definition (JSON text, what `dir`/point.json holds): the programs' arguments (program
/// names without their folder), the partsim version and `input_hashes` (fingerprints of the inputs
/// whose content the arguments only name: the resolved platform, workload and plan files).
std::string point_definition(const std::vector<Command>& commands, const std::vector<std::string>& input_hashes);

}  // namespace partsim::sweep
