#include "sim/planners/megatron/pipeline_order.hpp"

#include <algorithm>
#include <string>

#include "sim/common/error.hpp"

namespace partsim::megatron {
namespace {

// Virtual micro-batch k of the interleaved schedule (schedules.py get_model_chunk_id and
// get_microbatch_id_in_model_chunk): groups of p v, chunk by blocks of p inside a group.
Step virtual_step(Direction d, int k, int p, int v) {
  const int in_group = k % (p * v);
  int chunk = in_group / p;
  if (d == Direction::backward) chunk = v - 1 - chunk;
  return {d, (k / (p * v)) * p + k % p, chunk};
}

}  // namespace

std::vector<Step> stage_order(const PipelineShape& shape, int stage) {
  check_pipeline(shape);
  const int p = shape.stages, m = shape.micro_batches, v = shape.virtual_stages;
  if (stage < 0 || stage >= p)
    throw InputError("pipeline stage " + std::to_string(stage) + " outside 0.." + std::to_string(p - 1));
  std::vector<Step> order;
  order.reserve(static_cast<std::size_t>(2 * m * v));
  if (shape.schedule == Schedule::gpipe) {
    for (int k = 0; k < m; ++k) order.push_back({Direction::forward, k, 0});
    for (int k = 0; k < m; ++k) order.push_back({Direction::backward, k, 0});
    return order;
  }
  // 1f1b is the interleaved schedule's v = 1 case with warm-up p - r - 1 (no doubling).
  const int total = m * v;
  int warmup = 0;
  if (shape.schedule == Schedule::one_f_one_b)
    warmup = std::min(p - stage - 1, m);
  else
    warmup = m == p ? total : std::min((p - stage - 1) * 2 + (v - 1) * p, total);
  const int remaining = total - warmup;
  for (int k = 0; k < warmup; ++k) order.push_back(virtual_step(Direction::forward, k, p, v));
  for (int k = 0; k < remaining; ++k) {
    order.push_back(virtual_step(Direction::forward, k + warmup, p, v));
    order.push_back(virtual_step(Direction::backward, k, p, v));
  }
  for (int k = remaining; k < total; ++k) order.push_back(virtual_step(Direction::backward, k, p, v));
  return order;
}

}  // namespace partsim::megatron
