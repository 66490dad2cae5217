#pragma once
// simplan's command-line options in one place: simplan parses its command line with them, and
// simsweep parses each --simplan-arg with the same parser before the first point, so a bad extra
// argument is refused up front with simplan's own message.


#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/cli/command_line.hpp"
#include "sim/plan/plan.hpp"

namespace CLI {
class App;  // <CLI/CLI.hpp>: included by the files that define command lines
}  // namespace CLI

namespace partsim::cli {

/// How a training plan's gradient all-reduces are scheduled, when the command line says so (unset:
/// the strategy's; plan.json "schedule", docs/plan-format.md).
struct GradientSyncOptions {
  std::optional<plan::GradientSyncOrder> order;  // --gradient-sync-order concurrent|in_order
  std::optional<double> bucket_bytes;            // --gradient-bucket SIZE (bytes per device)
  std::optional<plan::GradientSyncAlgorithm> algorithm;  // --gradient-sync-algorithm all_reduce|parameter_server
  // --redistribution point_to_point|collective: not about gradients, but a schedule directive to the
  // same lowering, for training and inference plans alike.
  std::optional<plan::Redistribution> redistribution;
  // --collective-algorithm COLLECTIVE=ALGORITHM (repeatable): plan schedule.collective_algorithms.
  std::map<std::string, std::string> collective_algorithms;
  bool any() const { return order || bucket_bytes || algorithm; }  // the gradient directives
  void apply_to(plan::ScheduleDirectives& schedule) const;
};
/// Adds --gradient-sync-order, --gradient-bucket, --gradient-sync-algorithm and --redistribution
/// (simplan's and the replay benchmark's).
void add_gradient_sync_options(CLI::App& app, GradientSyncOptions& options);

/// How the footprint model counts a training step's model states, when the command line says so
/// (unset: sim/memory/parameter_bytes.hpp default_memory_settings() for the platform).
struct MemoryOptions {
  std::optional<plan::Optimizer> optimizer;             // --optimizer sgd|momentum|adam
  std::optional<plan::TrainingPrecision> precision;     // --training-precision fp32|mixed
  std::optional<bool> fp32_main_gradients;              // --fp32-main-gradients true|false
  bool any() const { return optimizer || precision || fp32_main_gradients; }
  /// `defaults` with every setting the command line gives.
  plan::MemorySettings applied_to(plan::MemorySettings defaults) const;
};

struct SimplanOptions {
  std::string workload;             // zoo name, workload YAML file or ONNX model
  std::optional<long long> batch;   // --batch: minibatch size (required to plan; --describe: 1)
  bool quiet = false;               // --quiet: no summary line or notes
  bool describe = false;
  bool list = false;
  std::string json_file;            // --json: describe output as JSON ("-" = stdout)
  double bytes_per_element = 4;     // tensor bytes in --describe (4 = fp32)
  PlatformOptions platform;         // --config, --set, --dump-config (planning modes)
  std::string strategy;             // --strategy (see --list-strategies)
  bool list_strategies = false;
  int levels = -1;                  // --levels: AccPar hierarchy levels searched (-1 = all)
  std::vector<std::string> strategy_options;  // --option key=value
  std::string mode = "training";    // --mode training|inference
  std::string output;               // -o plan.json
  std::string dsm_opt;              // --opt: dsm optimizations (becomes the option opt=...)
  std::string explain;              // --explain LAYER
  std::optional<std::uint64_t> seed;  // --seed N (stochastic strategies)
  GradientSyncOptions gradient_sync;  // --gradient-sync-order, --gradient-bucket, --gradient-sync-algorithm
  MemoryOptions memory;             // --optimizer, --training-precision, --fp32-main-gradients
  bool describe_memory = false;     // --describe-memory: the plan's footprint per layer and kind
  bool allow_over_memory = false;   // --allow-over-memory: write a plan that does not fit (else exit 2)
};

/// Adds every simplan option to `app` (also -q/--quiet; --version and --help come from parse()).
void add_simplan_options(CLI::App& app, SimplanOptions& options);

/// The strategy options the command line gives: every --option, then --levels and --opt in their
/// option form (levels=H, opt=LIST).
std::vector<std::string> strategy_options(const SimplanOptions& options);

/// Parses `args` (simsweep's --simplan-arg values, in order) as simplan would. Throws InputError
/// "--simplan-arg ARGS: WHY" for a value simplan would refuse, and for an option simsweep sets itself
/// at every point (--config, --set, --workload, --batch, --strategy, -o) or one that would make simplan
/// do something other than plan (--describe, --list, --explain, ...); the message lists the others.
SimplanOptions parse_simplan_arguments(const std::vector<std::string>& args);

}  // namespace partsim::cli
