#include "sim/program/critical_path.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "sim/common/error.hpp"

namespace partsim::program {

CriticalPath critical_path(const Program& program, const Evaluation& evaluation) {
  if (evaluation.tasks.size() != program.size())
    throw Error("critical_path: the evaluation times " + std::to_string(evaluation.tasks.size()) +
                " tasks, the program has " + std::to_string(program.size()));
  CriticalPath path;
  if (program.size() == 0) return path;

  // The task that finishes last; the lowest index among equals (strict > keeps the first).
  std::size_t last = 0;
  for (std::size_t i = 1; i < program.size(); ++i)
    if (evaluation.tasks[i].finish > evaluation.tasks[last].finish) last = i;
  path.makespan_s = evaluation.tasks[last].finish;

  // Walk back: each step goes to the dependency that finished last (it released the task).
  std::vector<std::pair<int, double>> reversed;  // (task, charge), last task first
  int task = static_cast<int>(last);
  while (true) {
    const Task& t = program.tasks()[static_cast<std::size_t>(task)];
    const double finish = evaluation.tasks[static_cast<std::size_t>(task)].finish;
    int predecessor = -1;
    double released = 0;  // s: the predecessor's finish, 0 without one
    for (const int d : t.after) {
      const double f = evaluation.tasks[static_cast<std::size_t>(d)].finish;
      if (predecessor < 0 || f > released || (f == released && d < predecessor)) {
        predecessor = d;
        released = f;
      }
    }
    if (finish < released)
      throw Error("critical_path: task " + std::to_string(task) + " ('" + t.label.str() + "') finishes at " +
                  std::to_string(finish) + " s, before task " + std::to_string(predecessor) +
                  " it depends on finishes (" + std::to_string(released) + " s): not an evaluation of this program");
    reversed.emplace_back(task, finish - released);
    if (predecessor < 0) break;
    task = predecessor;  // a smaller index (Program's topological order): the walk ends
  }

  std::map<std::pair<int, int>, double> by_key;  // (layer, pass) -> s
  for (auto it = reversed.rbegin(); it != reversed.rend(); ++it) {
    path.tasks.push_back(it->first);
    path.charges.push_back(it->second);
    const Task& t = program.tasks()[static_cast<std::size_t>(it->first)];
    if (t.layer < 0)
      path.other_s += it->second;
    else
      by_key[{t.layer, static_cast<int>(t.pass)}] += it->second;
  }
  path.shares.reserve(by_key.size());
  for (const auto& [key, seconds] : by_key) path.shares.push_back({key.first, static_cast<plan::Pass>(key.second), seconds});
  return path;
}

}  // namespace partsim::program
