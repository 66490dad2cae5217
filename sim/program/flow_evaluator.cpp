#include "sim/program/flow_evaluator.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <queue>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/common/error.hpp"
#include "sim/program/successors.hpp"

namespace partsim::program {

namespace {

// A flow with less than this fraction of its bytes left when the rates are re-solved is done: the
// rounding of remaining -= rate x elapsed would otherwise leave it a few ulps to send in an event of
// its own, or, worse, a negative rest.
constexpr double kDoneFraction = 1e-9;

// A transfer in flight past its latency. `remaining` is what it had left at `updated`; it then
// sends at `rate` until the next re-solve of its component.
struct Flow {
  std::size_t task = 0;
  double total = 0;      // bytes (whole, as SimGrid sends them)
  double remaining = 0;  // bytes at `updated`
  double updated = 0;    // s
  double rate = 0;       // B/s
  double scheduled_rate = 0;  // the rate its completion entry was computed at (0: none yet)
  std::uint32_t version = 0;  // bumped at each re-solve: older completion entries are stale
  bool fixed = false;         // progressive filling: its rate is set this round
  const topology::Route* links = nullptr;
};

// What a timer does when it fires: a compute, delay or empty transfer ends, or a transfer's route
// latency has passed and its flow starts.
enum class OnTimer : std::uint8_t { end_task, start_flow };

struct Timer {
  double time = 0;  // s
  std::size_t task = 0;
  OnTimer what = OnTimer::end_task;
  // Min-heap on (time, task): a deterministic order for events at the same time.
  bool operator>(const Timer& o) const { return std::tie(time, task) > std::tie(o.time, o.task); }
};

struct Completion {
  double time = 0;  // s
  std::size_t task = 0;
  int slot = 0;  // index into the flows
  std::uint32_t version = 0;
  bool operator>(const Completion& o) const { return std::tie(time, task) > std::tie(o.time, o.task); }
};

// One link's fair share in progressive filling when pushed: remaining capacity / unfixed flows.
struct Share {
  double share = 0;  // B/s
  int link = 0;
  bool operator>(const Share& o) const { return std::tie(share, link) > std::tie(o.share, o.link); }
};

template <class T>
using MinHeap = std::priority_queue<T, std::vector<T>, std::greater<T>>;

// One evaluation of a Program: the event loop and its state.
class FlowRun {
 public:
  FlowRun(const Program& program, const TransferRoutes& routes, const std::vector<double>& link_bandwidth,
          const std::vector<double>& pair_latency, double coalesce, double exact_work, const Jitter& jitter,
          double max_work)
      : coalesce_(coalesce),
        exact_work_(exact_work),
        max_work_(max_work),
        jitter_(jitter),
        tasks_(program.tasks()),
        routes_(routes),
        bandwidth_(link_bandwidth),
        pair_latency_(pair_latency),
        successors_(program.tasks()),
        pending_(program.size()),
        link_flows_(link_bandwidth.size()),
        link_epoch_(link_bandwidth.size(), 0),
        capacity_(link_bandwidth.size(), 0),
        unfixed_(link_bandwidth.size(), 0) {
    result_.tasks.resize(program.size());
    // Each task's unfinished predecessors.
    for (std::size_t i = 0; i < program.size(); ++i) pending_[i] = static_cast<int>(tasks_[i].after.size());
  }

  Evaluation run() {
    const std::size_t n = tasks_.size();
    for (std::size_t i = 0; i < n; ++i)
      if (pending_[i] == 0) ready_.push_back(i);
    start_ready();
    resolve();
    for (;;) {
      const double t = next_event_time();
      if (!std::isfinite(t)) break;
      // Every event up to the horizon, each at its own time, then one re-solve for all the flows
      // they started or ended. Without coalescing the horizon is the first event's time: the
      // events at that time. With it (once the exact re-solves have cost exact_work_), the flows in
      // flight keep their rates until the horizon.
      const double horizon = work_ > exact_work_ ? t * (1 + coalesce_) : t;
      for (double next = t; next <= horizon; next = next_event_time()) {
        now_ = next;
        if (!timers_.empty() && timers_.top().time <= now_) {  // timers first at equal times
          const Timer timer = timers_.top();
          timers_.pop();
          if (timer.what == OnTimer::end_task)
            complete(timer.task);
          else
            start_flow(timer.task);
        } else {
          const Completion c = completions_.front();
          pop_completion();
          finish_flow(c.slot);
        }
        start_ready();
      }
      resolve();
    }
    if (done_ != n)
      throw Error("flow evaluator: " + std::to_string(n - done_) + " of " + std::to_string(n) +
                  " tasks never finished");
    for (const auto& t : result_.tasks) result_.makespan_s = std::max(result_.makespan_s, t.finish);
    return std::move(result_);
  }

 private:
  // The time of the next timer or live completion (stale completion entries are dropped); infinity
  // when there is none.
  double next_event_time() {
    while (!completions_.empty() && stale(completions_.front())) pop_completion();
    double t = std::numeric_limits<double>::infinity();
    if (!timers_.empty()) t = timers_.top().time;
    if (!completions_.empty()) t = std::min(t, completions_.front().time);
    return t;
  }

  bool stale(const Completion& c) const {
    const Flow& f = flows_[static_cast<std::size_t>(c.slot)];
    return f.links == nullptr || f.task != c.task || f.version != c.version;
  }

  void pop_completion() {
    std::pop_heap(completions_.begin(), completions_.end(), std::greater<Completion>());
    completions_.pop_back();
  }

  void push_completion(const Completion& c) {
    completions_.push_back(c);
    std::push_heap(completions_.begin(), completions_.end(), std::greater<Completion>());
  }

  // Drops the stale completion entries once they outnumber the flows in flight (each re-solve that
  // changes a flow's rate leaves its old entry behind), so the heap stays the size of the flows.
  void compact_completions() {
    const std::size_t live = flows_.size() - free_slots_.size();
    if (completions_.size() <= 4 * live + 4096) return;
    std::erase_if(completions_, [this](const Completion& c) { return stale(c); });
    std::make_heap(completions_.begin(), completions_.end(), std::greater<Completion>());
  }

  void start_ready() {
    while (!ready_.empty()) {
      const std::size_t i = ready_.back();
      ready_.pop_back();
      start_task(i);
    }
  }

  // As the replay's start_task: local transfers and zero-length tasks complete at once, an empty
  // transfer after its latency, a transfer's flow starts once its latency has passed.
  void start_task(std::size_t i) {
    const Task& task = tasks_[i];
    result_.tasks[i].start = now_;
    if (task.kind == TaskKind::transfer) {
      const auto pair = static_cast<std::size_t>(routes_.pair_of(i));
      const auto [src, dst] = routes_.pair_nodes(pair);
      if (src == dst) {
        complete(i);
        return;
      }
      ++result_.activities;
      const double wait = pair_latency_[pair];
      if (std::llround(task.bytes) == 0) {
        if (wait > 0)
          timers_.push({now_ + wait, i, OnTimer::end_task});
        else
          complete(i);
      } else if (wait > 0) {
        timers_.push({now_ + wait, i, OnTimer::start_flow});
      } else {
        start_flow(i);
      }
    } else if (task.seconds > 0) {
      ++result_.activities;
      timers_.push({now_ + task.seconds * jitter_factor(jitter_, i), i, OnTimer::end_task});
    } else {
      complete(i);
    }
  }

  void start_flow(std::size_t i) {
    const topology::Route& route = routes_.route(i);
    if (route.empty()) {  // no link to share: nothing limits it
      complete(i);
      return;
    }
    int slot = 0;
    if (!free_slots_.empty()) {
      slot = free_slots_.back();
      free_slots_.pop_back();
    } else {
      slot = static_cast<int>(flows_.size());
      flows_.emplace_back();
    }
    Flow& f = flows_[static_cast<std::size_t>(slot)];
    f.task = i;
    f.total = static_cast<double>(std::llround(tasks_[i].bytes));
    f.remaining = f.total;
    f.updated = now_;
    f.rate = 0;
    f.scheduled_rate = 0;
    ++f.version;
    f.links = &route;
    for (int l : route) {
      link_flows_[static_cast<std::size_t>(l)].push_back(slot);
      touched_.push_back(l);
    }
  }

  void finish_flow(int slot) {
    Flow& f = flows_[static_cast<std::size_t>(slot)];
    for (int l : *f.links) {
      auto& on_link = link_flows_[static_cast<std::size_t>(l)];
      *std::find(on_link.begin(), on_link.end(), slot) = on_link.back();
      on_link.pop_back();
      touched_.push_back(l);
    }
    f.links = nullptr;
    free_slots_.push_back(slot);
    complete(f.task);
  }

  void complete(std::size_t i) {
    result_.tasks[i].finish = now_;
    ++done_;
    for (const int s : successors_.of(i)) {
      const auto succ = static_cast<std::size_t>(s);
      if (--pending_[succ] == 0) ready_.push_back(succ);
    }
  }

  // Re-solves the rates of the flows in the components of the sharing graph (flows and the links
  // they cross) that hold a touched link: max-min fairness by progressive filling.
  void resolve() {
    if (touched_.empty()) return;
    ++epoch_;
    component_links_.clear();
    component_flows_.clear();
    for (int seed : touched_) {
      if (link_epoch_[static_cast<std::size_t>(seed)] == epoch_) continue;
      link_epoch_[static_cast<std::size_t>(seed)] = epoch_;
      const std::size_t first = component_links_.size();
      component_links_.push_back(seed);
      for (std::size_t k = first; k < component_links_.size(); ++k) {
        for (int slot : link_flows_[static_cast<std::size_t>(component_links_[k])]) {
          const Flow& f = flows_[static_cast<std::size_t>(slot)];
          if (flow_seen(slot)) continue;
          component_flows_.push_back(slot);
          for (int m : *f.links) {
            if (link_epoch_[static_cast<std::size_t>(m)] == epoch_) continue;
            link_epoch_[static_cast<std::size_t>(m)] = epoch_;
            component_links_.push_back(m);
          }
        }
      }
    }
    touched_.clear();
    work_ += static_cast<double>(component_flows_.size());
    if (max_work_ > 0 && work_ > max_work_) throw WorkLimitExceeded(max_work_);

    // Bytes sent at the old rates up to now; every flow of the components is unfixed.
    for (int slot : component_flows_) {
      Flow& f = flows_[static_cast<std::size_t>(slot)];
      f.remaining -= f.rate * (now_ - f.updated);
      f.updated = now_;
      f.fixed = false;
    }
    MinHeap<Share> shares;
    for (int l : component_links_) {
      const auto li = static_cast<std::size_t>(l);
      capacity_[li] = bandwidth_[li];
      unfixed_[li] = static_cast<int>(link_flows_[li].size());
      if (unfixed_[li] > 0) shares.push({capacity_[li] / unfixed_[li], l});
    }
    // Progressive filling: the link with the smallest fair share fixes its flows at that share.
    // Shares only grow from round to round (a link loses capacity at most its share per flow
    // fixed), so a share below the last one is rounding: the last one is used instead.
    double last_share = 0;
    while (!shares.empty()) {
      const Share s = shares.top();
      shares.pop();
      const auto li = static_cast<std::size_t>(s.link);
      if (unfixed_[li] == 0) continue;
      // An entry's share is a lower bound of the link's (shares only grow): a grown one goes back
      // in at its current value, so a link is pushed again only when it surfaces stale.
      const double current = std::max(capacity_[li], 0.0) / unfixed_[li];
      if (current > s.share) {
        shares.push({current, s.link});
        continue;
      }
      const double rate = std::max(current, last_share);
      last_share = rate;
      for (int slot : link_flows_[li]) {
        Flow& f = flows_[static_cast<std::size_t>(slot)];
        if (f.fixed) continue;
        f.fixed = true;
        f.rate = rate;
        for (int m : *f.links) {
          const auto mi = static_cast<std::size_t>(m);
          capacity_[mi] -= rate;
          --unfixed_[mi];
        }
      }
    }
    for (int slot : component_flows_) {
      Flow& f = flows_[static_cast<std::size_t>(slot)];
      f.fixed = false;
      if (f.remaining <= kDoneFraction * f.total) {
        f.remaining = 0;
      } else if (f.rate == f.scheduled_rate) {
        continue;  // its rate did not change: its completion entry still holds
      }
      f.scheduled_rate = f.rate;
      ++f.version;
      push_completion({now_ + f.remaining / f.rate, f.task, slot, f.version});
    }
    compact_completions();
  }

  // Whether flow `slot` is already in this re-solve's component (flows are few next to links: a
  // per-flow epoch kept beside the flows).
  bool flow_seen(int slot) {
    const auto s = static_cast<std::size_t>(slot);
    if (flow_epoch_.size() < flows_.size()) flow_epoch_.resize(flows_.size(), 0);
    if (flow_epoch_[s] == epoch_) return true;
    flow_epoch_[s] = epoch_;
    return false;
  }

  const double coalesce_;    // relative (FlowEvaluator's constructor)
  const double exact_work_;  // flow re-solves before coalescing begins
  const double max_work_;    // flow re-solves before the evaluation stops (0: no limit)
  const Jitter jitter_;
  double work_ = 0;          // flow re-solves so far (a flow counted once per re-solve it takes part in)
  const TaskList& tasks_;
  const TransferRoutes& routes_;
  const std::vector<double>& bandwidth_;
  const std::vector<double>& pair_latency_;

  Successors successors_;
  std::vector<int> pending_;  // unfinished predecessors per task
  std::vector<std::size_t> ready_;

  double now_ = 0;  // s
  std::size_t done_ = 0;
  Evaluation result_;
  MinHeap<Timer> timers_;
  std::vector<Completion> completions_;  // a min-heap (std::push_heap with greater), with stale entries

  std::vector<Flow> flows_;  // slots, reused through free_slots_
  std::vector<int> free_slots_;
  std::vector<std::vector<int>> link_flows_;  // per graph link: the flows on it
  std::vector<int> touched_;                  // links whose flows changed since the last re-solve

  // Re-solve scratch, per link and per flow slot.
  std::uint32_t epoch_ = 0;
  std::vector<std::uint32_t> link_epoch_;
  std::vector<std::uint32_t> flow_epoch_;
  std::vector<double> capacity_;  // B/s left
  std::vector<int> unfixed_;
  std::vector<int> component_links_;
  std::vector<int> component_flows_;
};

}  // namespace

FlowEvaluator::FlowEvaluator(const TransferRoutes& routes, const topology::TopologyGraph& graph, double coalesce,
                             double exact_work)
    : routes_(routes), coalesce_(coalesce), exact_work_(exact_work) {
  if (!(coalesce >= 0)) throw Error("flow evaluator: coalesce must be >= 0");
  link_bandwidth_.reserve(static_cast<std::size_t>(graph.link_count()));
  for (const auto& link : graph.links()) link_bandwidth_.push_back(link.bandwidth);
  pair_latency_.reserve(routes.pair_count());
  for (std::size_t p = 0; p < routes.pair_count(); ++p) pair_latency_.push_back(graph.route_latency(routes.pair_route(p)));
}

void FlowEvaluator::set_jitter(const Jitter& jitter) {
  check_jitter(jitter);
  jitter_ = jitter;
}

Evaluation FlowEvaluator::evaluate(const Program& program) {
  if (routes_.task_count() != program.size())
    throw Error("flow evaluator: the routes were resolved for " + std::to_string(routes_.task_count()) +
                " tasks, not this Program's " + std::to_string(program.size()));
  return FlowRun(program, routes_, link_bandwidth_, pair_latency_, coalesce_, exact_work_, jitter_, max_work_).run();
}

}  // namespace partsim::program
