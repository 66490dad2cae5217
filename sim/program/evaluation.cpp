#include "sim/program/evaluation.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

namespace partsim::program {

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

namespace {
bool is_memory_traffic(const Task& t) {
  return (t.kind == TaskKind::transfer && (t.src.memory || t.dst.memory)) || (t.kind == TaskKind::delay && t.at.memory);
}
}  // namespace

std::vector<LayerPassSpan> layer_pass_spans(const Program& program, const Evaluation& evaluation) {
  struct Acc {
    double start = std::numeric_limits<double>::infinity();
    double finish = 0;
    std::map<std::tuple<int, int, bool>, double> busy;  // compute seconds per endpoint
    std::vector<std::pair<double, double>> compute, memory_or_compute;  // intervals
  };
  std::map<std::pair<int, int>, Acc> by_key;  // (layer, pass) -> accumulated span
  for (size_t i = 0; i < program.size(); ++i) {
    const Task& task = program.tasks()[i];
    if (task.layer < 0) continue;
    Acc& acc = by_key[{task.layer, static_cast<int>(task.pass)}];
    acc.start = std::min(acc.start, evaluation.tasks[i].start);
    acc.finish = std::max(acc.finish, evaluation.tasks[i].finish);
    const std::pair<double, double> interval{evaluation.tasks[i].start, evaluation.tasks[i].finish};
    if (task.kind == TaskKind::compute) {
      acc.busy[{task.at.device, task.at.core, task.at.memory}] += task.seconds;
      acc.compute.push_back(interval);
      acc.memory_or_compute.push_back(interval);
    } else if (is_memory_traffic(task)) {
      acc.memory_or_compute.push_back(interval);
    }
  }
  std::vector<LayerPassSpan> spans;
  spans.reserve(by_key.size());
  for (auto& [key, acc] : by_key) {
    LayerPassSpan s;
    s.layer = key.first;
    s.pass = static_cast<plan::Pass>(key.second);
    s.start = acc.start;
    s.finish = acc.finish;
    for (const auto& [endpoint, busy] : acc.busy) s.compute_busy_s = std::max(s.compute_busy_s, busy);
    s.memory_only_s = std::max(0.0, union_length(acc.memory_or_compute) - union_length(acc.compute));
    spans.push_back(s);
  }
  return spans;
}

}  // namespace partsim::program
