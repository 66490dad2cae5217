#include "sim/export/compute_spans.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <queue>
#include <tuple>

#include "sim/common/error.hpp"

namespace partsim::chakra_export {
namespace {

// Seconds within which two boundaries are one instant: partsim's times are nanosecond-scale, a
// task that starts when another ends gets exactly its finish time, and this only absorbs rounding.
constexpr double kSameInstant = 1e-13;

constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

bool is_comp(const ProtoNode& n) { return n.type == ChakraProtoMsg::COMP_NODE; }

// One node of the output before numbering: a busy interval, or a SEND/RECV node of the input.
struct Item {
  double time = 0;          // its start in the schedule (the numbering order)
  std::size_t order = 0;    // ties: the smallest input position it comes from
  ProtoNode node;
  std::vector<std::size_t> deps;  // items
};

void add_unique(std::vector<std::size_t>& to, const std::vector<std::size_t>& from) {
  for (std::size_t x : from)
    if (std::find(to.begin(), to.end(), x) == to.end()) to.push_back(x);
}

// The boundaries of the rank's busy intervals: every start and finish of a COMP of positive duration.
std::vector<double> boundaries(const std::vector<ProtoNode>& nodes, const std::vector<program::TaskTiming>& schedule) {
  std::vector<double> b;
  for (const ProtoNode& n : nodes)
    if (is_comp(n)) {
      const auto& t = schedule.at(n.task);
      if (t.finish > t.start) {
        b.push_back(t.start);
        b.push_back(t.finish);
      }
    }
  std::sort(b.begin(), b.end());
  std::vector<double> unique;
  for (double x : b)
    if (unique.empty() || x - unique.back() > kSameInstant) unique.push_back(x);
  return unique;
}

// Items in the order of their start (ties by input position) that respects their dependencies.
std::vector<std::size_t> time_order(const std::vector<Item>& items) {
  std::vector<std::size_t> waiting(items.size(), 0);
  std::vector<std::vector<std::size_t>> next(items.size());
  for (std::size_t i = 0; i < items.size(); ++i)
    for (std::size_t d : items[i].deps) {
      ++waiting[i];
      next[d].push_back(i);
    }
  using Key = std::tuple<double, std::size_t, std::size_t>;
  std::priority_queue<Key, std::vector<Key>, std::greater<>> ready;
  for (std::size_t i = 0; i < items.size(); ++i)
    if (waiting[i] == 0) ready.emplace(items[i].time, items[i].order, i);
  std::vector<std::size_t> order;
  while (!ready.empty()) {
    const std::size_t i = std::get<2>(ready.top());
    ready.pop();
    order.push_back(i);
    for (std::size_t s : next[i])
      if (--waiting[s] == 0) ready.emplace(items[s].time, items[s].order, s);
  }
  if (order.size() != items.size())
    throw Error("chakra export: the schedule's compute spans and the rank's messages wait for each other (a cycle)");
  return order;
}

}  // namespace

RankGraph fold_compute_spans(RankGraph rank, const std::vector<program::TaskTiming>& schedule, SpanCounts& counts) {
  std::vector<ProtoNode>& nodes = rank.nodes;
  const std::vector<double> bounds = boundaries(nodes, schedule);
  const auto boundary = [&](double t) {
    return static_cast<std::size_t>(std::lower_bound(bounds.begin(), bounds.end(), t - kSameInstant) - bounds.begin());
  };
  const std::size_t segments = bounds.empty() ? 0 : bounds.size() - 1;

  // Which intervals are busy, and how many tasks run in each.
  std::vector<long> running(segments + 1, 0);
  for (const ProtoNode& n : nodes)
    if (is_comp(n) && schedule.at(n.task).finish > schedule.at(n.task).start) {
      ++running[boundary(schedule.at(n.task).start)];
      --running[boundary(schedule.at(n.task).finish)];
    }
  std::vector<Item> items;
  std::vector<std::size_t> span_item(segments, kNone);
  std::vector<std::size_t> tasks_in(segments, 0);
  long active = 0;
  std::size_t previous_span = kNone;
  for (std::size_t k = 0; k < segments; ++k) {
    active += running[k];
    if (active <= 0) continue;
    Item it;
    it.time = bounds[k];
    it.order = kNone;
    it.node.seconds = bounds[k + 1] - bounds[k];
    it.node.micros = std::llround(bounds[k + 1] * 1e6) - std::llround(bounds[k] * 1e6);
    if (previous_span != kNone) it.deps.push_back(previous_span);
    span_item[k] = previous_span = items.size();
    items.push_back(std::move(it));
    ++counts.spans;
  }

  const std::size_t span_count = items.size();  // items [0, span_count) are the intervals

  // Every input node's stand-in for those that waited for it: the items it ends with.
  std::vector<std::vector<std::size_t>> ends(nodes.size());
  const auto waits_of = [&](const ProtoNode& n) {
    std::vector<std::size_t> deps;
    for (std::uint32_t d : n.deps) add_unique(deps, ends[d]);
    return deps;
  };
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    ProtoNode& n = nodes[i];
    if (!is_comp(n)) {
      Item it;
      const auto& t = schedule.at(n.task);
      it.time = t.start + (t.finish - t.start) * n.step / std::max(1, n.steps);
      it.order = i;
      it.deps = waits_of(n);
      it.node = std::move(n);
      ends[i] = {items.size()};
      items.push_back(std::move(it));
      continue;
    }
    const auto& t = schedule.at(n.task);
    if (!(t.finish > t.start)) {
      ends[i] = waits_of(n);  // no time: its waits pass on
      continue;
    }
    ++counts.compute_tasks;
    const std::size_t first = boundary(t.start), last = boundary(t.finish);
    for (std::size_t k = first; k < last; ++k) {
      Item& span = items[span_item[k]];
      span.node.ops += n.ops * (bounds[k + 1] - bounds[k]) / (t.finish - t.start);
      ++tasks_in[k];
      if (i < span.order) {
        span.order = i;
        span.node.task = n.task;
      }
    }
    // The interval it starts with waits for what it waited for; an earlier interval is implied
    // by the chain (a later one would mean the schedule is not this graph's).
    std::vector<std::size_t>& start_deps = items[span_item[first]].deps;
    for (std::size_t d : waits_of(n)) {
      if (d < span_count) {
        if (d >= span_item[first])
          throw Error("chakra export: a compute task starts before a compute it waits for ends (inconsistent schedule)");
        continue;
      }
      add_unique(start_deps, {d});
    }
    ends[i] = {span_item[last - 1]};
  }
  for (std::size_t k = 0; k < segments; ++k)
    if (span_item[k] != kNone && tasks_in[k] > 1)
      items[span_item[k]].node.note = " (busy span of " + std::to_string(tasks_in[k]) + " tasks)";

  RankGraph out;
  std::vector<std::uint32_t> id(items.size());
  for (std::size_t i : time_order(items)) {
    ProtoNode n = std::move(items[i].node);
    n.deps.clear();
    for (std::size_t d : items[i].deps) n.deps.push_back(id[d]);
    out.reduce(n.deps);
    id[i] = static_cast<std::uint32_t>(out.nodes.size());
    out.nodes.push_back(std::move(n));
  }
  return out;
}

}  // namespace partsim::chakra_export
