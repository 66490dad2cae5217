#pragma once
// The options of the benchmarks that plan a workload and lower it (plan_replay_bench,
// flow_evaluator_bench): platform, workload, batch, strategy with its options and the gradient
// schedule, declared once, and the one-line description of the run they print first.

#include <CLI/CLI.hpp>

#include <string>
#include <utility>
#include <vector>

#include "sim/cli/simplan_options.hpp"
#include "sim/plan/plan_io.hpp"

namespace partsim::bench {

struct PlanBenchOptions {
  /// The defaults a benchmark runs with: a platform file under configs/, a workload, batch, strategy.
  PlanBenchOptions(const std::string& config_name, std::string workload_, long long batch_, std::string strategy_)
      : config(std::string(PARTSIM_SOURCE_DIR) + "/configs/" + config_name), workload(std::move(workload_)),
        batch(batch_), strategy(std::move(strategy_)) {}

  std::string config;                      // platform YAML
  std::vector<std::string> overrides;      // --set KEY=VALUE
  std::string workload;
  long long batch = 1;
  std::string strategy;
  std::vector<std::string> options;        // --option NAME=VALUE
  cli::GradientSyncOptions sync;

  /// Declares the options on `app`; the defaults are the struct's values as the caller set them.
  void add_to(CLI::App& app) {
    app.add_option("--config", config, "Platform YAML file (default " + config + ")")->check(CLI::ExistingFile);
    app.add_option("--set", overrides, "Platform key override KEY=VALUE, as simplan --set (repeatable)");
    app.add_option("--workload", workload, "Zoo workload (default " + workload + ")");
    app.add_option("--batch", batch, "Minibatch (default " + std::to_string(batch) + ")")
        ->check(CLI::Range(1LL, 1'000'000'000LL));
    app.add_option("--strategy", strategy, "Planning strategy (default " + strategy + ")");
    app.add_option("--option", options, "Strategy option NAME=VALUE, as simplan --option (repeatable), e.g. tp=8 for megatron");
    cli::add_gradient_sync_options(app, sync);
  }

  /// "WORKLOAD training, batch B, STRATEGY plan, CONFIG[ --set ...][ --option ...][, gradient ...]".
  std::string describe() const {
    std::string text = workload + " training, batch " + std::to_string(batch) + ", " + strategy + " plan, " + config;
    for (const auto& o : overrides) text += " --set " + o;
    for (const auto& o : options) text += " --option " + o;
    if (sync.order) text += ", gradient all-reduces " + plan::gradient_sync_order_names()[static_cast<std::size_t>(*sync.order)];
    if (sync.bucket_bytes) text += ", gradient buckets of " + std::to_string(static_cast<long long>(*sync.bucket_bytes)) + " B";
    return text;
  }
};

}  // namespace partsim::bench
