// mcm_pipeline: both evaluators of one mcm placement (seed 002 Fig. 7's two axes): the analytical
// model's latency (max per-chip latency) and the SimGrid replay of M micro-batches in flight
// (sim/mcm/pipeline.hpp). One JSON object on stdout. One replay per process (SimGrid).
//
//   mcm_pipeline --config configs/mcm_ring36.yaml --plan plan.json [--microbatches 8]

#include <nlohmann/json.hpp>

#include <chrono>
#include <iostream>

#include "sim/cli/command_line.hpp"
#include "sim/cli/inputs.hpp"
#include "sim/mcm/cost_model.hpp"
#include "sim/mcm/pipeline.hpp"
#include "sim/plan/plan_io.hpp"
#include "sim/planner/builtin_strategies.hpp"
#include "workloads/workload_file.hpp"

namespace partsim {
namespace {

int body(int argc, char** argv) {
  cli::PlatformOptions platform;
  std::string plan_file;
  int micro = 8;
  CLI::App app("mcm_pipeline: analytical vs SimGrid-pipelined runtime of one mcm placement (seed 002 Fig. 7)",
               "mcm_pipeline");
  app.add_option("--plan", plan_file, "An mcm plan.json (simplan --strategy mcm_*)")->required();
  app.add_option("--microbatches", micro, "Micro-batches in flight in the replay (default 8)")->check(CLI::Range(2, 1000));
  cli::add_platform_options(app, platform);
  cli::parse(app, argc, argv);
  cli::OutputSet outputs;  // --dump-config, written once the plan has been checked
  const cli::ReplayInputs loaded = cli::load_replay_inputs(platform, plan_file, /*allow_config_change=*/false, outputs);
  const plan::Plan& plan = loaded.plan;
  const topology::SystemSpec& spec = loaded.spec;
  const workloads::Graph& graph = loaded.graph;
  outputs.commit();
  mcm::Placement placement;
  for (const plan::LayerPlan& layer : plan.layers) placement.push_back(layer.sharding.devices.at(0));
  const mcm::AnalyticalCost cost = mcm::analytical_cost(mcm::make_problem(spec, graph), placement);
  const auto t0 = std::chrono::steady_clock::now();
  const mcm::PipelineReplay replay = mcm::replay_pipeline(spec, graph, placement, micro);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  int chips_used = 0;
  for (int c : placement) chips_used = std::max(chips_used, c + 1);
  const nlohmann::json out = {{"plan", plan_file},
                              {"strategy", plan.strategy},
                              {"seed", plan.seed ? nlohmann::json(*plan.seed) : nlohmann::json()},
                              {"workload", plan.workload.name},
                              {"chips_used", chips_used},
                              {"analytical_latency_s", cost.latency_s},
                              {"analytical_bottleneck_chip", cost.bottleneck_chip},
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
