#include "sim/replay/program_replay.hpp"

#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u.hpp>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/common/error.hpp"
#include "sim/program/platform_binding.hpp"
#include "sim/replay/engine_parts.hpp"
#include "sim/replay/simulation_impl.hpp"

namespace partsim::replay {

namespace sg4 = simgrid::s4u;

std::vector<std::pair<int, int>> communicating_pairs(const program::Program& program,
                                                     const topology::TopologyGraph& graph) {
  std::set<std::pair<int, int>> pairs;
  for (const auto& task : program.tasks()) {
    if (task.kind != program::TaskKind::transfer) continue;
    const int src = program::node_of(graph, task.src);
    const int dst = program::node_of(graph, task.dst);
    if (src != dst) pairs.emplace(src, dst);
  }
  return {pairs.begin(), pairs.end()};
}

SimGridEvaluator::SimGridEvaluator(const topology::TopologyGraph& graph, std::vector<std::string> simgrid_config,
                                   std::optional<LoneTransfers> lone)
    : graph_(graph),
      simgrid_config_(std::move(simgrid_config)),
      // The option's rules in one place: the default follows the settings; timed with settings is refused.
      lone_(choose_lone_transfers(!lone ? "" : *lone == LoneTransfers::timed ? "timed" : "simgrid", simgrid_config_)) {}

program::Evaluation SimGridEvaluator::evaluate(const program::Program& program) {
  const auto t0 = std::chrono::steady_clock::now();
  Simulation simulation(graph_, communicating_pairs(program, graph_), simgrid_config_, LinkLatency::by_caller);
  return run(simulation, program, t0);
}

program::Evaluation SimGridEvaluator::evaluate(const program::Program& program, const program::TransferRoutes& routes) {
  if (routes.task_count() != program.size())
    throw Error("replay: the routes were resolved for " + std::to_string(routes.task_count()) +
                " tasks, not this Program's " + std::to_string(program.size()));
  const auto t0 = std::chrono::steady_clock::now();
  Simulation simulation(graph_, routes, simgrid_config_, LinkLatency::by_caller);
  return run(simulation, program, t0);
}

program::Evaluation SimGridEvaluator::run(Simulation& simulation, const program::Program& program,
                                          std::chrono::steady_clock::time_point t0) {
  stats_ = {};
  stats_.setup_wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  program::Evaluation result = simulation.run(program, lone_, &stats_, progress_, prefixes_.at_s.empty() ? nullptr : &prefixes_);
  stats_.simulated_s = result.makespan_s;
  stats_.activities = static_cast<std::size_t>(result.activities);
  stats_.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() - stats_.setup_wall_s;
  return result;
}

namespace {

// What a kernel timer does for its task when it fires: compute, delay and empty-transfer tasks end
// on one, a transfer starts once its route latency has passed, a lone transfer ends.
enum class OnTimer : std::uint8_t { end_task, start_transfer, end_lone };

// The replay of one Program on a built platform (program_replay.hpp describes the execution). A task
// is started when its last predecessor completes, from SimGrid's completion callback
// (on_comm_completed) or a kernel timer (on_timer); both complete their task and then start what
// became ready (start_ready), so only the tasks in flight exist.
class ReplayEngine {
 public:
  ReplayEngine(sg4::Engine& engine, const topology::TopologyGraph& graph, const std::vector<sg4::Host*>& hosts,
               const std::vector<std::pair<int, int>>& pairs, const std::vector<double>& pair_latency,
               const program::Program& program, LoneTransfers lone_mode, const ReplayProgress& progress);
  // To completion, or stopping at each of `prefixes`' times (Simulation::run).
  program::Evaluation run(ReplayStats* counts, const ReplayPrefixes* prefixes);

 private:
  // Per node pair routed (the Simulation's pairs, which hold every pair the Program's transfers
  // use): its hosts; the route latency, paid before the comm starts (LinkLatency::by_caller); the
  // route's links as SimGrid holds them (indices into links_); and what SimGrid's max-min model
  // gives a flow alone on that route, the slowest link's bandwidth (CM02 with crosstraffic and
  // TCP-gamma off, links without latency: no other factor).
  struct PairRoute {
    sg4::Host* src = nullptr;
    sg4::Host* dst = nullptr;
    double latency = 0;    // s
    double lone_rate = 0;  // B/s
    std::vector<int> links;
  };
  // A comm in flight: its task and route, and the comm held until completion (an actor-free comm
  // must be).
  struct Running {
    std::size_t task;
    std::size_t route;
    sg4::CommPtr comm;
  };
  // A lone transfer in flight: the timer that ends it, when, and its route.
  struct Lone {
    simgrid::kernel::timer::Timer* timer;
    double finish;  // s
    std::size_t route;
  };

  static std::uint64_t pair_key(int src, int dst) {
    return static_cast<std::uint64_t>(static_cast<std::uint32_t>(src)) << 32 | static_cast<std::uint32_t>(dst);
  }
  // Binds every routed pair to its hosts and links once, so a transfer's start is a lookup.
  void bind_routes(const std::vector<sg4::Host*>& hosts, const std::vector<std::pair<int, int>>& pairs,
                   const std::vector<double>& pair_latency);
  // Starts every ready task; zero-length ones complete at once and may make more tasks ready.
  void start_ready();
  // Starts one task: a timer for compute, delay and a transfer's route latency; local and empty
  // tasks complete at once.
  void start_task(std::size_t i);
  // A transfer whose latency has passed: timed alone when its links are free (LoneTransfers::timed),
  // else a SimGrid comm, taking into SimGrid the lone transfers it meets.
  void start_transfer(std::size_t i, std::size_t route, std::uint64_t bytes);
  // A SimGrid comm of `bytes` for task i on `route`.
  void start_comm(std::size_t i, std::size_t route, std::uint64_t bytes);
  // A lone transfer that meets another: its timer is dropped and SimGrid sends what is left.
  void join_simgrid(std::size_t j);
  // The bytes a lone transfer has yet to send at the current simulated time.
  double bytes_left(const Lone& t) const;
  // A kernel timer at `date` (a heap entry, not an activity) that calls on_timer. The callback is
  // 24 bytes, which SimGrid stores without allocating (3.1 M timers at 4,096 chips).
  simgrid::kernel::timer::Timer* set_timer(double date, std::size_t task, std::size_t route, OnTimer what);
  // A timer fired: it ends its task or starts its transfer, then starts what became ready.
  void on_timer(std::size_t i, std::size_t route, OnTimer what);
  // SimGrid finished an activity: if it is one of our comms, its task completes.
  void on_comm_completed(const sg4::Activity& activity);
  // Task i finishes now: its time is recorded and its successors may become ready.
  void complete(std::size_t i);
  // simrun's progress line: the wall clock is read every 4,096 completions, the callback called
  // once per kReplayProgressEvery.
  void report_progress(double simulated_s);

  sg4::Engine& engine_;
  const topology::TopologyGraph& graph_;
  const program::TaskList& tasks_;
  const LoneTransfers lone_mode_;
  const ReplayProgress& progress_;

  std::vector<PairRoute> routes_;
  std::unordered_map<std::uint64_t, std::size_t> route_of_;  // pair_key -> index in routes_
  std::unordered_map<const sg4::Link*, int> link_index_;     // SimGrid link -> index in links_
  LinkUse links_{0};

  ReadyTasks ready_;
  program::Evaluation result_;
  // Only the comms in flight, not one slot per task.
  std::unordered_map<const sg4::Activity*, Running> running_;
  std::vector<sg4::CommPtr> finished_;  // released in the next callback, once SimGrid is done with it
  std::unordered_map<std::size_t, Lone> lone_;  // by task
  std::size_t done_ = 0;
  std::size_t simgrid_comms_ = 0;
  std::size_t lone_done_ = 0;
  std::chrono::steady_clock::time_point last_report_ = std::chrono::steady_clock::now();
};

ReplayEngine::ReplayEngine(sg4::Engine& engine, const topology::TopologyGraph& graph,
                           const std::vector<sg4::Host*>& hosts, const std::vector<std::pair<int, int>>& pairs,
                           const std::vector<double>& pair_latency, const program::Program& program,
                           LoneTransfers lone_mode, const ReplayProgress& progress)
    : engine_(engine),
      graph_(graph),
      tasks_(program.tasks()),
      lone_mode_(lone_mode),
      progress_(progress),
      ready_(program.tasks()) {
  bind_routes(hosts, pairs, pair_latency);
  // +infinity until seen: a prefix leaves the tasks it did not reach so.
  constexpr double kNotYet = std::numeric_limits<double>::infinity();
  result_.tasks.assign(tasks_.size(), program::TaskTiming{kNotYet, kNotYet});
}

void ReplayEngine::bind_routes(const std::vector<sg4::Host*>& hosts, const std::vector<std::pair<int, int>>& pairs,
                               const std::vector<double>& pair_latency) {
  std::vector<sg4::Link*> links;
  for (std::size_t p = 0; p < pairs.size(); ++p) {
    const auto [src, dst] = pairs[p];
    PairRoute route;
    route.src = hosts.at(static_cast<std::size_t>(src));
    route.dst = hosts.at(static_cast<std::size_t>(dst));
    route.latency = pair_latency[p];  // the Simulation's, from the route it installed
    links.clear();
    double simgrid_latency = 0;  // 0: the links carry none (by_caller)
    route.src->route_to(route.dst, links, &simgrid_latency);
    route.lone_rate = std::numeric_limits<double>::infinity();
    for (const sg4::Link* link : links) {
      route.links.push_back(link_index_.emplace(link, static_cast<int>(link_index_.size())).first->second);
      route.lone_rate = std::min(route.lone_rate, link->get_bandwidth());
    }
    route_of_.emplace(pair_key(src, dst), routes_.size());
    routes_.push_back(std::move(route));
  }
  links_ = LinkUse(link_index_.size());
}

program::Evaluation ReplayEngine::run(ReplayStats* counts, const ReplayPrefixes* prefixes) {
  // SimGrid keeps callbacks for the life of the process: route them through a handler emptied on return.
  auto handler = std::make_shared<std::function<void(sg4::Activity const&)>>();
  sg4::Activity::on_completion_cb([handler](sg4::Activity const& activity) {
    if (*handler) (*handler)(activity);
  });
  *handler = [this](sg4::Activity const& activity) { on_comm_completed(activity); };
  start_ready();
  if (prefixes != nullptr) {
    for (const double at : prefixes->at_s) {
      engine_.run_until(at);
      result_.makespan_s = 0;
      for (const auto& t : result_.tasks)
        if (t.finish <= at) result_.makespan_s = std::max(result_.makespan_s, t.finish);
      if (prefixes->seen) prefixes->seen(at, result_);
    }
    *handler = nullptr;
    return std::move(result_);
  }
  engine_.run();
  *handler = nullptr;
  const std::size_t n = tasks_.size();
  if (done_ != n)
    throw Error("replay: " + std::to_string(n - done_) + " of " + std::to_string(n) + " tasks never finished");
  for (const auto& t : result_.tasks) result_.makespan_s = std::max(result_.makespan_s, t.finish);
  if (counts != nullptr) {
    counts->simgrid_comms = simgrid_comms_;
    counts->lone_transfers = lone_done_;
  }
  return std::move(result_);
}

void ReplayEngine::start_ready() {
  while (!ready_.empty()) start_task(ready_.pop());
}

void ReplayEngine::start_task(std::size_t i) {
  const program::Task& task = tasks_[i];
  const double now = sg4::Engine::get_clock();
  result_.tasks[i].start = now;
  if (task.kind == program::TaskKind::transfer) {
    const int src = program::node_of(graph_, task.src);
    const int dst = program::node_of(graph_, task.dst);
    const auto bytes = static_cast<std::uint64_t>(std::llround(task.bytes));
    if (src == dst) {
      complete(i);
      return;
    }
    const std::size_t route = route_of_.at(pair_key(src, dst));
    const double wait = routes_[route].latency;
    ++result_.activities;
    if (bytes == 0) {  // nothing to send, but the route's latency still passes (as in the closed form)
      set_timer(now + wait, i, route, OnTimer::end_task);
      return;
    }
    if (wait > 0)
      set_timer(now + wait, i, route, OnTimer::start_transfer);
    else
      start_transfer(i, route, bytes);
  } else if (task.seconds > 0) {
    ++result_.activities;
    set_timer(now + task.seconds, i, 0, OnTimer::end_task);
  } else {
    complete(i);
  }
}

void ReplayEngine::start_transfer(std::size_t i, std::size_t route, std::uint64_t bytes) {
  const PairRoute& r = routes_[route];
  if (lone_mode_ == LoneTransfers::timed && !r.links.empty()) {
    // A lone transfer with under half a byte left ends now (SimGrid sends whole bytes): it lets
    // go of its links, and its timer completes it.
    for (int l : r.links) {
      const int j = links_.owner(l);
      if (j < 0) continue;
      if (const Lone& t = lone_.at(static_cast<std::size_t>(j)); bytes_left(t) < 0.5)
        links_.release(routes_[t.route].links, static_cast<std::size_t>(j));
    }
    if (!links_.busy(r.links)) {
      links_.claim(r.links, i);
      const double finish = sg4::Engine::get_clock() + static_cast<double>(bytes) / r.lone_rate;
      lone_[i] = {set_timer(finish, i, route, OnTimer::end_lone), finish, route};
      return;
    }
    for (int l : r.links)
      if (const int j = links_.owner(l); j >= 0) join_simgrid(static_cast<std::size_t>(j));
  }
  start_comm(i, route, bytes);
}

void ReplayEngine::start_comm(std::size_t i, std::size_t route, std::uint64_t bytes) {
  auto comm = sg4::Comm::sendto_init(routes_[route].src, routes_[route].dst);
  comm->set_payload_size(bytes);
  links_.add_comm(routes_[route].links);
  running_[comm.get()] = {i, route, comm};  // registered before start()
  ++simgrid_comms_;
  comm->start();
}

void ReplayEngine::join_simgrid(std::size_t j) {
  const auto it = lone_.find(j);
  const Lone t = it->second;
  lone_.erase(it);
  t.timer->remove();
  links_.release(routes_[t.route].links, j);
  start_comm(j, t.route, static_cast<std::uint64_t>(std::llround(bytes_left(t))));
}

double ReplayEngine::bytes_left(const Lone& t) const {
  return (t.finish - sg4::Engine::get_clock()) * routes_[t.route].lone_rate;
}

simgrid::kernel::timer::Timer* ReplayEngine::set_timer(double date, std::size_t task, std::size_t route,
                                                       OnTimer what) {
  return simgrid::kernel::timer::Timer::set(
      date, [engine = this, task = static_cast<std::uint32_t>(task), route = static_cast<std::uint32_t>(route), what]() {
        engine->on_timer(task, route, what);
      });
}

void ReplayEngine::on_timer(std::size_t i, std::size_t route, OnTimer what) {
  switch (what) {
    case OnTimer::end_task: complete(i); break;
    case OnTimer::start_transfer: start_transfer(i, route, static_cast<std::uint64_t>(std::llround(tasks_[i].bytes))); break;
    case OnTimer::end_lone:
      lone_.erase(i);
      links_.release(routes_[route].links, i);
      ++lone_done_;
      complete(i);
      break;
  }
  start_ready();
}

void ReplayEngine::on_comm_completed(const sg4::Activity& activity) {
  finished_.clear();
  auto it = running_.find(&activity);
  if (it == running_.end()) return;
  const std::size_t i = it->second.task;
  links_.remove_comm(routes_[it->second.route].links);
  finished_.push_back(std::move(it->second.comm));
  running_.erase(it);
  complete(i);
  start_ready();
}

void ReplayEngine::complete(std::size_t i) {
  result_.tasks[i].finish = sg4::Engine::get_clock();
  ++done_;
  report_progress(result_.tasks[i].finish);
  ready_.finished(i);
}

void ReplayEngine::report_progress(double simulated_s) {
  if (!progress_ || (done_ & 4095) != 0) return;
  const auto now = std::chrono::steady_clock::now();
  if (std::chrono::duration<double>(now - last_report_).count() < kReplayProgressEvery) return;
  last_report_ = now;
  progress_(simulated_s, done_, tasks_.size());
}

}  // namespace

program::Evaluation Simulation::run(const program::Program& program, LoneTransfers lone_mode, ReplayStats* counts,
                                    const ReplayProgress& progress, const ReplayPrefixes* prefixes) {
  if (impl_->ran) throw Error("replay: a Simulation runs once");
  impl_->ran = true;
  return ReplayEngine(*impl_->engine, impl_->graph, impl_->hosts, impl_->pairs, impl_->pair_latency, program,
                      lone_mode, progress)
      .run(counts, prefixes);
}

}  // namespace partsim::replay
