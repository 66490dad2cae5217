#include "sim/planners/prediction_check.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <utility>
#include <variant>

#include "sim/common/number_text.hpp"
#include "sim/geometry/layer_geometry.hpp"
#include "sim/lowering/redistribution_check.hpp"
#include "sim/lowering/sharding_lowering.hpp"
#include "sim/program/closed_form.hpp"
#include "sim/program/platform_binding.hpp"
#include "sim/report/link_usage.hpp"

namespace partsim::planner {
namespace {

std::string megabytes(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g MB", bytes / 1e6);
  return buf;
}

std::string percent_of(double part, double whole) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f %%", whole > 0 ? 100 * part / whole : 0.0);
  return buf;
}

/// The closing sentence of a warning: whether the term alone overturns the predicted iteration.
std::string verdict(const plan::Plan& plan, double lower_bound_s) {
  if (lower_bound_s > plan.predicted_iteration_s)
    return "The predicted iteration (" + ms_text(plan.predicted_iteration_s, 3, MsDigits::significant) +
           ") cannot hold: it misses at least " +
           ms_text(lower_bound_s - plan.predicted_iteration_s, 3, MsDigits::significant) + ".";
  return "The predicted iteration (" + ms_text(plan.predicted_iteration_s, 3, MsDigits::significant) +
         ") holds only if the replay hides that traffic behind compute.";
}

std::vector<std::string> compute_warnings(const plan::Plan& plan, const topology::SystemSpec& spec,
                                          const workloads::Graph& graph, double threshold) {
  const ComputeCheck c = check_compute(plan, spec, graph);
  const double excess = c.device_compute_s - c.predicted_compute_s;
  if (excess <= threshold * plan.predicted_iteration_s) return {};
  const bool template_chips = spec.device_type(0).is_template();
  std::string why = template_chips ? "the PE-array mapping of " + spec.device_type(0).name +
                                         " (padding to the array, start-up, auxiliary work on the special-function "
                                         "units, operands streamed through its memory)"
                                   : "memory-bound layers (bytes / memory bandwidth above FLOPs / peak)";
  if (!template_chips && c.memory_bound_s > 0)
    why += ": " + ms_text(c.memory_bound_s, 3, MsDigits::significant) + " of it";
  return {plan.strategy + "'s cost model charges " + ms_text(c.predicted_compute_s, 3, MsDigits::significant) +
          " of compute; the platform's device model takes " + ms_text(c.device_compute_s, 3, MsDigits::significant) +
          " for the same shards (" + why + "; FLOPs at peak: " + ms_text(c.flops_at_peak_s, 3, MsDigits::significant) +
          "). The predicted iteration (" + ms_text(plan.predicted_iteration_s, 3, MsDigits::significant) +
          ") cannot hold: it misses at least " + ms_text(excess, 3, MsDigits::significant) +
          ". Replay the plan (simrun --plan) to see the whole difference."};
}

std::vector<std::string> communication_warnings(const plan::Plan& plan, const topology::SystemSpec& spec,
                                                const workloads::Graph& graph, double threshold, std::size_t max_tasks) {
  const CommunicationCheck c = check_communication(plan, spec, graph, max_tasks);
  std::vector<std::string> out;
  if (c.too_many_tasks > 0) {
    out.push_back("communication not checked: the plan's lowered program has more than " +
                  std::to_string(c.too_many_tasks) + " tasks, more than this check looks at (" + plan.strategy +
                  "'s redistributions or collectives among " + std::to_string(spec.device_count()) +
                  " devices), so simplan cannot say how much link latency and contention add to the predicted "
                  "iteration (" +
                  ms_text(plan.predicted_iteration_s, 3, MsDigits::significant) +
                  "). Replaying it (simrun --plan) needs more than " +
                  megabytes(320.0 * static_cast<double>(c.too_many_tasks)) + " (about 320 B per task)" +
                  (plan.schedule.redistribution == plan::Redistribution::point_to_point
                       ? " and may take minutes; where most of them are point-to-point redistribution transfers, "
                         "plan with --redistribution collective (docs/sweeps.md)."
                       : "."));
    return out;
  }
  // A replay that will take minutes (issue 41 item 4): simrun says it again before replaying.
  if (const auto slow = lowering::redistribution_transfer_warning(c.redistribution_transfers, plan.schedule.redistribution))
    out.push_back(*slow);
  const double margin = threshold * plan.predicted_iteration_s;
  const double latency_excess = c.latency_s() - c.predicted_latency_s;
  if (latency_excess > margin)
    out.push_back("link latency: the plan's " + std::to_string(c.transfers) +
                  " transfers each pay their route's latency, which " + plan.strategy + "'s cost model (" +
                  ms_text(c.predicted_latency_s, 3, MsDigits::significant) +
                  " of latency charged) leaves out; it adds " + ms_text(c.latency_s(), 3, MsDigits::significant) +
                  " to the lowered program's critical path (closed form " +
                  ms_text(c.closed_form_s, 3, MsDigits::significant) + ", " +
                  ms_text(c.closed_form_bandwidth_only_s, 3, MsDigits::significant) + " at bandwidth only), " +
                  percent_of(latency_excess, plan.predicted_iteration_s) + " of the predicted iteration (" +
                  ms_text(plan.predicted_iteration_s, 3, MsDigits::significant) +
                  "). Replay the plan (simrun --plan) to see the whole difference.");
  const double contention_excess = c.busiest_link_s - c.predicted_comm_s;
  if (contention_excess > margin)
    out.push_back("contention: " + plan.strategy + "'s cost model charges " +
                  ms_text(c.predicted_comm_s, 3, MsDigits::significant) + " of communication, but the busiest link (" +
                  c.busiest_link + ") must carry " + megabytes(c.busiest_link_bytes) +
                  " of the plan's transfers: " + ms_text(c.busiest_link_s, 3, MsDigits::significant) +
                  " at its bandwidth, " + ms_text(contention_excess, 3, MsDigits::significant) +
                  " more (transfers share that link; the model gives each device its bandwidth to itself). " +
                  verdict(plan, c.busiest_link_s) + " Replay the plan (simrun --plan) to see the whole difference.");
  return out;
}

}  // namespace

CommunicationCheck check_communication(const plan::Plan& plan, const topology::SystemSpec& spec,
                                       const workloads::Graph& graph, std::size_t max_tasks) {
  CommunicationCheck c;
  for (const auto& layer : plan.layers) {
    c.predicted_comm_s += layer.predicted.comm_s;
    if (const auto it = layer.predicted.breakdown.find("latency_s"); it != layer.predicted.breakdown.end())
      c.predicted_latency_s += it->second;
  }
  const topology::TopologyGraph topology(spec, topology::Granularity::chip);
  program::Program program;
  try {
    program = lowering::lower_sharding({plan, spec, graph, topology, max_tasks});
  } catch (const program::TaskLimitExceeded& e) {
    c.too_many_tasks = e.limit();
    return c;
  }
  c.redistribution_transfers = lowering::point_to_point_redistribution_transfers(program);
  const report::TransferRoutes routes(program, topology);
  // Both closed forms on the same routes: with latency (what the replay gives a lone flow) and
  // without (what a bandwidth-only model such as AccPar's eq. 7 charges); routes looked up per pair.
  std::map<std::pair<int, int>, std::pair<double, double>> route_of_pair;  // (latency s, bandwidth bytes/s)
  for (std::size_t k = 0; k < routes.pair_count(); ++k)
    route_of_pair[routes.pair_nodes(k)] = {topology.route_latency(routes.pair_route(k)),
                                           topology.route_bandwidth(routes.pair_route(k))};
  std::vector<double> link_bytes(static_cast<std::size_t>(topology.link_count()), 0.0);
  const auto& tasks = program.tasks();
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    const auto& route = routes.route(t);
    if (route.empty()) continue;
    ++c.transfers;
    for (int link : route) link_bytes[static_cast<std::size_t>(link)] += tasks[t].bytes;
  }
  const auto transfer_time = [&](bool with_latency) -> program::TransferTime {
    return [&, with_latency](const program::Endpoint& src, const program::Endpoint& dst, double bytes) {
      const auto it = route_of_pair.find({program::node_of(topology, src), program::node_of(topology, dst)});
      if (it == route_of_pair.end()) return 0.0;  // same node
      return (with_latency ? it->second.first : 0.0) + bytes / it->second.second;
    };
  };
  // The shared lowering also stands for link latency with delays (the latency of ring steps merged
  // into one flow per pair, sharding_lowering.cpp add_steps, placed where the data arrives); its
  // other delays stand for a memory (Endpoint::memory) or are zero-time joins. Bandwidth only: every
  // delay but memory traffic is zero.
  program::Program bandwidth_only;
  for (const auto& name : program.layer_names()) bandwidth_only.add_layer(name);
  for (program::Task task : program.tasks()) {
    if (task.kind == program::TaskKind::delay && !task.at.memory) task.seconds = 0;
    bandwidth_only.add(task);
  }
  c.closed_form_s = program::ClosedFormEvaluator(transfer_time(true)).evaluate(program).makespan_s;
  c.closed_form_bandwidth_only_s =
      program::ClosedFormEvaluator(transfer_time(false)).evaluate(bandwidth_only).makespan_s;
  for (int link = 0; link < topology.link_count(); ++link) {
    const double seconds = link_bytes[static_cast<std::size_t>(link)] / topology.link(link).bandwidth;
    if (seconds <= c.busiest_link_s) continue;
    c.busiest_link_s = seconds;
    c.busiest_link_bytes = link_bytes[static_cast<std::size_t>(link)];
    c.busiest_link = report::link_label(topology.link(link));
  }
  return c;
}

std::string idle_devices_warning(const plan::Plan& plan, const topology::SystemSpec& spec, const workloads::Graph& graph) {
  const int devices = spec.device_count();
  std::vector<bool> busy(static_cast<std::size_t>(devices), false);
  for (std::size_t v = 0; v < graph.size() && v < plan.layers.size(); ++v) {
    const workloads::Layer& layer = graph.layer(v);
    if (layer.kind == workloads::LayerKind::input) continue;
    for (const auto& db : plan::shard_boxes(plan.layers[v].sharding, geometry::loop_extent(layer, graph.batch()), devices))
      if (!db.box.empty()) busy[static_cast<std::size_t>(db.device)] = true;
  }
  std::vector<int> idle;
  for (int d = 0; d < devices; ++d)
    if (!busy[static_cast<std::size_t>(d)]) idle.push_back(d);
  if (idle.empty() || static_cast<int>(idle.size()) == devices) return {};
  // The first three idle devices by name, ".." when there are more.
  std::string names;
  for (std::size_t i = 0; i < idle.size() && i < 3; ++i)
    names += (i ? ", " : "") + spec.device_names[static_cast<std::size_t>(idle[i])];
  std::string text = std::to_string(idle.size()) + " of " + std::to_string(devices) +
                     " devices get no layer of this plan and stay idle (" + names + (idle.size() > 3 ? ", .." : "") + ")";
  if (graph.batch() < devices)
    text += "; the batch (" + std::to_string(graph.batch()) + ") is smaller than the " + std::to_string(devices) +
            " devices, so a split by samples cannot reach them all";
  return text;
}

std::vector<std::string> prediction_warnings(const plan::Plan& plan, const topology::SystemSpec& spec,
                                             const workloads::Graph& graph, double threshold, std::size_t max_tasks) {
  std::vector<std::string> out;
  if (std::string idle = idle_devices_warning(plan, spec, graph); !idle.empty()) out.push_back(std::move(idle));
  if (plan.predicted_iteration_s <= 0) return out;
  for (auto& w : compute_warnings(plan, spec, graph, threshold)) out.push_back(std::move(w));
  for (auto& w : communication_warnings(plan, spec, graph, threshold, max_tasks)) out.push_back(std::move(w));
  return out;
}

}  // namespace partsim::planner
