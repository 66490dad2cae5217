#pragma once
// How many point-to-point redistribution transfers a lowered plan holds, and the warning when there
// are so many that replaying it takes minutes (issue 41 item 4: "defaults that do not stall").
// The default redistribution (plan schedule.redistribution point_to_point) sends one transfer per
// holder and needer of every piece of a tensor moving between differently sharded layers; owt's
// bert_large on 1,024 chips lowers to millions, and the SimGrid replay then spends minutes on them
// where the collective redistribution (--redistribution collective) replays in about a second.
// simrun warns before the replay, simplan after planning (docs/sweeps.md, docs/model.md
// "Collective redistributions").

#include <cstddef>
#include <optional>
#include <string>

#include "sim/plan/plan.hpp"
#include "sim/program/program.hpp"

namespace partsim::lowering {

/// Over this many point-to-point redistribution transfers in one lowered iteration, simrun and
/// simplan warn. Measured on this project's 2-core machine (docs/sweeps.md "Replays that take
/// minutes"): owt bert_large b256 replays about 3,400 tasks a second on tpu_v3_128_torus_ici, where
/// thousands of flows share the torus links (SimGrid re-solves the shared bandwidth at each flow's
/// start and end), but 240,000 a second on tpu_v3_128.yaml's star; 200,000 transfers is then about a
/// minute at worst, a second at best.
inline constexpr std::size_t kRedistributionWarningTransfers = 200'000;

/// Whether `task` (of `program`) is one of the shared sharding lowering's point-to-point
/// redistribution transfers ("input from L", "error of L", "error to L": sharding_lowering.cpp fetch
/// and the errors sent back), by its collective identity (collectives::Kind::redistribution), not
/// the all-gathers and reduce-scatters of a collective redistribution.
bool is_point_to_point_redistribution(const program::Program& program, const program::Task& task);

/// The transfers of `program` that is_point_to_point_redistribution() names.
std::size_t point_to_point_redistribution_transfers(const program::Program& program);

/// "N point-to-point redistribution transfers ..., the replay may take minutes; plan with
/// --redistribution collective ..." when `transfers` is over kRedistributionWarningTransfers
/// (the advice to plan again only when `redistribution` is point_to_point); nothing otherwise.
/// The text has no "tool: warning: " prefix: each tool adds its own.
std::optional<std::string> redistribution_transfer_warning(std::size_t transfers, plan::Redistribution redistribution);

}  // namespace partsim::lowering
