#include "sim/lowering/redistribution_check.hpp"

namespace partsim::lowering {
namespace {

// "1234567" -> "1,234,567": the counts run to millions.
std::string with_commas(std::size_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace

bool is_point_to_point_redistribution(const program::Program& program, const program::Task& task) {
  if (task.kind != program::TaskKind::transfer) return false;
  const program::CollectiveInstance* collective = program.collective_of(task);
  return collective && collective->kind == collectives::Kind::redistribution;
}

std::size_t point_to_point_redistribution_transfers(const program::Program& program) {
  std::size_t n = 0;
  for (const program::Task& t : program.tasks())
    if (is_point_to_point_redistribution(program, t)) ++n;
  return n;
}

std::optional<std::string> redistribution_transfer_warning(std::size_t transfers, plan::Redistribution redistribution) {
  if (transfers <= kRedistributionWarningTransfers) return std::nullopt;
  std::string text = "the plan lowers to " + with_commas(transfers) +
                     " point-to-point redistribution transfers (one per holder and needer of each tensor piece "
                     "moving between differently sharded layers; over " +
                     with_commas(kRedistributionWarningTransfers) + "), the replay may take minutes";
  if (redistribution == plan::Redistribution::point_to_point)
    text += "; plan with --redistribution collective (simplan; simsweep --simplan-arg=--redistribution=collective) "
            "to move them as all-gathers and reduce-scatters where they are such, which replays in seconds";
  return text;
}

}  // namespace partsim::lowering
