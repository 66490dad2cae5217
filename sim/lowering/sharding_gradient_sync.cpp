#include "sim/lowering/sharding_lowerer.hpp"

#include <string>
#include <utility>
#include <vector>

#include "sim/lowering/task_builders.hpp"

// ShardingLowerer: the gradient synchronisation of the replicas of a layer's weights, overlapped
// with back-propagation or after it, in buckets, by all-reduce or parameter server.

namespace partsim::lowering::detail {

void ShardingLowerer::synchronise_after_backward() {
  std::vector<int> last;
  for (int t : last_compute_)
    if (t >= 0) last.push_back(t);
  if (last.empty()) return;
  const int barrier = last.size() == 1 ? last.front() : add_join(program_, 0, Pass::upd, "end of back-propagation", last);
  for (std::size_t v = c_.workload.layers().size(); v-- > 0;) synchronise_gradients(v, barrier);
}

void ShardingLowerer::synchronise_gradients(std::size_t v, int barrier) {
  const Layer& L = layer(v);
  LayerState& s = state_[v];
  if (L.q.params <= 0) return;
  std::map<std::vector<plan::Range>, std::vector<std::size_t>> replicas;
  for (std::size_t k = 0; k < s.boxes.size(); ++k) replicas[weight_key(L, s.boxes[k].box)].push_back(k);
  for (const auto& [key, members] : replicas) {
    if (members.size() < 2) continue;
    const double bytes = static_cast<double>(L.q.params) * weight_fraction(L, s.boxes[members.front()].box, s.extent) * bpe_;
    std::vector<int> devices;
    for (std::size_t m : members) devices.push_back(s.boxes[m].device);
    GradientBucket& bucket = buckets_[devices];
    if (bucket.layers == 0) bucket_order_.push_back(devices);
    bucket.bytes += bytes;
    ++bucket.layers;
    bucket.layer = v;
    for (std::size_t m : members) {
      const int ready = barrier >= 0 ? barrier : s.grad_ready[m];
      if (ready >= 0) bucket.ready[s.boxes[m].device].push_back(ready);
    }
    if (bucket.bytes >= c_.plan.schedule.gradient_bucket_bytes) all_reduce_bucket(devices);
  }
}

void ShardingLowerer::all_reduce_bucket(const std::vector<int>& devices) {
  GradientBucket bucket = std::move(buckets_.at(devices));
  buckets_.erase(devices);
  std::erase(bucket_order_, devices);
  std::map<int, std::vector<int>> start = std::move(bucket.ready);
  if (in_order_sync())  // and after each device's previous all-reduce (one stream per device)
    for (int device : devices) {
      const std::vector<int>& previous = sync_stream_end_[static_cast<std::size_t>(device)];
      start[device].insert(start[device].end(), previous.begin(), previous.end());
    }
  const bool server = c_.plan.schedule.gradient_sync_algorithm == plan::GradientSyncAlgorithm::parameter_server;
  const std::string what = server ? "gradient parameter-server sync" : "gradient all-reduce";
  const std::string label = bucket.layers == 1 ? what : what + " (bucket of " + std::to_string(bucket.layers) + " layers)";
  const auto end = add_steps(bucket.layer, Pass::upd, label,
                             server ? parameter_server_schedule(devices, bucket.bytes, bucket.layer)
                                    : collective_schedule("all_reduce", devices, bucket.bytes),
                             start);
  if (in_order_sync())
    for (const auto& [device, tasks] : end) sync_stream_end_[static_cast<std::size_t>(device)] = tasks;
}

void ShardingLowerer::all_reduce_remaining_buckets() {
  while (!bucket_order_.empty()) all_reduce_bucket(std::vector<int>(bucket_order_.front()));
}

bool ShardingLowerer::in_order_sync() const {
  return c_.plan.schedule.gradient_sync_order == plan::GradientSyncOrder::in_order;
}

collectives::Schedule ShardingLowerer::parameter_server_schedule(const std::vector<int>& devices, double bytes,
                                                                 std::size_t v) {
  collectives::Schedule s;
  const int server = devices[v % devices.size()];
  for (int d : devices)
    if (d != server) s.add(d, server, bytes, 0);
  for (int d : devices)
    if (d != server) s.add(server, d, bytes, 1);
  s.step_count = 2;
  s.what = {collectives::Kind::all_reduce, "parameter_server"};  // gradients summed at the server, sent back
  return s;
}

}  // namespace partsim::lowering::detail
