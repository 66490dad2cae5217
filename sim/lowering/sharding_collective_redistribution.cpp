#include "sim/lowering/sharding_lowerer.hpp"

// ShardingLowerer: the collective redistributions (plan schedule.redistribution: collective): a
// layer input taken whole by every device as an all-gather of equal pieces, its error sent back as a
// reduce-scatter, and the collective schedules the plan or the platform picks.

namespace partsim::lowering::detail {

bool ShardingLowerer::collective_redistribution() const {
  return c_.plan.schedule.redistribution == plan::Redistribution::collective;
}

bool ShardingLowerer::one_box_per_device(const std::vector<int>& devices) const {
  const int n = c_.spec.device_count();
  if (static_cast<int>(devices.size()) != n || n < 2) return false;
  std::vector<bool> seen(static_cast<std::size_t>(n), false);
  for (int d : devices) {
    if (d < 0 || d >= n || seen[static_cast<std::size_t>(d)]) return false;
    seen[static_cast<std::size_t>(d)] = true;
  }
  return true;
}

std::optional<double> ShardingLowerer::whole_from_equal_pieces(LayerState& holder,
                                                               const std::vector<TensorBox>& needs) const {
  std::vector<int> devices;
  for (const Owner& o : holder.owners) devices.push_back(o.device);
  if (needs.empty() || !one_box_per_device(devices)) return std::nullopt;
  const auto same = [](const TensorBox& a, const TensorBox& b) {
    return a.batch == b.batch && a.channel == b.channel && a.height == b.height && a.width == b.width;
  };
  for (const TensorBox& need : needs)
    if (!same(need, needs.front())) return std::nullopt;
  const double piece = holder.owners.front().box.elements();
  const auto meetings = holder.owners_meeting(needs.front());
  if (meetings.size() != holder.owners.size() || piece <= 0) return std::nullopt;
  for (const auto& m : meetings)
    if (m.elements != piece || holder.owners[m.owner].box.elements() != piece) return std::nullopt;
  return piece;
}

collectives::Schedule ShardingLowerer::whole_platform_collective(const std::string& collective, double bytes) const {
  std::vector<int> devices(static_cast<std::size_t>(c_.spec.device_count()));
  for (std::size_t d = 0; d < devices.size(); ++d) devices[d] = static_cast<int>(d);
  return collective_schedule(collective, devices, bytes);
}

collectives::Schedule ShardingLowerer::collective_schedule(const std::string& collective,
                                                           const std::vector<int>& devices, double bytes) const {
  const auto& chosen = c_.plan.schedule.collective_algorithms;
  const auto it = chosen.find(collective);
  return collectives::collective_schedule(collective, devices, bytes, it == chosen.end() ? "" : it->second,
                                          chip_topology());
}

std::optional<double> ShardingLowerer::collective_piece(std::size_t v, std::size_t slot, std::size_t u) {
  if (is_input(u)) return std::nullopt;
  const LayerState& s = state_[v];
  return collective_piece_of(v, state_[u], [&](const plan::LoopBox& box) {
    return input_box(layer(v), slot, box, s.extent, batch_);
  });
}

std::map<int, std::vector<int>> ShardingLowerer::all_gather_input(std::size_t v, std::size_t u, double piece) {
  const LayerState& holder = state_[u];
  std::map<int, std::vector<int>> start, waits;
  for (const Owner& o : holder.owners)
    if (o.ready >= 0) start[o.device] = waits[o.device] = {o.ready};
  add_steps(v, Pass::fwd, "input from " + layer(u).name + " (all-gather)",
            whole_platform_collective("all_gather", piece * static_cast<double>(holder.owners.size()) * bpe_), start,
            &waits);
  return waits;
}

void ShardingLowerer::reduce_scatter_errors(std::size_t v, std::size_t u, double piece,
                                            const std::map<int, std::vector<int>>& after) {
  LayerState& holder = state_[u];
  std::map<int, std::vector<int>> arrivals;
  add_steps(v, Pass::bwd, "error to " + layer(u).name + " (reduce-scatter)",
            whole_platform_collective("reduce_scatter", piece * static_cast<double>(holder.owners.size()) * bpe_),
            after, &arrivals);
  const auto add = [](std::vector<int>& to, const std::map<int, std::vector<int>>& by_device, int device) {
    if (const auto it = by_device.find(device); it != by_device.end()) to.insert(to.end(), it->second.begin(), it->second.end());
  };
  for (Owner& o : holder.owners) {
    add(o.error_in, after, o.device);      // its own partial sum
    add(o.error_in, arrivals, o.device);  // what the reduce-scatter brought
  }
}

}  // namespace partsim::lowering::detail
