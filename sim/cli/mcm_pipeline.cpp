// mcm_pipeline: both evaluators of one mcm placement (seed 002 Fig. 7's two axes): the analytical
// model's latency (max per-chip latency) and the SimGrid replay of M micro-batches in flight
// (sim/planners/mcm/pipeline.hpp). One JSON object on stdout. One replay per process (SimGrid).
//
//   mcm_pipeline --config configs/mcm_ring36.yaml --plan plan.json [--microbatches 8]
//   mcm_pipeline --config configs/mcm_ring36.yaml --workload W --placement 0,0,1,... [--microbatches 8]
// The second form replays a placement that no plan file holds (a chip per node, in the graph's
// order, batch 1): scripts/mcm_test_set.py replays the test set's final placements this way, their
// graphs named as random_dag:seed=... (workloads/random_dag.hpp).

#include <CLI/CLI.hpp>

#include <nlohmann/json.hpp>

#include <charconv>
#include <chrono>
#include <iostream>
#include <optional>
#include <string_view>

#include "sim/cli/command_line.hpp"
#include "sim/cli/inputs.hpp"
#include "sim/common/wall_clock.hpp"
#include "sim/planners/mcm/constraints.hpp"
#include "sim/planners/mcm/cost_model.hpp"
#include "sim/planners/mcm/pipeline.hpp"
#include "sim/plan/plan_io.hpp"
#include "sim/planners/builtin_strategies.hpp"
#include "workloads/workload_file.hpp"

namespace partsim {
namespace {

/// --placement's text: comma-separated chip numbers (InputError naming the bad item).
mcm::Placement parse_placement(std::string_view text) {
  mcm::Placement out;
  while (true) {
    const size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    int chip = 0;
    const char* end = item.data() + item.size();
    auto [ptr, ec] = std::from_chars(item.data(), end, chip);
    if (item.empty() || ec != std::errc() || ptr != end)
      throw InputError("--placement: expected comma-separated chip numbers, got '" + std::string(item) + "'");
    out.push_back(chip);
    if (comma == std::string_view::npos) return out;
    text.remove_prefix(comma + 1);
  }
}

/// What is replayed: the platform, the graph, the placement, and the plan file when there is one.
struct Replayed {
  topology::SystemSpec spec;
  workloads::Graph graph;
  mcm::Placement placement;
  std::optional<plan::Plan> plan;
};

int body(int argc, char** argv) {
  cli::PlatformOptions platform;
  std::string plan_file, workload, placement_text;
  int micro = 8;
  CLI::App app("mcm_pipeline: analytical vs SimGrid-pipelined runtime of one mcm placement (MCM paper Fig. 7)",
               "mcm_pipeline");
  CLI::Option* plan_option = app.add_option("--plan", plan_file, "An mcm plan.json (simplan --strategy mcm_*)");
  CLI::Option* workload_option =
      app.add_option("--workload", workload, "Instead of --plan: the graph (zoo name, file or random_dag:seed=...), batch 1");
  CLI::Option* placement_option =
      app.add_option("--placement", placement_text, "With --workload: a chip per node in the graph's order, e.g. 0,0,1,2");
  plan_option->excludes(workload_option)->excludes(placement_option);
  workload_option->needs(placement_option);
  placement_option->needs(workload_option);
  app.add_option("--microbatches", micro, "Micro-batches in flight in the replay (default 8)")->check(CLI::Range(2, 1000));
  cli::add_platform_options(app, platform);
  cli::parse(app, argc, argv);
  if (plan_file.empty() && workload.empty()) throw InputError("mcm_pipeline needs --plan FILE, or --workload W with --placement LIST");
  cli::OutputSet outputs;  // --dump-config, written once the inputs have been checked
  const Replayed r = [&] {
    if (!plan_file.empty()) {
      cli::ReplayInputs loaded = cli::load_replay_inputs(platform, plan_file, /*allow_config_change=*/false, outputs);
      mcm::Placement f;
      for (const plan::LayerPlan& layer : loaded.plan.layers) f.push_back(layer.sharding.devices.at(0));
      return Replayed{std::move(loaded.spec), std::move(loaded.graph), std::move(f), std::move(loaded.plan)};
    }
    if (platform.config_file.empty()) throw InputError("--placement needs --config FILE (a platform, see configs/)");
    const mcm::Placement f = parse_placement(placement_text);  // a malformed list fails before anything is loaded
    topology::SystemSpec spec = cli::load_platform(platform, outputs);
    workloads::Graph graph = workloads::load_workload(workload, 1);
    mcm::check_valid(mcm::make_problem(spec, graph), f, "--placement");
    return Replayed{std::move(spec), std::move(graph), f, std::nullopt};
  }();
  const topology::SystemSpec& spec = r.spec;
  const workloads::Graph& graph = r.graph;
  const mcm::Placement& placement = r.placement;
  outputs.commit();
  const mcm::AnalyticalCost cost = mcm::analytical_cost(mcm::make_problem(spec, graph), placement);
  const auto t0 = std::chrono::steady_clock::now();
  const mcm::PipelineReplay replay = mcm::replay_pipeline(spec, graph, placement, micro);
  const double wall = seconds_since(t0);
  int chips_used = 0;
  for (int c : placement) chips_used = std::max(chips_used, c + 1);
  const nlohmann::json out = {{"plan", r.plan ? nlohmann::json(plan_file) : nlohmann::json()},
                              {"strategy", r.plan ? nlohmann::json(r.plan->strategy) : nlohmann::json()},
                              {"seed", r.plan && r.plan->seed ? nlohmann::json(*r.plan->seed) : nlohmann::json()},
                              {"workload", r.plan ? r.plan->workload.name : graph.name()},
                              {"chips_used", chips_used},
                              {"analytical_latency_s", cost.latency_s},
                              {"analytical_bottleneck_chip", cost.bottleneck_chip},
                              // what the model charges there: the replay overlaps receiving with the
                              // previous micro-batch's compute (pipeline.hpp), so a large receive
                              // share is where the two evaluators part
                              {"analytical_bottleneck_compute_s", cost.chips.at(static_cast<std::size_t>(cost.bottleneck_chip)).compute_s},
                              {"analytical_bottleneck_receive_s", cost.chips.at(static_cast<std::size_t>(cost.bottleneck_chip)).receive_s},
                              {"micro_batches", replay.micro_batches},
                              {"simulated_period_s", replay.period_s},
                              {"simulated_makespan_s", replay.makespan_s},
                              {"simulated_first_finish_s", replay.finish_s.front()},
                              {"replay_wall_s", wall},
                              {"activities", replay.activities}};
  std::cout << out.dump() << "\n";
  return 0;
}

}  // namespace
}  // namespace partsim

int main(int argc, char** argv) { return partsim::cli::run_main("mcm_pipeline", partsim::body, argc, argv); }
