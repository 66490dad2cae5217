#include "sim/planners/megatron/schedule.hpp"

#include <algorithm>

#include "sim/common/error.hpp"

namespace partsim::megatron {

namespace {

std::string describe(const PipelineShape& s) {
  return "schedule " + schedule_name(s.schedule) + ", stages p = " + std::to_string(s.stages) +
         ", micro-batches m = " + std::to_string(s.micro_batches) + ", virtual stages v = " +
         std::to_string(s.virtual_stages);
}

}  // namespace

Schedule parse_schedule(std::string_view name) {
  if (name == "gpipe") return Schedule::gpipe;
  if (name == "1f1b") return Schedule::one_f_one_b;
  if (name == "interleaved") return Schedule::interleaved;
  throw InputError("schedule: unknown value '" + std::string(name) + "'; valid values are: gpipe, 1f1b, interleaved");
}

std::string schedule_name(Schedule schedule) {
  switch (schedule) {
    case Schedule::gpipe: return "gpipe";
    case Schedule::one_f_one_b: return "1f1b";
    case Schedule::interleaved: return "interleaved";
  }
  return "1f1b";  // unreachable: every enumerator is handled above
}

void check_pipeline(const PipelineShape& s) {
  if (s.stages < 1) throw InputError(describe(s) + ": p must be >= 1");
  if (s.micro_batches < 1) throw InputError(describe(s) + ": m must be >= 1");
  if (s.schedule != Schedule::interleaved) {
    if (s.virtual_stages != 1)
      throw InputError(describe(s) + ": virtual stages need the interleaved schedule (v must be 1)");
    return;
  }
  // Interleaving one chunk per device is 1f1b; Megatron-LM's interleaved warm-up count would differ.
  if (s.virtual_stages < 2) throw InputError(describe(s) + ": interleaved needs v >= 2 (use 1f1b for v = 1)");
  if (s.micro_batches % s.stages != 0)
    throw InputError(describe(s) + ": interleaved needs m to be a multiple of p (Megatron-LM's requirement)");
}

double bubble_fraction(const PipelineShape& s) {
  check_pipeline(s);
  const double p = s.stages;
  const double m = s.micro_batches;
  // N21 §2.2.1: t_pb / t_id = (p - 1)/m; §2.2.2: interleaving divides the bubble by v.
  return (p - 1.0) / (m * s.virtual_stages);
}

double iteration_time(const PipelineShape& s, double forward_time, double backward_time) {
  check_pipeline(s);
  if (forward_time < 0 || backward_time < 0)
    throw InputError(describe(s) + ": forward and backward times must be >= 0 (got " + std::to_string(forward_time) +
                     ", " + std::to_string(backward_time) + ")");
  // Ideal time m (t_f + t_b) plus the bubble (p - 1)(t_f + t_b)/v (N21 §2.2.1-§2.2.2).
  const double ideal = s.micro_batches * (forward_time + backward_time);
  return ideal * (1.0 + bubble_fraction(s));
}

int in_flight_chunk_forwards(const PipelineShape& s, int stage) {
  check_pipeline(s);
  if (stage < 0 || stage >= s.stages)
    throw InputError(describe(s) + ": stage " + std::to_string(stage) + " is outside 0.." +
                     std::to_string(s.stages - 1));
  const int p = s.stages;
  const int m = s.micro_batches;
  const int v = s.virtual_stages;
  switch (s.schedule) {
    case Schedule::gpipe: return m;
    case Schedule::one_f_one_b: return std::min(p - stage, m);
    case Schedule::interleaved: return std::min(2 * (p - stage - 1) + (v - 1) * p + 1, m * v);
  }
  return m;  // unreachable: every enumerator is handled above
}

double in_flight_micro_batches(const PipelineShape& s, int stage) {
  return static_cast<double>(in_flight_chunk_forwards(s, stage)) / s.virtual_stages;
}

}  // namespace partsim::megatron
