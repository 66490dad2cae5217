#include "sim/lowering/task_builders.hpp"

#include <algorithm>

#include <variant>

#include "sim/common/error.hpp"

namespace partsim::lowering {

program::Endpoint endpoint_of_node(const topology::TopologyGraph& topology, int node) {
  const topology::TopoNode& n = topology.node(node);
  switch (n.kind) {
    case topology::TopoNodeKind::device: return {n.device, -1, false};
    case topology::TopoNodeKind::core: return {n.device, n.core, false};
    case topology::TopoNodeKind::memory: return {n.device, -1, true};
    default: break;
  }
  throw Error("lowering: node " + n.name + " is not an endpoint (a bus, switch or host)");
}

int add_join(program::Program& program, int layer, plan::Pass pass, const std::string& label,
             const std::vector<int>& after) {
  return program.add_delay(layer, pass, label, 0.0, after, program::Endpoint::nowhere());
}

std::vector<int> devices_of(const collectives::Schedule& device_schedule) {
  std::vector<int> devices;
  std::vector<char> seen;
  for (const collectives::Transfer& t : device_schedule.transfers)
    for (int d : {t.src, t.dst}) {
      if (static_cast<std::size_t>(d) >= seen.size()) seen.resize(static_cast<std::size_t>(d) + 1, 0);
      if (!seen[static_cast<std::size_t>(d)]) seen[static_cast<std::size_t>(d)] = 1, devices.push_back(d);
    }
  return devices;
}

int add_collective_instance(program::Program& program, const collectives::Schedule& device_schedule,
                            const std::string& label) {
  return program.add_collective_instance(device_schedule.what.kind, device_schedule.what.algorithm,
                                         devices_of(device_schedule), label);
}

std::vector<int> add_collective(program::Program& program, const collectives::Schedule& device_schedule,
                                const topology::TopologyGraph& topology, int layer, plan::Pass pass,
                                const std::string& label, const std::vector<int>& after, EmptyTransfers empty,
                                std::vector<std::pair<int, int>>* transfer_steps) {
  if (device_schedule.on_nodes) throw Error("lowering: add_collective takes a device schedule");
  const collectives::Schedule nodes = collectives::lower_to_nodes(device_schedule, topology);
  std::vector<int> previous = after;
  const auto& ts = nodes.transfers;  // in step order
  std::size_t t = 0;
  // Every task below is part of this collective: declared with the first of them (a collective that
  // adds nothing, every transfer empty, declares none).
  int instance = -1;
  const auto mark = [&](int task, int step) {
    if (instance < 0) instance = add_collective_instance(program, device_schedule, label);
    program.mark_collective(task, instance, step);
    return task;
  };
  // The overheads are paid by every member at once: they stand for several devices.
  const program::Endpoint members = program::Endpoint::several_devices();
  // The chosen protocol's per-call latency, paid once before the first step (schedule.hpp).
  if (nodes.start_overhead_s > 0 && !ts.empty())
    previous = {mark(program.add_delay(layer, pass, label + " start", nodes.start_overhead_s, previous, members), -1)};
  for (int step = 0; step < nodes.step_count; ++step) {
    std::vector<int> in_step;
    // The platform's per-message endpoint overhead, paid before the step's transfers (schedule.hpp).
    if (nodes.step_overhead_s > 0 && t < ts.size() && ts[t].step == step)
      previous = {mark(program.add_delay(layer, pass, label + " overhead", nodes.step_overhead_s, previous, members),
                       step)};
    for (; t < ts.size() && ts[t].step == step; ++t) {
      if (ts[t].src == ts[t].dst || (ts[t].bytes <= 0 && empty == EmptyTransfers::skip)) continue;
      in_step.push_back(mark(program.add_transfer(layer, pass, label + " step " + std::to_string(step + 1),
                                                  endpoint_of_node(topology, ts[t].src),
                                                  endpoint_of_node(topology, ts[t].dst), ts[t].bytes, previous),
                             step));
      if (transfer_steps) transfer_steps->emplace_back(in_step.back(), step);
    }
    if (in_step.empty()) continue;
    // One join per step keeps the dependencies linear in the transfers (n + n, not n x n).
    previous = {in_step.size() == 1 ? in_step.front()
                                    : mark(add_join(program, layer, pass, label + " join", in_step), step)};
  }
  return previous;
}

std::vector<int> add_memory_traffic(program::Program& program, const topology::TopologyGraph& topology, int device,
                                    double bytes, bool to_memory, int layer, plan::Pass pass,
                                    const std::string& label, const std::vector<int>& after) {
  if (bytes <= 0) return after;
  const int memory = topology.memory_node(device);
  if (memory >= 0) {
    const int cores = topology.cores_of(device);
    std::vector<int> done;
    done.reserve(static_cast<std::size_t>(cores));
    const program::Endpoint mem{device, -1, true};
    for (int c = 0; c < cores; ++c) {
      const program::Endpoint core{device, c, false};
      done.push_back(program.add_transfer(layer, pass, label, to_memory ? core : mem, to_memory ? mem : core,
                                          bytes / cores, after));
    }
    return done;
  }
  const auto& model = topology.spec().device_type(device).model;
  double seconds = 0;
  if (const auto* chip = std::get_if<topology::TemplateDevice>(&model))
    seconds = chip->memory_latency + bytes / chip->effective_memory_bandwidth();
  else if (const auto* design = std::get_if<topology::FpgaDesign>(&model))
    seconds = bytes / design->memory_bandwidth;
  else if (const auto* gpu = std::get_if<topology::CalibratedDevice>(&model))
    seconds = bytes / (gpu->memory_bandwidth * gpu->memory_efficiency);
  else
    seconds = bytes / std::get<topology::RooflineDevice>(model).memory_bandwidth;
  return {program.add_delay(layer, pass, label, seconds, after, {device, -1, true})};
}

std::vector<StepRun> step_runs(const collectives::Schedule& sched, const topology::TopologyGraph& topology) {
  std::vector<StepRun> runs;
  std::size_t t = 0;
  const auto& ts = sched.transfers;
  for (int step = 0; step < sched.step_count; ++step) {
    StepRun one;
    one.steps = 1;
    one.first_step = step;
    for (; t < ts.size() && ts[t].step == step; ++t) {
      if (ts[t].src == ts[t].dst || ts[t].bytes <= 0) continue;
      one.pairs.push_back({ts[t].src, ts[t].dst});
      one.bytes.push_back(ts[t].bytes);
    }
    if (one.pairs.empty()) continue;
    if (!runs.empty() && runs.back().pairs == one.pairs) {  // same pairs, same routes: same latency
      StepRun& run = runs.back();
      for (std::size_t i = 0; i < one.pairs.size(); ++i) run.bytes[i] += one.bytes[i];
      run.steps += 1;
    } else {
      // Routes only for a new set of pairs: a ring's steps repeat theirs, and routing every step's
      // transfers dominated lowering on 128-device stars.
      for (const auto& [src, dst] : one.pairs)
        one.latency = std::max(one.latency, topology.route_latency(topology.device_route(src, dst)));
      runs.push_back(std::move(one));
    }
  }
  return runs;
}

}  // namespace partsim::lowering
