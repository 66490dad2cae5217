#include "sim/lowering/sharding_lowering.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <boost/graph/adjacency_list.hpp>

#include "sim/collectives/collectives.hpp"
#include "sim/common/error.hpp"
#include "sim/devices/shard_compute.hpp"
#include "sim/geometry/layer_geometry.hpp"
#include "sim/lowering/sharding_lowerer.hpp"
#include "sim/lowering/task_builders.hpp"
#include "topology/topology_boost_graph.hpp"

namespace partsim::lowering {
namespace detail {

std::vector<LayerState::Meeting> LayerState::owners_meeting(const TensorBox& box) {
  if (by_batch_lo_.size() != owners.size()) {
    by_batch_lo_.resize(owners.size());
    for (std::size_t o = 0; o < owners.size(); ++o) by_batch_lo_[o] = o;
    std::stable_sort(by_batch_lo_.begin(), by_batch_lo_.end(), [&](std::size_t a, std::size_t b) {
      return owners[a].box.batch.lo < owners[b].box.batch.lo;
    });
    max_batch_hi_.resize(owners.size());
    for (std::size_t i = 0; i < owners.size(); ++i) {
      const std::int64_t hi = owners[by_batch_lo_[i]].box.batch.hi;
      max_batch_hi_[i] = i > 0 ? std::max(max_batch_hi_[i - 1], hi) : hi;
    }
  }
  // Owners starting before the box ends, walked back until none of the rest reaches the box.
  const std::size_t end = static_cast<std::size_t>(
      std::partition_point(by_batch_lo_.begin(), by_batch_lo_.end(),
                           [&](std::size_t o) { return owners[o].box.batch.lo < box.batch.hi; }) -
      by_batch_lo_.begin());
  std::vector<Meeting> found;
  for (std::size_t i = end; i-- > 0 && max_batch_hi_[i] > box.batch.lo;) {
    const double elements = intersect(box, owners[by_batch_lo_[i]].box).elements();
    if (elements > 0) found.push_back({by_batch_lo_[i], elements});
  }
  std::sort(found.begin(), found.end(), [](const Meeting& a, const Meeting& b) { return a.owner < b.owner; });
  return found;
}

void LayerState::release_owners() {
  std::vector<Owner>().swap(owners);
  std::vector<std::size_t>().swap(by_batch_lo_);
  std::vector<std::int64_t>().swap(max_batch_hi_);
}

program::Program ShardingLowerer::run() {
  const auto& layers = c_.workload.layers();
  if (c_.plan.layers.size() != layers.size())
    throw InputError("plan has " + std::to_string(c_.plan.layers.size()) + " layers, workload '" +
                     c_.workload.name() + "' has " + std::to_string(layers.size()));
  program_.set_task_limit(c_.max_tasks);
  for (const auto& l : c_.plan.layers) program_.add_layer(l.name);
  state_.resize(layers.size());
  for (std::size_t v = 0; v < layers.size(); ++v) setup(v);
  for (std::size_t v = 0; v < layers.size(); ++v) forward(v);
  if (c_.plan.workload.mode == plan::Mode::training) {
    for (std::size_t v = layers.size(); v-- > 0;) backward(v);
    if (!c_.plan.schedule.overlap_gradient_sync) synchronise_after_backward();
    all_reduce_remaining_buckets();
  }
  return std::move(program_);
}

void ShardingLowerer::setup(std::size_t v) {
  const plan::Sharding& sh = c_.plan.layers[v].sharding;
  try {
    plan::validate(sh, c_.spec.device_count());
  } catch (const InputError& e) {
    throw InputError("plan: /layers/" + std::to_string(v) + "/sharding ('" + layer(v).name + "'): " + e.what());
  }
  LayerState& s = state_[v];
  s.extent = loop_extent(layer(v), batch_);
  for (const auto& db : plan::shard_boxes(sh, s.extent, c_.spec.device_count()))
    if (!db.box.empty()) s.boxes.push_back(db);
  s.grad_ready.assign(s.boxes.size(), -1);
}

// ---- compute ------------------------------------------------------------------------------------

int ShardingLowerer::compute(std::size_t v, Pass pass, int device, const plan::LoopBox& box, std::vector<int> after) {
  const devices::ShardWork w = shard_work(layer(v), box, state_[v].extent, batch_, pass, bpe_);
  if (w.primary_flops + w.aux_flops <= 0) return -1;
  const devices::ShardTime t = devices::shard_time(c_.spec.device_type(device), w, pass);
  int& last = last_compute_[static_cast<std::size_t>(device)];
  if (last >= 0) after.push_back(last);
  const int layer_index = static_cast<int>(v);
  const std::string label = t.memory_bound ? "compute (memory-bound)" : "compute";
  std::vector<int> ends;
  const int cores = core_level_ ? c_.topology.cores_of(device) : 1;
  for (int core = 0; core < cores; ++core)
    ends.push_back(program_.add_compute(layer_index, pass, label, {device, core_level_ ? core : -1, false},
                                        t.compute_s, after));
  if (t.memory_bytes > 0) {
    const auto m = add_memory_traffic(program_, c_.topology, device, t.memory_bytes, false, layer_index, pass,
                                      "memory", after);
    ends.insert(ends.end(), m.begin(), m.end());
  }
  last = ends.size() == 1 ? ends.front() : add_join(program_, layer_index, pass, "compute join", ends);
  return last;
}

// ---- data movement ------------------------------------------------------------------------------

std::vector<int> ShardingLowerer::flush(std::size_t v, Pass pass) {
  const int n = c_.spec.device_count();
  std::vector<std::size_t> order(pending_.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  const auto shift = [n](const Pending& p) { return ((p.dst - p.src) % n + n) % n; };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const Pending &x = pending_[a], &y = pending_[b];
    return x.src != y.src ? x.src < y.src : shift(x) < shift(y);
  });
  std::vector<int> ids(pending_.size(), -1);
  std::map<int, std::vector<int>> queue_tail;  // per sender: the last transfer of each queue
  std::map<int, std::size_t> next_queue;
  // One redistribution per label (the tensor moved: "input from L", "error of L", "error to L"), one
  // step: the transfers a report counts as point-to-point redistribution (redistribution_check.hpp).
  std::map<std::string, int> redistribution;
  std::map<std::string, std::vector<int>> group;  // per label: its devices, as its transfers name them
  for (std::size_t i : order)
    for (int d : {pending_[i].src, pending_[i].dst})
      if (std::vector<int>& g = group[pending_[i].label]; std::find(g.begin(), g.end(), d) == g.end()) g.push_back(d);
  for (std::size_t i : order) {
    Pending& p = pending_[i];
    std::vector<int>& tails = queue_tail[p.src];
    const std::size_t lanes = static_cast<std::size_t>(lanes_of(p.src));
    if (tails.size() < lanes) tails.resize(lanes, -1);
    const std::size_t q = next_queue[p.src]++ % lanes;
    if (tails[q] >= 0) p.after.push_back(tails[q]);
    ids[i] = program_.add_transfer(static_cast<int>(v), pass, p.label, at(p.src), at(p.dst), p.bytes, p.after);
    tails[q] = ids[i];
    auto [it, added] = redistribution.try_emplace(p.label, -1);
    if (added) it->second = program_.add_collective_instance(collectives::Kind::redistribution, "point_to_point",
                                                             std::move(group[p.label]), p.label);
    program_.mark_collective(ids[i], it->second, 0);
  }
  pending_.clear();
  return ids;
}

int ShardingLowerer::lanes_of(int device) const {
  if (lanes_.empty()) {
    const auto& g = chip_topology();
    for (int d = 0; d < c_.spec.device_count(); ++d)
      lanes_.push_back(std::max(1, static_cast<int>(boost::out_degree(static_cast<std::size_t>(g.endpoint(d)), g.boost_graph()))));
  }
  return lanes_[static_cast<std::size_t>(device)];
}

void ShardingLowerer::append(std::vector<int>& deps, const std::vector<int>& ids,
                             const std::vector<std::size_t>& queued) {
  for (std::size_t q : queued) deps.push_back(ids[q]);
}

std::map<int, std::vector<int>> ShardingLowerer::add_steps(std::size_t v, Pass pass, const std::string& label,
                                                           const collectives::Schedule& schedule,
                                                           const std::map<int, std::vector<int>>& start,
                                                           std::map<int, std::vector<int>>* every_arrival) {
  std::map<int, std::vector<int>> arrived = start;  // by device: what reached it in the previous run
  const int layer_index = static_cast<int>(v);
  const std::vector<StepRun> runs = step_runs(schedule, c_.topology);
  const int instance = runs.empty() ? -1 : add_collective_instance(program_, schedule, label);
  for (const StepRun& run : runs) {
    std::map<int, std::vector<int>> next;
    std::set<int> sent;
    std::vector<int> transfers;
    const int steps = static_cast<int>(run.steps);
    for (std::size_t i = 0; i < run.pairs.size(); ++i) {
      const auto [src, dst] = run.pairs[i];
      transfers.push_back(program_.add_transfer(layer_index, pass, label, at(src), at(dst), run.bytes[i], arrived[src]));
      program_.mark_collective(transfers.back(), instance, run.first_step, steps);
      sent.insert(src);
    }
    if (run.steps > 1) program_.add_merged_run(transfers, run.steps);
    for (std::size_t i = 0; i < run.pairs.size(); ++i) {
      const int dst = run.pairs[i].second;
      int id = transfers[i];
      if (run.removed_latency() > 0) {  // paid where the run's data arrives
        id = program_.add_delay(layer_index, pass, label + " latency", run.removed_latency(), {id}, {dst, -1, false});
        program_.add_merged_latency(id);
        program_.mark_collective(id, instance, run.first_step, steps);
      }
      next[dst].push_back(id);
      if (every_arrival) (*every_arrival)[dst].push_back(id);
    }
    for (auto& [d, tasks] : next) {
      if (!sent.contains(d)) tasks.insert(tasks.end(), arrived[d].begin(), arrived[d].end());
      arrived[d] = std::move(tasks);
    }
  }
  return arrived;
}

collectives::Schedule ShardingLowerer::ring(const std::vector<int>& members, int steps, double bytes) {
  collectives::Schedule s;
  const std::size_t k = members.size();
  for (int t = 0; t < steps; ++t)
    for (std::size_t i = 0; i < k; ++i) s.add(members[i], members[(i + 1) % k], bytes, t);
  s.step_count = steps;
  s.what = {collectives::Kind::reduce_scatter, "ring"};  // its one use: the partial-sum reduce-scatter
  return s;
}

// ---- passes -------------------------------------------------------------------------------------

void ShardingLowerer::forward(std::size_t v) {
  const Layer& L = layer(v);
  LayerState& s = state_[v];
  const auto producers = c_.workload.predecessors(v);
  std::vector<int> done(s.boxes.size(), -1);
  if (!is_input(v) && !forward_shared(v, done)) {  // graph inputs are where their sharding puts them from the start
    std::vector<std::vector<int>> deps(s.boxes.size());
    std::vector<std::vector<std::size_t>> queued(s.boxes.size());
    std::vector<bool> gathered(producers.size(), false);
    for (std::size_t slot = 0; slot < producers.size(); ++slot)
      if (const auto piece = collective_piece(v, slot, producers[slot])) {
        gathered[slot] = true;
        const auto waits = all_gather_input(v, producers[slot], *piece);
        for (std::size_t k = 0; k < s.boxes.size(); ++k)
          if (const auto it = waits.find(s.boxes[k].device); it != waits.end())
            deps[k].insert(deps[k].end(), it->second.begin(), it->second.end());
      }
    for (std::size_t k = 0; k < s.boxes.size(); ++k)
      for (std::size_t slot = 0; slot < producers.size(); ++slot) {
        if (gathered[slot]) continue;
        const std::size_t u = producers[slot];
        const auto got = fetch("input from " + layer(u).name, s.boxes[k].device,
                               input_box(L, slot, s.boxes[k].box, s.extent, batch_), state_[u],
                               [](const Owner& o) { return o.ready >= 0 ? std::vector<int>{o.ready} : std::vector<int>{}; },
                               queued[k]);
        deps[k].insert(deps[k].end(), got.begin(), got.end());
      }
    const std::vector<int> ids = flush(v, Pass::fwd);
    for (std::size_t k = 0; k < s.boxes.size(); ++k) {
      append(deps[k], ids, queued[k]);
      done[k] = compute(v, Pass::fwd, s.boxes[k].device, s.boxes[k].box, deps[k]);
      if (done[k] < 0 && !deps[k].empty())  // no work of its own: the inputs' arrival is its output's
        done[k] = deps[k].size() == 1 ? deps[k].front()
                                      : add_join(program_, static_cast<int>(v), Pass::fwd, "join", deps[k]);
    }
  }
  // Owners of the output: one piece per box, or after a ring reduce-scatter of the partial sums
  // held by the boxes that split in_channels (each member ends with one slice).
  std::map<std::vector<plan::Range>, std::vector<std::size_t>> partial;
  for (std::size_t k = 0; k < s.boxes.size(); ++k) {
    if (has_two_channel_axes(L))
      partial[output_key(s.boxes[k].box)].push_back(k);
    else
      s.owners.push_back({s.boxes[k].device, output_box(L, s.boxes[k].box, s.extent, batch_), done[k], {}});
  }
  for (const auto& [key, members] : partial) {
    const TensorBox whole = output_box(L, s.boxes[members.front()].box, s.extent, batch_);
    if (members.size() == 1)
      s.owners.push_back({s.boxes[members.front()].device, whole, done[members.front()], {}});
    else
      reduce_scatter(v, whole, members, done);
  }
}

bool ShardingLowerer::forward_shared(std::size_t v, std::vector<int>& done) {
  const auto& shared = c_.plan.layers[v].sharding.shared;
  if (!shared) return false;
  const Layer& L = layer(v);
  LayerState& s = state_[v];
  const plan::ShardDim dim = *shared == plan::ShardDim::sequence ? plan::ShardDim::height : *shared;
  const bool weights = dim == plan::ShardDim::out_channels || dim == plan::ShardDim::in_channels;
  if (weights && (L.q.params <= 0 || !has_two_channel_axes(L)))
    throw InputError("plan: /layers/" + std::to_string(v) + "/sharding/shared ('" + L.name + "'): shared shards along " +
                     plan::to_string(dim) + " pass weights round, but this " + std::string(workloads::to_string(L.kind)) +
                     " layer has none (share batch, height or width, or leave `shared` out)");
  plan::Range plan::LoopBox::*axis = dim == plan::ShardDim::batch          ? &plan::LoopBox::batch
                                     : dim == plan::ShardDim::out_channels ? &plan::LoopBox::out_channels
                                     : dim == plan::ShardDim::in_channels  ? &plan::LoopBox::in_channels
                                     : dim == plan::ShardDim::height       ? &plan::LoopBox::height
                                                                           : &plan::LoopBox::width;
  // Rings: devices needing the same operand, in sharding order.
  std::map<std::vector<plan::Range>, std::vector<std::size_t>> rings;
  std::vector<std::vector<plan::Range>> order;
  for (std::size_t k = 0; k < s.boxes.size(); ++k) {
    const plan::LoopBox& b = s.boxes[k].box;
    std::vector<plan::Range> key = weights ? weight_key(L, b) : std::vector<plan::Range>{b.batch, b.in_channels, b.height, b.width};
    if (!rings.count(key)) order.push_back(key);
    rings[key].push_back(k);
  }
  // The piece of box k in phase p: slice (j - p) mod n of the ring's range, j its place in the ring.
  std::vector<std::size_t> place(s.boxes.size()), ring_size(s.boxes.size());
  for (const auto& [key, members] : rings)
    for (std::size_t j = 0; j < members.size(); ++j) {
      place[members[j]] = j;
      ring_size[members[j]] = members.size();
    }
  const auto piece = [&](std::size_t k, std::size_t p) {
    plan::LoopBox b = s.boxes[k].box;
    const plan::Range r = b.*axis;
    const auto n = static_cast<std::int64_t>(ring_size[k]);
    const auto slice = static_cast<std::int64_t>((place[k] + ring_size[k] - p % ring_size[k]) % ring_size[k]);
    b.*axis = {r.lo + r.size() * slice / n, r.lo + r.size() * (slice + 1) / n};
    return b;
  };
  const auto slice_bytes = [&](const plan::LoopBox& b) {
    if (weights) return static_cast<double>(L.q.weight_elements) * weight_fraction(L, b, s.extent) * bpe_;
    double in = 0;
    for (std::size_t slot = 0; slot < L.input_shapes.size(); ++slot) in += input_box(L, slot, b, s.extent, batch_).elements();
    return in * bpe_;
  };
  // Inputs: the whole box's when the weights are shared, the first slice's when the inputs are.
  const auto producers = c_.workload.predecessors(v);
  std::vector<std::vector<int>> deps(s.boxes.size());
  std::vector<std::vector<std::size_t>> queued(s.boxes.size());
  for (std::size_t k = 0; k < s.boxes.size(); ++k) {
    const plan::LoopBox first = weights ? s.boxes[k].box : piece(k, 0);
    for (std::size_t slot = 0; slot < producers.size(); ++slot) {
      const std::size_t u = producers[slot];
      const auto got = fetch("input from " + layer(u).name, s.boxes[k].device, input_box(L, slot, first, s.extent, batch_),
                             state_[u],
                             [](const Owner& o) { return o.ready >= 0 ? std::vector<int>{o.ready} : std::vector<int>{}; },
                             queued[k]);
      deps[k].insert(deps[k].end(), got.begin(), got.end());
    }
  }
  const std::vector<int> ids = flush(v, Pass::fwd);
  for (std::size_t k = 0; k < s.boxes.size(); ++k) append(deps[k], ids, queued[k]);
  const int layer_index = static_cast<int>(v);
  for (const auto& key : order) {
    const std::vector<std::size_t>& members = rings.at(key);
    const std::size_t n = members.size();
    std::vector<std::vector<int>> holding(n);  // per member: what its current slice waits for
    for (std::size_t j = 0; j < n; ++j) holding[j] = deps[members[j]];
    for (std::size_t p = 0; p < n; ++p) {
      std::vector<int> phase_end(n, -1);
      for (std::size_t j = 0; j < n; ++j) {
        const std::size_t k = members[j];
        const int c = compute(v, Pass::fwd, s.boxes[k].device, piece(k, p), holding[j]);
        phase_end[j] = c >= 0 ? c
                       : holding[j].empty() ? -1
                       : holding[j].size() == 1 ? holding[j].front()
                                                : add_join(program_, layer_index, Pass::fwd, "join", holding[j]);
        if (phase_end[j] >= 0) done[k] = phase_end[j];
      }
      if (p + 1 == n) break;
      std::vector<std::vector<int>> next(n);
      for (std::size_t j = 0; j < n; ++j) {
        const std::size_t to = (j + 1) % n;
        std::vector<int> after;
        if (phase_end[j] >= 0) after.push_back(phase_end[j]);
        next[to] = {program_.add_transfer(layer_index, Pass::fwd, "shared shard rotation", at(s.boxes[members[j]].device),
                                          at(s.boxes[members[to]].device), slice_bytes(piece(members[j], p)), after)};
      }
      holding = std::move(next);
    }
  }
  return true;
}

void ShardingLowerer::reduce_scatter(std::size_t v, const TensorBox& whole, const std::vector<std::size_t>& members,
                                     const std::vector<int>& done) {
  LayerState& s = state_[v];
  const std::size_t k = members.size();
  std::vector<int> devices;
  std::map<int, std::vector<int>> start;
  for (std::size_t m : members) {
    devices.push_back(s.boxes[m].device);
    if (done[m] >= 0) start[s.boxes[m].device] = {done[m]};
  }
  const auto end = add_steps(v, Pass::fwd, "partial-sum reduce-scatter", ring(devices, static_cast<int>(k) - 1,
                                                                               whole.elements() / static_cast<double>(k) * bpe_),
                             start);
  // Member j ends with slice j of the largest axis (the ring's order: chunk j completes at j).
  plan::Range TensorBox::*axes[] = {&TensorBox::batch, &TensorBox::channel, &TensorBox::height, &TensorBox::width};
  plan::Range TensorBox::*largest = axes[0];
  for (auto a : axes)
    if ((whole.*a).size() > (whole.*largest).size()) largest = a;
  const plan::Range r = whole.*largest;
  for (std::size_t j = 0; j < k; ++j) {
    TensorBox slice = whole;
    slice.*largest = {r.lo + r.size() * static_cast<std::int64_t>(j) / static_cast<std::int64_t>(k),
                      r.lo + r.size() * static_cast<std::int64_t>(j + 1) / static_cast<std::int64_t>(k)};
    const auto& tasks = end.at(devices[j]);
    const int ready = tasks.size() == 1 ? tasks.front()
                                        : add_join(program_, static_cast<int>(v), Pass::fwd, "join", tasks);
    s.owners.push_back({devices[j], slice, ready, {}});
  }
}

void ShardingLowerer::backward(std::size_t v) {
  if (is_input(v)) return;
  const Layer& L = layer(v);
  LayerState& s = state_[v];
  const auto producers = c_.workload.predecessors(v);
  bool needs_input_error = false;
  for (std::size_t u : producers) needs_input_error = needs_input_error || !is_input(u);
  const bool has_consumers = !c_.workload.successors(v).empty();
  // The error of its outputs: the consumers' input errors gathered at the owners, or for the last
  // layer the loss gradient, where the output is.
  std::vector<std::vector<int>> deps(s.boxes.size());
  std::vector<std::vector<std::size_t>> queued(s.boxes.size());
  const auto error_source = [has_consumers](const Owner& o) {
    if (has_consumers) return o.error_in;
    return o.ready >= 0 ? std::vector<int>{o.ready} : std::vector<int>{};
  };
  // schedule.redistribution collective: boxes that each need the error of the whole output, held
  // as one equal piece per device (the partial sums' reduce-scatter slices), get it by an all-gather.
  const std::optional<double> error_piece =
      collective_piece_of(v, s, [&](const plan::LoopBox& box) { return output_box(L, box, s.extent, batch_); });
  if (error_piece) {
    std::map<int, std::vector<int>> start, waits;
    for (const Owner& o : s.owners) start[o.device] = waits[o.device] = error_source(o);
    add_steps(v, Pass::bwd, "error of " + L.name + " (all-gather)",
              whole_platform_collective("all_gather", *error_piece * static_cast<double>(s.owners.size()) * bpe_),
              start, &waits);
    for (std::size_t k = 0; k < s.boxes.size(); ++k) deps[k] = waits[s.boxes[k].device];
  }
  for (std::size_t k = 0; k < s.boxes.size() && !error_piece; ++k)
    deps[k] = fetch("error of " + L.name, s.boxes[k].device, output_box(L, s.boxes[k].box, s.extent, batch_),
                    s, error_source, queued[k]);
  const std::vector<int> ids = flush(v, Pass::bwd);
  // Input errors, sent to the owners of each producer's output (summed where they arrive).
  struct Sent {
    std::size_t u = 0, owner = 0, queue = 0;
  };
  std::vector<Sent> sent;
  // Producers whose errors go back by a reduce-scatter (schedule.redistribution collective), with
  // the piece each owner gets, and the boxes' input-error computes they start after.
  std::map<std::size_t, double> scattered;
  if (needs_input_error)
    for (std::size_t slot = 0; slot < producers.size(); ++slot)
      if (const auto piece = collective_piece(v, slot, producers[slot])) scattered[slot] = *piece;
  std::map<int, std::vector<int>> dx_done;  // by device
  for (std::size_t k = 0; k < s.boxes.size(); ++k) {
    const auto& [device, box] = s.boxes[k];
    append(deps[k], ids, queued[k]);
    if (needs_input_error) {
      const int dx = compute(v, Pass::bwd, device, box, deps[k]);
      const std::vector<int> after = dx >= 0 ? std::vector<int>{dx} : deps[k];
      if (!scattered.empty()) dx_done[device] = after;
      for (std::size_t slot = 0; slot < producers.size(); ++slot) {
        const std::size_t u = producers[slot];
        if (is_input(u) || scattered.contains(slot)) continue;
        const TensorBox dx_box = input_box(L, slot, box, s.extent, batch_);
        auto& owners = state_[u].owners;
        for (const auto& [o, elements] : state_[u].owners_meeting(dx_box)) {
          if (owners[o].device == device) {
            owners[o].error_in.insert(owners[o].error_in.end(), after.begin(), after.end());
            continue;
          }
          sent.push_back({u, o, pending_.size()});
          pending_.push_back({device, owners[o].device, elements * bpe_, after, "error to " + layer(u).name});
        }
      }
    }
    s.grad_ready[k] = compute(v, Pass::upd, device, box, deps[k]);
  }
  const std::vector<int> sent_ids = flush(v, Pass::bwd);
  for (const Sent& e : sent) state_[e.u].owners[e.owner].error_in.push_back(sent_ids[e.queue]);
  for (const auto& [slot, piece] : scattered) reduce_scatter_errors(v, producers[slot], piece, dx_done);
  if (c_.plan.schedule.overlap_gradient_sync) synchronise_gradients(v);
  s.release_owners();  // its error has been fetched, its consumers ran before it: nothing reads them again
}

const topology::TopologyGraph& ShardingLowerer::chip_topology() const {
  if (c_.topology.granularity() == topology::Granularity::chip) return c_.topology;
  if (!chip_topology_) chip_topology_.emplace(c_.spec, topology::Granularity::chip);
  return *chip_topology_;
}

}  // namespace detail

program::Program lower_sharding(const Context& context) { return detail::ShardingLowerer(context).run(); }

}  // namespace partsim::lowering
