#pragma once
// The `megatron` strategy (issue 40): Megatron-LM's tensor, sequence, pipeline and data parallelism
// with ZeRO and activation recomputation, for decoder transformers (gpt:/llama: presets, the zoo's
// transformers, decoders with the same block structure). Planning only: the prediction and the
// memory of planner.hpp; the lowering of lowering.hpp (issue 40 item 3) replays it.
// Plan fields (docs/plan-format.md "megatron"): plan family {tp, pp, dp, microbatch, micro_batches,
// schedule, virtual_stages, sequence_parallel, recompute, zero, overlap_grad_reduce,
// overlap_param_gather, rank_order, prediction {...}, search {...} with search=true}; per layer
// {stage, block}.

#include "sim/planners/megatron/planner.hpp"
#include "sim/planners/option_bindings.hpp"
#include "sim/planners/registry.hpp"

namespace partsim::megatron {

void register_strategies(planner::StrategyRegistry& registry);

/// The `megatron` strategy's options: the configuration to plan, or search=true to choose one.
struct MegatronOptions : Configuration {
  bool search = false;
};
/// Every `megatron` option, declared and bound to its field.
planner::OptionBindings<MegatronOptions> option_bindings();

}  // namespace partsim::megatron
