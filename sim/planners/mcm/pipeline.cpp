#include "sim/planners/mcm/pipeline.hpp"

#include <algorithm>

#include "sim/common/error.hpp"
#include "sim/lowering/sharding_lowering.hpp"
#include "sim/replay/program_replay.hpp"
#include "topology/topology_graph.hpp"

namespace partsim::mcm {
namespace {

std::string copy_name(int k, const std::string& name) { return "mb" + std::to_string(k) + "/" + name; }

}  // namespace

workloads::Graph micro_batches(const workloads::Graph& graph, int copies) {
  if (copies < 1) throw InputError("micro-batches must be at least 1, got " + std::to_string(copies));
  workloads::Graph out(graph.name() + "_x" + std::to_string(copies), graph.description());
  for (int k = 0; k < copies; ++k)
    for (const workloads::Layer& layer : graph.layers()) {
      workloads::LayerSpec spec = layer;  // the LayerSpec part
      spec.name = copy_name(k, layer.name);
      for (std::string& in : spec.inputs) in = copy_name(k, in);
      out.add(std::move(spec));
    }
  out.finalize(graph.batch());
  return out;
}

PipelineReplay replay_pipeline(const topology::SystemSpec& spec, const workloads::Graph& graph,
                               const Placement& placement, int copies) {
  if (copies < 2) throw InputError("a pipelined replay needs at least 2 micro-batches, got " + std::to_string(copies));
  if (placement.size() != graph.size()) throw InputError("placement and graph sizes differ");
  const workloads::Graph copied = micro_batches(graph, copies);
  plan::Plan plan;
  plan.strategy = "mcm_pipeline";
  plan.workload = {copied.name(), copied.batch(), plan::Mode::inference};
  plan.config.name = spec.name;
  // The copies were written copy after copy, each in topological order, so the copied graph keeps
  // that order (Graph::finalize) and so does every chip's program: micro-batch k before k+1.
  for (std::size_t i = 0; i < copied.size(); ++i) {
    plan::LayerPlan layer;
    layer.name = copied.layer(i).name;
    layer.sharding.devices = {placement[i % graph.size()]};
    plan.layers.push_back(std::move(layer));
  }
  const topology::TopologyGraph topology(spec, topology::Granularity::chip);
  const program::Program program = lowering::lower_sharding({plan, spec, copied, topology});
  replay::SimGridEvaluator simgrid(topology);
  const program::Evaluation result = simgrid.evaluate(program);
  PipelineReplay out;
  out.micro_batches = copies;
  out.makespan_s = result.makespan_s;
  out.activities = result.activities;
  out.finish_s.assign(static_cast<std::size_t>(copies), 0.0);
  const auto& names = program.layer_names();
  for (std::size_t t = 0; t < program.size(); ++t) {
    const int layer = program.tasks()[t].layer;
    if (layer < 0) continue;
    const std::string& name = names[static_cast<std::size_t>(layer)];
    const int k = std::stoi(name.substr(2, name.find('/') - 2));
    out.finish_s[static_cast<std::size_t>(k)] = std::max(out.finish_s[static_cast<std::size_t>(k)], result.tasks[t].finish);
  }
  out.period_s = (out.finish_s.back() - out.finish_s.front()) / (copies - 1);
  return out;
}

}  // namespace partsim::mcm
