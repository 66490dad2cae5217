#include "sim/program/evaluation.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

namespace partsim::program {

std::vector<LayerPassSpan> layer_pass_spans(const Program& program, const Evaluation& evaluation) {
  struct Acc {
    double start = std::numeric_limits<double>::infinity();
    double finish = 0;
    std::map<std::tuple<int, int, bool>, double> busy;  // compute seconds per endpoint
  };
  std::map<std::pair<int, int>, Acc> by_key;  // (layer, pass) -> accumulated span
  for (size_t i = 0; i < program.size(); ++i) {
    const Task& task = program.tasks()[i];
    if (task.layer < 0) continue;
    Acc& acc = by_key[{task.layer, static_cast<int>(task.pass)}];
    acc.start = std::min(acc.start, evaluation.tasks[i].start);
    acc.finish = std::max(acc.finish, evaluation.tasks[i].finish);
    if (task.kind == TaskKind::compute) acc.busy[{task.at.device, task.at.core, task.at.memory}] += task.seconds;
  }
  std::vector<LayerPassSpan> spans;
  spans.reserve(by_key.size());
  for (const auto& [key, acc] : by_key) {
    LayerPassSpan s;
    s.layer = key.first;
    s.pass = static_cast<plan::Pass>(key.second);
    s.start = acc.start;
    s.finish = acc.finish;
    for (const auto& [endpoint, busy] : acc.busy) s.compute_busy_s = std::max(s.compute_busy_s, busy);
    spans.push_back(s);
  }
  return spans;
}

}  // namespace partsim::program
