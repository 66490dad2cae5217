#include "sim/cli/simplan_options.hpp"

#include <nlohmann/json.hpp>
#include <CLI/CLI.hpp>

#include <algorithm>

#include "sim/common/error.hpp"
#include "sim/common/text.hpp"
#include "sim/common/units.hpp"
#include "sim/plan/plan_io.hpp"

namespace partsim::cli {

void GradientSyncOptions::apply_to(plan::ScheduleDirectives& schedule) const {
  if (order) schedule.gradient_sync_order = *order;
  if (bucket_bytes) schedule.gradient_bucket_bytes = *bucket_bytes;
  if (algorithm) schedule.gradient_sync_algorithm = *algorithm;
  if (redistribution) schedule.redistribution = *redistribution;
  for (const auto& [collective, name] : collective_algorithms) schedule.collective_algorithms[collective] = name;
}

plan::MemorySettings MemoryOptions::applied_to(plan::MemorySettings settings) const {
  if (optimizer) settings.optimizer = *optimizer;
  if (precision) settings.precision = *precision;
  if (fp32_main_gradients) settings.fp32_main_gradients = *fp32_main_gradients;
  return settings;
}

namespace {

/// An option taking one of `names` into `target` (the enum value of the same index).
template <class Enum>
void add_choice(CLI::App& app, const std::string& flag, std::optional<Enum>& target, const std::vector<std::string>& names,
                const std::string& help) {
  app.add_option_function<std::string>(
         flag,
         [&target, &names](const std::string& name) {
           target = static_cast<Enum>(std::find(names.begin(), names.end(), name) - names.begin());
         },
         help)
      ->check(CLI::IsMember(names));
}

}  // namespace

void add_gradient_sync_options(CLI::App& app, GradientSyncOptions& o) {
  add_choice(app, "--gradient-sync-order", o.order, plan::gradient_sync_order_names(),
             "Training plans: how gradient all-reduces share the network (plan schedule.gradient_sync_order): "
             "concurrent (default: all at once) or in_order (one stream per device, as NCCL and XLA)");
  app.add_option_function<std::string>(
         "--gradient-bucket",
         [&o](const std::string& size) {
           std::string error;
           const auto bytes = units::parse(size, units::Dimension::bytes, &error);
           if (!bytes) throw CLI::ValidationError("--gradient-bucket", error);
           o.bucket_bytes = *bytes;
         },
         "Training plans: all-reduce consecutive layers' gradients together in buckets of this size per device, "
         "e.g. 25MB as PyTorch DDP (plan schedule.gradient_bucket_bytes; default 0B: each layer alone)")
      ->type_name("SIZE");
  add_choice(app, "--gradient-sync-algorithm", o.algorithm, plan::gradient_sync_algorithm_names(),
             "Training plans: how replicas synchronise their gradients (plan schedule.gradient_sync_algorithm): "
             "all_reduce (default: a ring, or the torus all-reduce) or parameter_server (one device of the replica "
             "group, a different one per layer, gathers the gradients and sends the parameters back, as DeePa's GPU "
             "parameter servers; deepa: --option update=...)");
  app.add_option_function<std::vector<std::string>>(
         "--collective-algorithm",
         [&o](const std::vector<std::string>& pairs) {
           for (const std::string& pair : pairs) {
             const auto eq = pair.find('=');
             const std::string collective = pair.substr(0, eq);
             if (eq == std::string::npos || (collective != "reduce_scatter" && collective != "all_gather" &&
                                             collective != "all_reduce"))
               throw CLI::ValidationError("--collective-algorithm", "'" + pair + "': expected COLLECTIVE=ALGORITHM with "
                                          "COLLECTIVE one of reduce_scatter, all_gather, all_reduce");
             o.collective_algorithms[collective] = pair.substr(eq + 1);
           }
         },
         "The algorithm of a collective in the plan (plan schedule.collective_algorithms), e.g. all_reduce=double_binary_tree "
         "(simrun --list-collectives lists them; default: the platform's system.collectives, else torus or ring)")
      ->type_name("COLLECTIVE=ALGORITHM");
  add_choice(app, "--redistribution", o.redistribution, plan::redistribution_names(),
             "How inputs and errors move between layers of different shardings (plan schedule.redistribution): "
             "point_to_point (default: one transfer per holder and needer) or collective (an all-gather or "
             "reduce-scatter over every device runs as that collective, as tensor-parallel frameworks do; the "
             "rest stays point to point). Over 200,000 point-to-point transfers the replay may take minutes: "
             "simplan and simrun warn, naming this option (docs/sweeps.md)");
}

void add_simplan_options(CLI::App& app, SimplanOptions& o) {
  app.add_option("--workload", o.workload,
                 "Zoo name (see --list), workload YAML file or ONNX model[#ops,NAME=N] (workloads/README.md)");
  app.add_option("--batch", o.batch, "Minibatch size (1 to 1000000000); required with --strategy, --describe defaults to 1")
      ->check(CLI::Range(1LL, 1'000'000'000LL));
  app.add_flag("--describe", o.describe, "Print one row per layer (shape, params, FLOP, bytes) and totals");
  app.add_flag("--list", o.list, "List the zoo workloads with a one-line description");
  app.add_option("--json", o.json_file, "With --describe: also write the description as JSON ('-' for stdout)");
  app.add_option("--bytes-per-element", o.bytes_per_element, "Bytes per tensor element for --describe (4 = fp32; 0.125 to 1024)")
      ->check(CLI::Range(0.125, 1024.0));
  add_platform_options(app, o.platform);
  app.add_option("--strategy", o.strategy, "Plan with this strategy (see --list-strategies)");
  app.add_flag("--list-strategies", o.list_strategies, "List the planning strategies with a one-line description");
  app.add_option("--levels", o.levels, "AccPar family: hierarchy levels searched (default: all; lower ones are Type-I)")
      ->check(CLI::Range(0, 64));
  app.add_option("--option", o.strategy_options, "Strategy option key=value (repeatable)");
  app.add_option("--mode", o.mode, "training (forward, backward, gradient) or inference (forward only)")
      ->check(CLI::IsMember({"training", "inference"}));
  app.add_option("-o,--output", o.output, "Plan file to write (plan.json; docs/plan-format.md)");
  app.add_option("--opt", o.dsm_opt, "dsm: same as --option opt=LIST (hybrid,memreuse,dysm,tpipe, all, none)");
  app.add_option("--explain", o.explain, "Print the strategy's candidate configurations of this layer, instead of planning");
  app.add_option("--seed", o.seed, "Seed of a stochastic strategy (recorded in plan.json; same seed, same plan)");
  add_gradient_sync_options(app, o.gradient_sync);
  add_choice(app, "--optimizer", o.memory.optimizer, plan::optimizer_names(),
             "Training plans: the optimizer whose states each device keeps (plan memory.settings; docs/model.md "
             "\"Memory footprint\"): sgd, momentum or adam (default)");
  add_choice(app, "--training-precision", o.memory.precision, plan::training_precision_names(),
             "Training plans: fp32 model states, or mixed (16-bit weights with fp32 master weights and optimizer "
             "states; the default on a 16-bit platform, fp32 on an fp32 one)");
  app.add_option_function<bool>(
         "--fp32-main-gradients", [&o](bool on) { o.memory.fp32_main_gradients = on; },
         "Mixed precision: gradients accumulated in fp32, as Megatron-LM does (true, default: 18 B per parameter "
         "with Adam) or at 16 bits (false: ZeRO's 16)")
      ->type_name("true|false");
  app.add_flag("--describe-memory", o.describe_memory,
               "Print the plan's memory per device by layer and kind (weights, gradients, optimizer, activations, "
               "working) and the fullest device against its capacity; -o is then optional");
  app.add_flag("--allow-over-memory", o.allow_over_memory,
               "Write a plan that does not fit a device's memory (recorded in plan.json; simrun warns) instead of "
               "refusing it with exit code 2");
  add_quiet_flag(app, o.quiet);
}

std::vector<std::string> strategy_options(const SimplanOptions& o) {
  std::vector<std::string> options = o.strategy_options;
  if (o.levels >= 0) options.push_back("levels=" + std::to_string(o.levels));
  if (!o.dsm_opt.empty()) options.push_back("opt=" + o.dsm_opt);
  return options;
}

namespace {

// The simplan options simsweep sets itself at every point, or that would stop simplan from planning.
const std::vector<std::string> kSetBySimsweep{"--config", "--set",    "--dump-config", "--workload",
                                              "--batch",  "--strategy", "--output",    "--describe",
                                              "--list",   "--json",   "--list-strategies", "--explain"};

bool set_by_simsweep(const std::string& name) {
  return std::find(kSetBySimsweep.begin(), kSetBySimsweep.end(), name) != kSetBySimsweep.end();
}

}  // namespace

SimplanOptions parse_simplan_arguments(const std::vector<std::string>& args) {
  const std::string given = "--simplan-arg " + join(args, " ");
  SimplanOptions o;
  CLI::App app("simplan", "simplan");
  add_simplan_options(app, o);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes its arguments last first
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    throw InputError(given + ": --help would print simplan's help instead of planning");
  } catch (const CLI::ParseError& e) {
    throw InputError(given + ": " + e.what());
  }
  for (const auto& name : kSetBySimsweep)
    if (app.count(name) > 0) {
      std::vector<std::string> allowed;  // every other option simplan has, from its own definitions
      for (const CLI::Option* option : app.get_options()) {
        const std::string other = option->get_name();
        if (other != "--help" && !set_by_simsweep(other)) allowed.push_back(other);
      }
      throw InputError(given + ": " + name + " is set by simsweep at every point (use simsweep's own --config, "
                       "--set, --workload, --batch, --strategy or --vary); allowed through --simplan-arg: " +
                       join(allowed));
    }
  return o;
}

}  // namespace partsim::cli
