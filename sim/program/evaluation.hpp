#pragma once
// What an evaluator returns for a Program, and the seam both evaluators implement.

#include <string>
#include <utility>
#include <vector>

#include "sim/program/program.hpp"

namespace partsim::program {

struct TaskTiming {
  double start = 0;   // s from the start of the iteration
  double finish = 0;  // s
};

struct Evaluation {
  std::vector<TaskTiming> tasks;  // one per Program task, same index
  double makespan_s = 0;          // last finish
  long long activities = 0;       // events the evaluator executed (SimGrid activities for the replay)
};

/// The time a layer's pass occupies: from the first start to the last finish of its tasks, and the
/// busy time of its compute tasks (the rest of the span is exposed communication or waiting).
struct LayerPassSpan {
  int layer = -1;
  plan::Pass pass = plan::Pass::fwd;
  double start = 0;
  double finish = 0;
  double compute_busy_s = 0;  // sum over the pass's compute tasks of their durations, on the
                              // most-loaded endpoint (devices work in parallel)
  /// Time in which the pass's external-memory traffic (transfers to or from a memory, delays
  /// standing for one) runs while none of its compute does: |M u C| - |C| over their intervals.
  double memory_only_s = 0;
  double span() const { return finish - start; }
};

/// Measure of the union of half-open intervals (sorted in place by start). Empty intervals count 0.
double union_length(std::vector<std::pair<double, double>>& intervals);

/// Spans of every (layer, pass) that has tasks, ordered by layer index, then pass (fwd, bwd, upd).
std::vector<LayerPassSpan> layer_pass_spans(const Program& program, const Evaluation& evaluation);

/// The seam between a Program and the way it is timed (STYLE.md: a narrow seam in front of the
/// backend). ClosedFormEvaluator times it without contention; the SimGrid replay with shared links.
class Evaluator {
 public:
  virtual ~Evaluator() = default;
  virtual std::string name() const = 0;
  virtual Evaluation evaluate(const Program& program) = 0;
};

}  // namespace partsim::program
