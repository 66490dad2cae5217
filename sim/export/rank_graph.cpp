#include "sim/export/rank_graph.hpp"

#include <algorithm>
#include <functional>

namespace partsim::chakra_export {

void RankGraph::reduce(std::vector<std::uint32_t>& ids) {
  if (ids.size() < 2) return;
  std::sort(ids.begin(), ids.end(), std::greater<>());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  if (ids.size() < 2) return;
  if (mark_.size() < nodes.size()) mark_.resize(nodes.size(), 0);
  ++stamp_;
  const std::uint32_t lowest = ids.back();
  std::size_t budget = kReductionBudget;
  std::vector<std::uint32_t> kept;
  for (std::uint32_t id : ids) {
    if (mark_[id] == stamp_) continue;  // an ancestor of a later one: implied
    kept.push_back(id);
    // Ids are topological: ancestors below the lowest candidate cannot be candidates.
    stack_.assign(nodes[id].deps.begin(), nodes[id].deps.end());
    while (!stack_.empty() && budget > 0) {
      const std::uint32_t x = stack_.back();
      stack_.pop_back();
      if (x < lowest || mark_[x] == stamp_) continue;
      mark_[x] = stamp_;
      --budget;
      stack_.insert(stack_.end(), nodes[x].deps.begin(), nodes[x].deps.end());
    }
  }
  ids.assign(kept.rbegin(), kept.rend());
}

}  // namespace partsim::chakra_export
