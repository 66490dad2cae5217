// simplan: plans how a workload is partitioned over a platform. Modes:
//   simplan --list                                   every zoo workload with its description
//   simplan --workload NAME|FILE --describe [--batch N] [--json F] [--bytes-per-element B]
//                                                    one row per layer and totals (and JSON)
// Planning modes (--strategy) are added by the planners; keep each mode a small function here and
// its logic in the libraries.

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <iostream>

#include "sim/cli/program.hpp"
#include "sim/common/error.hpp"
#include "workloads/describe.hpp"
#include "workloads/workload_file.hpp"

using namespace partsim;

namespace {

struct Options {
  std::string workload;             // zoo name or workload YAML file
  long long batch = 1;              // minibatch size
  bool describe = false;
  bool list = false;
  std::string json_file;            // --json: describe output as JSON ("-" = stdout)
  double bytes_per_element = 4;     // tensor bytes in --describe (4 = fp32)
  cli::PlatformOptions platform;    // --config, --set, --dump-config (planning modes)
};

int list_mode() {
  std::cout << workloads::list_table();
  return 0;
}

int describe_mode(const Options& o) {
  if (o.workload.empty()) throw InputError("--describe needs --workload NAME|FILE (see simplan --list)");
  const workloads::Graph graph = workloads::load_workload(o.workload, o.batch);
  // Write the JSON first, so an unwritable path fails before anything is printed.
  if (!o.json_file.empty())
    cli::write_file_atomically(o.json_file, workloads::describe_json(graph, o.bytes_per_element).dump(2) + "\n");
  if (o.json_file != "-") std::cout << workloads::describe_table(graph, o.bytes_per_element);
  return 0;
}

int body(int argc, char** argv) {
  Options o;
  CLI::App app("simplan: describe DNN workloads and plan their partitioning over a platform", "simplan");
  app.add_option("--workload", o.workload, "Zoo name (see --list) or workload YAML file (workloads/README.md)");
  app.add_option("--batch", o.batch, "Minibatch size")->check(CLI::PositiveNumber);
  app.add_flag("--describe", o.describe, "Print one row per layer (shape, params, FLOP, bytes) and totals");
  app.add_flag("--list", o.list, "List the zoo workloads with a one-line description");
  app.add_option("--json", o.json_file, "With --describe: also write the description as JSON ('-' for stdout)");
  app.add_option("--bytes-per-element", o.bytes_per_element, "Bytes per tensor element for --describe (4 = fp32)")
      ->check(CLI::PositiveNumber);
  cli::add_platform_options(app, o.platform);
  cli::parse(app, argc, argv);

  if (o.list) return list_mode();
  if (o.describe) return describe_mode(o);
  throw InputError("nothing to do: give --list or --workload NAME --describe (see --help)");
}

}  // namespace

int main(int argc, char** argv) { return cli::run_main("simplan", body, argc, argv); }
