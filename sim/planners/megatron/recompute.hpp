#pragma once
// Activation recomputation as Megatron-LM offers it (Korthikanti et al. 2022, arXiv 2205.05198):
//   none       every activation of the forward pass is kept for the backward pass (§4, Eq. 1-5);
//   selective  the attention core (QK^T, softmax, softmax dropout, attention over V) is not kept and
//              is recomputed in the backward pass (§5, Fig. 3), Megatron's --recompute-granularity
//              selective;
//   full       only each transformer layer's input is kept; the whole layer's forward is run again
//              before its backward (§5, "full activation recomputation"), Megatron's
//              --recompute-granularity full with one layer per checkpoint.
//
// Contract: pure.

#include <string>
#include <string_view>

namespace partsim::megatron {

enum class Recompute { none, selective, full };

/// "none" | "selective" | "full". Throws InputError naming the valid values otherwise.
Recompute parse_recompute(std::string_view name);

/// The name parse_recompute() accepts.
std::string recompute_name(Recompute recompute);

}  // namespace partsim::megatron
