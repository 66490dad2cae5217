#include "sim/program/replay_lower_bound.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "sim/common/error.hpp"
#include "sim/program/successors.hpp"

namespace partsim::program {

double preemptive_window(std::vector<LinkCrossing> crossings) {
  // Jackson's preemptive schedule: at every moment the link sends, of the flows released (head
  // passed), the one with the longest tail; a newly released flow may preempt. Its largest
  // completion + tail is the best bound over every set of the flows (Carlier 1982).
  std::sort(crossings.begin(), crossings.end(),
            [](const LinkCrossing& a, const LinkCrossing& b) { return a.head_s < b.head_s; });
  std::priority_queue<std::pair<double, double>> ready;  // (tail s, seconds left to send)
  double now = 0;
  double best = 0;
  std::size_t next = 0;
  while (next < crossings.size() || !ready.empty()) {
    if (ready.empty()) now = std::max(now, crossings[next].head_s);
    for (; next < crossings.size() && crossings[next].head_s <= now; ++next)
      ready.emplace(crossings[next].tail_s, crossings[next].busy_s);
    auto [tail, left] = ready.top();
    ready.pop();
    const double release = next < crossings.size() ? crossings[next].head_s : std::numeric_limits<double>::infinity();
    if (now + left <= release) {
      now += left;
      best = std::max(best, now + tail);
    } else {
      ready.emplace(tail, left - (release - now));
      now = release;
    }
  }
  return best;
}

namespace {

// Per link, the flows of one task's gather (its predecessors) or scatter (its successors): their
// bytes and earliest head or shortest tail. Reset after each task through the list of links touched.
class LinkGroups {
 public:
  explicit LinkGroups(std::size_t links) : bytes_(links, 0.0), extreme_(links, 0.0) {}
  /// Adds a flow of `bytes` (> 0) whose head (gather) or tail (scatter) is `value` on every link of `route`.
  void add(const topology::Route& route, double bytes, double value) {
    for (const int link : route) {
      const auto l = static_cast<std::size_t>(link);
      if (bytes_[l] == 0) {
        touched_.push_back(l);
        extreme_[l] = value;
      }
      bytes_[l] += bytes;
      extreme_[l] = std::min(extreme_[l], value);
    }
  }
  /// Calls f(link, bytes, min value) for every link touched since the last call, and resets them.
  template <class F>
  void drain(F&& f) {
    for (const std::size_t l : touched_) {
      f(l, bytes_[l], extreme_[l]);
      bytes_[l] = 0;
    }
    touched_.clear();
  }

 private:
  std::vector<double> bytes_;
  std::vector<double> extreme_;
  std::vector<std::size_t> touched_;
};

}  // namespace

ReplayLowerBound replay_lower_bound(const Program& program, const TransferRoutes& routes,
                                    const topology::TopologyGraph& graph, const ReplayPrefix* prefix) {
  if (routes.task_count() != program.size())
    throw Error("replay lower bound: the routes were resolved for " + std::to_string(routes.task_count()) +
                " tasks, not this Program's " + std::to_string(program.size()));
  if (prefix != nullptr && (prefix->observed == nullptr || prefix->observed->tasks.size() != program.size()))
    throw Error("replay lower bound: the replayed prefix times " +
                std::to_string(prefix->observed == nullptr ? 0 : prefix->observed->tasks.size()) +
                " tasks, not this Program's " + std::to_string(program.size()));
  const auto& tasks = program.tasks();
  const std::size_t n = program.size();
  const auto links = static_cast<std::size_t>(graph.link_count());
  std::vector<double> bandwidth(links);
  for (std::size_t l = 0; l < links; ++l) bandwidth[l] = graph.link(static_cast<int>(l)).bandwidth;

  // Lone durations; the bytes a transfer sends (whole, as the replay sends them); route latencies.
  std::vector<double> duration(n, 0.0);
  std::vector<double> bytes(n, 0.0);
  std::vector<double> latency(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    const Task& t = tasks[i];
    if (t.kind != TaskKind::transfer) {
      duration[i] = t.seconds;
      continue;
    }
    bytes[i] = static_cast<double>(std::llround(t.bytes));
    duration[i] = routes.uncontended_time(i, bytes[i]);
    latency[i] = routes.uncontended_time(i, 0.0);  // the flow starts once it has passed
  }
  // A replayed prefix: a task seen to start did so then, one not seen starts no earlier than the
  // prefix's end; a finished task took what it was seen to take, a running one at least until then.
  std::vector<double> release(n, 0.0);
  if (prefix != nullptr) {
    const double clock = prefix->clock_s;
    for (std::size_t i = 0; i < n; ++i) {
      const TaskTiming& seen = prefix->observed->tasks[i];
      if (!(seen.start <= clock)) {
        release[i] = clock;
      } else {
        release[i] = seen.start;
        duration[i] = seen.finish <= clock ? seen.finish - seen.start : std::max(duration[i], clock - seen.start);
      }
    }
  }
  const auto is_flow = [&](std::size_t i) {
    return tasks[i].kind == TaskKind::transfer && bytes[i] > 0 && !routes.route(i).empty();
  };

  ReplayLowerBound bound;
  // 1. The closed form: tasks are in topological order (Program::add), so one forward pass. Not
  // ClosedFormEvaluator's: that one sends a transfer's bytes unrounded, and a bound must not be
  // above the replay by half a byte's time (ReplayLowerBound.LocalAndEmptyTransfersCrossNoLink).
  std::vector<double> earliest = release;
  for (std::size_t i = 0; i < n; ++i) {
    for (const int dep : tasks[i].after)
      earliest[i] = std::max(earliest[i], earliest[static_cast<std::size_t>(dep)] + duration[static_cast<std::size_t>(dep)]);
    bound.closed_form_s = std::max(bound.closed_form_s, earliest[i] + duration[i]);
  }

  // 2. Earliest starts with gathers (forward: a task's predecessors are final before it).
  LinkGroups groups(links);
  for (std::size_t i = 0; i < n; ++i) {
    double e = release[i];
    for (const int dep : tasks[i].after) {
      const auto p = static_cast<std::size_t>(dep);
      e = std::max(e, earliest[p] + duration[p]);
      if (is_flow(p)) groups.add(routes.route(p), bytes[p], earliest[p] + latency[p]);
    }
    groups.drain([&](std::size_t l, double b, double head) { e = std::max(e, head + b / bandwidth[l]); });
    earliest[i] = e;
  }
  // Tails with scatters (backward: a task's successors have larger indices, so their tails are
  // final before its own). The successor lists are freed before the links' crossings are built.
  std::vector<double> tail(n, 0.0);
  {
    const Successors successors(tasks);
    for (std::size_t i = n; i-- > 0;) {
      double q = 0;
      // The smallest latency of all the successor flows: at most that of one link's (weaker, valid).
      double first_latency = std::numeric_limits<double>::infinity();
      for (const int successor : successors.of(i)) {
        const auto s = static_cast<std::size_t>(successor);
        q = std::max(q, duration[s] + tail[s]);
        if (is_flow(s)) {
          groups.add(routes.route(s), bytes[s], tail[s]);
          first_latency = std::min(first_latency, latency[s]);
        }
      }
      groups.drain([&](std::size_t l, double b, double min_tail) {
        q = std::max(q, first_latency + b / bandwidth[l] + min_tail);
      });
      tail[i] = q;
      bound.path_s = std::max(bound.path_s, earliest[i] + duration[i] + tail[i]);
    }
  }
  bound.path_s = std::max(bound.path_s, bound.closed_form_s);

  // 3. Each link's crossings, gathered link by link (CSR: counts, offsets, then the flows).
  std::vector<std::size_t> first(links + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    if (!is_flow(i)) continue;
    ++bound.flows;
    for (const int link : routes.route(i)) ++first[static_cast<std::size_t>(link) + 1];
  }
  for (std::size_t l = 0; l < links; ++l) first[l + 1] += first[l];
  std::vector<int> flow_of(first[links]);
  {
    std::vector<std::size_t> fill(first.begin(), first.end() - 1);
    for (std::size_t i = 0; i < n; ++i) {
      if (!is_flow(i)) continue;
      for (const int link : routes.route(i)) flow_of[fill[static_cast<std::size_t>(link)]++] = static_cast<int>(i);
    }
  }
  std::vector<LinkCrossing> crossings;
  for (std::size_t l = 0; l < links; ++l) {
    if (first[l] == first[l + 1]) continue;
    crossings.clear();
    double busy = 0;
    for (std::size_t k = first[l]; k < first[l + 1]; ++k) {
      const auto i = static_cast<std::size_t>(flow_of[k]);
      crossings.push_back({earliest[i] + latency[i], bytes[i] / bandwidth[l], tail[i]});
      busy += bytes[i] / bandwidth[l];
    }
    if (busy > bound.busiest_link_s) {
      bound.busiest_link_s = busy;
      bound.busiest_link = static_cast<int>(l);
    }
    const double window = preemptive_window(crossings);
    if (window > bound.link_window_s) {
      bound.link_window_s = window;
      bound.link = static_cast<int>(l);
    }
  }
  return bound;
}

}  // namespace partsim::program
