#include "sim/report/link_usage.hpp"

#include <algorithm>
#include <cstdint>

#include "sim/common/error.hpp"
#include "sim/program/platform_binding.hpp"

namespace partsim::report {

std::string to_string(topology::TopoLinkKind kind) {
  switch (kind) {
    case topology::TopoLinkKind::chip_to_chip: return "chip_to_chip";
    case topology::TopoLinkKind::on_chip: return "on_chip";
    case topology::TopoLinkKind::memory: return "memory";
  }
  throw Error("report: unknown link kind");
}

std::string axis_label(const topology::TopoLink& link) {
  if (link.kind != topology::TopoLinkKind::chip_to_chip || link.dimension < 0) return "";
  static const char* const names[] = {"x", "y", "z", "w"};
  const std::string dim = link.dimension < 4 ? names[link.dimension] : "d" + std::to_string(link.dimension);
  return (link.direction < 0 ? "-" : "+") + dim;
}

std::string link_label(const topology::TopoLink& link) {
  const std::string axis = axis_label(link);
  return axis.empty() ? link.name : link.name + " (" + axis + ")";
}

std::vector<LinkUsage> link_usage(const program::Program& program, const program::Evaluation& evaluation,
                                  const topology::TopologyGraph& graph) {
  return link_usage(program, evaluation, graph, TransferRoutes(program, graph));
}

std::vector<LinkUsage> link_usage(const program::Program& program, const program::Evaluation& evaluation,
                                  const topology::TopologyGraph& graph, const TransferRoutes& routes) {
  if (evaluation.tasks.size() != program.size())
    throw Error("report: the evaluation has " + std::to_string(evaluation.tasks.size()) + " task timings for " +
                std::to_string(program.size()) + " tasks");
  const auto& tasks = program.tasks();
  const auto& timing = evaluation.tasks;

  // Transfers that cross links, sorted once by start: walking them in that order hands every link
  // its intervals sorted by start, so each link merges its union on the fly (O(1) state per link)
  // instead of storing and sorting its own list. O(T log T + sum of route lengths).
  std::vector<std::uint32_t> order;
  for (size_t i = 0; i < tasks.size(); ++i)
    if (routes.pair_of(i) >= 0 && tasks[i].bytes > 0 && !routes.route(i).empty())
      order.push_back(static_cast<std::uint32_t>(i));
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return timing[a].start != timing[b].start ? timing[a].start < timing[b].start : a < b;
  });

  struct Acc {
    double bytes = 0;
    double busy = 0;    // closed part of the union
    double lo = 0, hi = 0;  // the open interval of the union
    bool used = false, open = false;
  };
  std::vector<Acc> acc(static_cast<size_t>(graph.link_count()));
  for (std::uint32_t i : order) {
    const double s = timing[i].start, f = timing[i].finish;
    for (int l : routes.route(i)) {
      Acc& a = acc[static_cast<size_t>(l)];
      a.used = true;
      a.bytes += tasks[i].bytes;
      if (!(f > s)) continue;  // an empty interval adds bytes, no busy time
      if (a.open && s <= a.hi) {
        a.hi = std::max(a.hi, f);
      } else {
        if (a.open) a.busy += a.hi - a.lo;
        a.lo = s;
        a.hi = f;
        a.open = true;
      }
    }
  }

  const double makespan = evaluation.makespan_s;
  std::vector<LinkUsage> out;
  for (int l = 0; l < graph.link_count(); ++l) {
    const Acc& a = acc[static_cast<size_t>(l)];
    if (!a.used) continue;
    const topology::TopoLink& link = graph.link(l);
    LinkUsage u;
    u.id = l;
    u.link = link.name;
    u.kind = to_string(link.kind);
    u.axis = axis_label(link);
    u.bandwidth = link.bandwidth;
    u.bytes = a.bytes;
    const double busy = a.busy + (a.open ? a.hi - a.lo : 0.0);
    if (makespan > 0) {
      u.busy_fraction = busy / makespan;
      u.utilization = link.bandwidth > 0 ? u.bytes / (link.bandwidth * makespan) : 0;
    }
    out.push_back(std::move(u));
  }
  return out;
}

}  // namespace partsim::report
