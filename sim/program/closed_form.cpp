#include "sim/program/closed_form.hpp"

#include <algorithm>
#include <string>

#include "sim/common/error.hpp"
#include "sim/program/platform_binding.hpp"

namespace partsim::program {

ClosedFormEvaluator::ClosedFormEvaluator(TransferTime transfer_time) : transfer_time_(std::move(transfer_time)) {}

ClosedFormEvaluator::ClosedFormEvaluator(const TransferRoutes& routes) : routes_(&routes) {}

Evaluation ClosedFormEvaluator::evaluate(const Program& program) {
  if (routes_ && routes_->task_count() != program.size())
    throw Error("closed form: the routes were resolved for " + std::to_string(routes_->task_count()) +
                " tasks, not this Program's " + std::to_string(program.size()));
  Evaluation result;
  result.tasks.resize(program.size());
  // Tasks are in topological order (Program::add), so one forward pass is the longest-path recursion:
  // start(t) = max over predecessors p of finish(p); finish(t) = start(t) + duration(t).
  for (size_t i = 0; i < program.size(); ++i) {
    const Task& task = program.tasks()[i];
    double start = 0;
    for (int dep : task.after) start = std::max(start, result.tasks[static_cast<size_t>(dep)].finish);
    const double duration = task.kind != TaskKind::transfer ? task.seconds
                            : task.src == task.dst            ? 0.0
                            : routes_                         ? routes_->uncontended_time(i, task.bytes)
                                                              : transfer_time_(task.src, task.dst, task.bytes);
    result.tasks[i] = {start, start + duration};
    result.makespan_s = std::max(result.makespan_s, start + duration);
  }
  result.activities = static_cast<long long>(program.size());
  return result;
}

}  // namespace partsim::program
