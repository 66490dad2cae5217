#include "sim/report/link_usage.hpp"

#include <algorithm>
#include <unordered_map>

#include "sim/common/error.hpp"
#include "sim/program/platform_binding.hpp"

namespace partsim::report {

TransferRoutes::TransferRoutes(const program::Program& program, const topology::TopologyGraph& graph)
    : pair_of_task_(program.size(), -1) {
  // Keyed by src x node_count + dst: a few hundred distinct pairs even for 500k transfers.
  std::unordered_map<long long, int> index;
  const long long n = graph.node_count();
  const auto& tasks = program.tasks();
  for (size_t i = 0; i < tasks.size(); ++i) {
    const program::Task& t = tasks[i];
    if (t.kind != program::TaskKind::transfer) continue;
    const int a = program::node_of(graph, t.src);
    const int b = program::node_of(graph, t.dst);
    const auto [it, inserted] = index.try_emplace(a * n + b, static_cast<int>(pairs_.size()));
    if (inserted) {
      pairs_.emplace_back(a, b);
      routes_.push_back(a == b ? topology::Route{} : graph.route(a, b));
    }
    pair_of_task_[i] = it->second;
  }
}

const topology::Route& TransferRoutes::route(size_t task) const {
  const int p = pair_of_task_.at(task);
  return p < 0 ? empty_ : routes_[static_cast<size_t>(p)];
}

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

double union_length(std::vector<std::pair<double, double>>& intervals) {
  std::sort(intervals.begin(), intervals.end());
  double total = 0;
  bool open = false;
  double lo = 0, hi = 0;
  for (const auto& [s, f] : intervals) {
    if (!(f > s)) continue;
    if (open && s <= hi) {
      hi = std::max(hi, f);
      continue;
    }
    if (open) total += hi - lo;
    lo = s;
    hi = f;
    open = true;
  }
  if (open) total += hi - lo;
  return total;
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
  const size_t pairs = routes.pair_count();
  const auto& tasks = program.tasks();

  // 1. Bytes and in-flight intervals per node pair (counting sort by pair: no per-pair vectors).
  std::vector<double> pair_bytes(pairs, 0.0);
  std::vector<size_t> offset(pairs + 1, 0);
  for (size_t i = 0; i < tasks.size(); ++i) {
    const int p = routes.pair_of(i);
    if (p < 0 || tasks[i].bytes <= 0 || routes.pair_route(static_cast<size_t>(p)).empty()) continue;
    pair_bytes[static_cast<size_t>(p)] += tasks[i].bytes;
    ++offset[static_cast<size_t>(p) + 1];
  }
  for (size_t p = 0; p < pairs; ++p) offset[p + 1] += offset[p];
  std::vector<std::pair<double, double>> intervals(offset[pairs]);
  {
    std::vector<size_t> fill(offset.begin(), offset.end() - 1);
    for (size_t i = 0; i < tasks.size(); ++i) {
      const int p = routes.pair_of(i);
      if (p < 0 || tasks[i].bytes <= 0 || routes.pair_route(static_cast<size_t>(p)).empty()) continue;
      intervals[fill[static_cast<size_t>(p)]++] = {evaluation.tasks[i].start, evaluation.tasks[i].finish};
    }
  }

  // 2. Merge each pair's intervals into their union: every link of the pair's route sees the same
  //    union, so a link only merges the (usually far fewer) pair unions that cross it.
  std::vector<std::vector<std::pair<double, double>>> pair_union(pairs);
  for (size_t p = 0; p < pairs; ++p) {
    auto first = intervals.begin() + static_cast<std::ptrdiff_t>(offset[p]);
    auto last = intervals.begin() + static_cast<std::ptrdiff_t>(offset[p + 1]);
    std::sort(first, last);
    auto& merged = pair_union[p];
    for (auto it = first; it != last; ++it) {
      if (!(it->second > it->first)) continue;
      if (!merged.empty() && it->first <= merged.back().second)
        merged.back().second = std::max(merged.back().second, it->second);
      else
        merged.push_back(*it);
    }
  }
  intervals = {};

  // 3. Per link: the pairs whose route crosses it.
  std::vector<std::vector<int>> pairs_on_link(static_cast<size_t>(graph.link_count()));
  for (size_t p = 0; p < pairs; ++p)
    if (pair_bytes[p] > 0)
      for (int l : routes.pair_route(p)) pairs_on_link[static_cast<size_t>(l)].push_back(static_cast<int>(p));

  const double makespan = evaluation.makespan_s;
  std::vector<LinkUsage> out;
  std::vector<std::pair<double, double>> scratch;
  for (int l = 0; l < graph.link_count(); ++l) {
    const auto& on = pairs_on_link[static_cast<size_t>(l)];
    if (on.empty()) continue;
    const topology::TopoLink& link = graph.link(l);
    LinkUsage u;
    u.id = l;
    u.link = link.name;
    u.kind = to_string(link.kind);
    u.axis = axis_label(link);
    u.bandwidth = link.bandwidth;
    scratch.clear();
    for (int p : on) {
      u.bytes += pair_bytes[static_cast<size_t>(p)];
      const auto& merged = pair_union[static_cast<size_t>(p)];
      scratch.insert(scratch.end(), merged.begin(), merged.end());
    }
    const double busy = on.size() == 1 ? [&] {
      double s = 0;
      for (const auto& [a, b] : scratch) s += b - a;  // already a disjoint union
      return s;
    }()
                                       : union_length(scratch);
    if (makespan > 0) {
      u.busy_fraction = busy / makespan;
      u.utilization = link.bandwidth > 0 ? u.bytes / (link.bandwidth * makespan) : 0;
    }
    out.push_back(std::move(u));
  }
  return out;
}

}  // namespace partsim::report
