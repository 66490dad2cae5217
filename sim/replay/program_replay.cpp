#include "sim/replay/program_replay.hpp"

#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u.hpp>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include "sim/common/error.hpp"
#include "sim/program/platform_binding.hpp"
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
  stats_ = {};
  stats_.setup_wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  program::Evaluation result = simulation.run(program, lone_, &stats_, progress_);
  stats_.simulated_s = result.makespan_s;
  stats_.activities = static_cast<std::size_t>(result.activities);
  stats_.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() - stats_.setup_wall_s;
  return result;
}

program::Evaluation Simulation::run(const program::Program& program, LoneTransfers lone_mode, ReplayStats* counts,
                                    const ReplayProgress& progress) {
  if (impl_->ran) throw Error("replay: a Simulation runs once");
  impl_->ran = true;
  const auto& tasks = program.tasks();
  const std::size_t n = tasks.size();

  // Successor lists in one flat array (CSR): the Program only stores predecessors.
  std::vector<int> waiting(n, 0);
  std::vector<std::size_t> first_successor(n + 1, 0);
  for (const auto& task : tasks)
    for (int dep : task.after) ++first_successor[static_cast<std::size_t>(dep) + 1];
  for (std::size_t i = 0; i < n; ++i) first_successor[i + 1] += first_successor[i];
  std::vector<int> successors(first_successor[n]);  // task indices are ints (Task::after)
  {
    std::vector<std::size_t> fill(first_successor.begin(), first_successor.end() - 1);
    for (std::size_t i = 0; i < n; ++i) {
      waiting[i] = static_cast<int>(tasks[i].after.size());
      for (int dep : tasks[i].after) successors[fill[static_cast<std::size_t>(dep)]++] = static_cast<int>(i);
    }
  }
  // Per node pair routed (the Simulation's pairs, which hold every pair the Program's transfers
  // use): its hosts; the route latency, paid before the comm starts (LinkLatency::by_caller); the
  // route's links as SimGrid holds them (indices into the link state below); and what SimGrid's
  // max-min model gives a flow alone on that route, the slowest link's bandwidth (CM02 with
  // crosstraffic and TCP-gamma off, links without latency: no other factor).
  struct PairRoute {
    sg4::Host* src = nullptr;
    sg4::Host* dst = nullptr;
    double latency = 0;    // s
    double lone_rate = 0;  // B/s
    std::vector<int> links;
  };
  std::vector<PairRoute> routes;
  std::unordered_map<std::uint64_t, std::size_t> route_of;  // (src << 32 | dst) -> index in routes
  std::unordered_map<const sg4::Link*, int> link_index;
  auto pair_key = [](int src, int dst) {
    return static_cast<std::uint64_t>(static_cast<std::uint32_t>(src)) << 32 | static_cast<std::uint32_t>(dst);
  };
  {
    std::vector<sg4::Link*> links;
    for (const auto& [src, dst] : impl_->pairs) {
      PairRoute route;
      route.src = impl_->hosts.at(static_cast<std::size_t>(src));
      route.dst = impl_->hosts.at(static_cast<std::size_t>(dst));
      route.latency = impl_->graph.route_latency(impl_->graph.route(src, dst));
      links.clear();
      double simgrid_latency = 0;  // 0: the links carry none (by_caller)
      route.src->route_to(route.dst, links, &simgrid_latency);
      route.lone_rate = std::numeric_limits<double>::infinity();
      for (const sg4::Link* link : links) {
        route.links.push_back(link_index.emplace(link, static_cast<int>(link_index.size())).first->second);
        route.lone_rate = std::min(route.lone_rate, link->get_bandwidth());
      }
      route_of.emplace(pair_key(src, dst), routes.size());
      routes.push_back(std::move(route));
    }
  }
  // Per link: the lone transfer holding it (task index, -1 when none) and the SimGrid comms on it.
  // A lone transfer never shares a link: one that meets another transfer joins SimGrid.
  std::vector<int> link_owner(link_index.size(), -1);
  std::vector<int> link_comms(link_index.size(), 0);

  program::Evaluation result;
  result.tasks.resize(n);
  // comm -> its task and route, and the comm held until completion (an actor-free comm must be);
  // only the comms in flight, not one slot per task.
  struct Running {
    std::size_t task;
    std::size_t route;
    sg4::CommPtr comm;
  };
  std::unordered_map<const sg4::Activity*, Running> running;
  std::vector<sg4::CommPtr> finished;     // released in the next callback, once SimGrid is done with it
  // Lone transfers in flight, by task: the timer that ends them, when, and their route.
  struct Lone {
    simgrid::kernel::timer::Timer* timer;
    double finish;  // s
    std::size_t route;
  };
  std::unordered_map<std::size_t, Lone> lone;
  std::vector<std::size_t> ready;
  std::size_t done = 0;
  std::size_t simgrid_comms = 0;
  std::size_t lone_done = 0;
  std::function<void()> drain;

  // Progress: the wall clock is read every 4,096 completions, the callback called once a second.
  auto last_report = std::chrono::steady_clock::now();
  auto complete = [&](std::size_t i) {
    result.tasks[i].finish = sg4::Engine::get_clock();
    ++done;
    if (progress && (done & 4095) == 0) {
      const auto now = std::chrono::steady_clock::now();
      if (std::chrono::duration<double>(now - last_report).count() >= kReplayProgressEvery) {
        last_report = now;
        progress(result.tasks[i].finish, done, n);
      }
    }
    for (std::size_t s = first_successor[i]; s < first_successor[i + 1]; ++s)
      if (--waiting[static_cast<std::size_t>(successors[s])] == 0) ready.push_back(static_cast<std::size_t>(successors[s]));
  };
  // A kernel timer fires at `date` (a heap entry, not an activity) and does `what` for task `task`:
  // compute, delay and empty-transfer tasks end on one, a transfer starts once its route latency has
  // passed, a lone transfer ends. The callback is 24 bytes, which SimGrid stores without allocating
  // (3.1 M timers at 4,096 chips).
  enum class OnTimer : std::uint8_t { end_task, start_transfer, end_lone };
  std::function<void(std::uint32_t, std::uint32_t, OnTimer)> fire;
  auto at = [&fire](double date, std::size_t task, std::size_t route, OnTimer what) {
    return simgrid::kernel::timer::Timer::set(
        date, [f = &fire, task = static_cast<std::uint32_t>(task), route = static_cast<std::uint32_t>(route), what]() {
          (*f)(task, route, what);
        });
  };
  auto start_comm = [&](std::size_t i, std::size_t route, std::uint64_t bytes) {
    auto comm = sg4::Comm::sendto_init(routes[route].src, routes[route].dst);
    comm->set_payload_size(bytes);
    for (int l : routes[route].links) ++link_comms[static_cast<std::size_t>(l)];
    running[comm.get()] = {i, route, comm};  // registered before start()
    ++simgrid_comms;
    comm->start();
  };
  auto release = [&](std::size_t i, std::size_t route) {
    for (int l : routes[route].links)
      if (int& owner = link_owner[static_cast<std::size_t>(l)]; owner == static_cast<int>(i)) owner = -1;
  };
  auto bytes_left = [&](const Lone& t) { return (t.finish - sg4::Engine::get_clock()) * routes[t.route].lone_rate; };
  // A lone transfer that meets another: its timer is dropped and SimGrid sends what is left.
  auto join_simgrid = [&](std::size_t j) {
    const auto it = lone.find(j);
    const Lone t = it->second;
    lone.erase(it);
    t.timer->remove();
    release(j, t.route);
    start_comm(j, t.route, static_cast<std::uint64_t>(std::llround(bytes_left(t))));
  };
  auto start_transfer = [&](std::size_t i, std::size_t route, std::uint64_t bytes) {
    const PairRoute& r = routes[route];
    if (lone_mode == LoneTransfers::timed && !r.links.empty()) {
      // A lone transfer with under half a byte left ends now (SimGrid sends whole bytes): it lets
      // go of its links, and its timer completes it.
      for (int l : r.links) {
        const int j = link_owner[static_cast<std::size_t>(l)];
        if (j < 0) continue;
        if (const Lone& t = lone.at(static_cast<std::size_t>(j)); bytes_left(t) < 0.5) release(static_cast<std::size_t>(j), t.route);
      }
      bool shared = false;
      for (int l : r.links)
        shared = shared || link_comms[static_cast<std::size_t>(l)] > 0 || link_owner[static_cast<std::size_t>(l)] >= 0;
      if (!shared) {
        for (int l : r.links) link_owner[static_cast<std::size_t>(l)] = static_cast<int>(i);
        const double finish = sg4::Engine::get_clock() + static_cast<double>(bytes) / r.lone_rate;
        lone[i] = {at(finish, i, route, OnTimer::end_lone), finish, route};
        return;
      }
      for (int l : r.links)
        if (const int j = link_owner[static_cast<std::size_t>(l)]; j >= 0) join_simgrid(static_cast<std::size_t>(j));
    }
    start_comm(i, route, bytes);
  };
  // Starts every ready task; zero-length ones complete at once and may make more tasks ready.
  drain = [&]() {
    while (!ready.empty()) {
      const std::size_t i = ready.back();
      ready.pop_back();
      const program::Task& task = tasks[i];
      const double now = sg4::Engine::get_clock();
      result.tasks[i].start = now;
      if (task.kind == program::TaskKind::transfer) {
        const int src = program::node_of(impl_->graph, task.src);
        const int dst = program::node_of(impl_->graph, task.dst);
        const auto bytes = static_cast<std::uint64_t>(std::llround(task.bytes));
        if (src == dst) {
          complete(i);
          continue;
        }
        const std::size_t route = route_of.at(pair_key(src, dst));
        const double wait = routes[route].latency;
        ++result.activities;
        if (bytes == 0) {  // nothing to send, but the route's latency still passes (as in the closed form)
          at(now + wait, i, route, OnTimer::end_task);
          continue;
        }
        if (wait > 0)
          at(now + wait, i, route, OnTimer::start_transfer);
        else
          start_transfer(i, route, bytes);
      } else if (task.seconds > 0) {
        ++result.activities;
        at(now + task.seconds, i, 0, OnTimer::end_task);
      } else {
        complete(i);
      }
    }
  };
  fire = [&](std::uint32_t task, std::uint32_t route, OnTimer what) {
    const std::size_t i = task;
    switch (what) {
      case OnTimer::end_task: complete(i); break;
      case OnTimer::start_transfer:
        start_transfer(i, route, static_cast<std::uint64_t>(std::llround(tasks[i].bytes)));
        break;
      case OnTimer::end_lone:
        lone.erase(i);
        release(i, route);
        ++lone_done;
        complete(i);
        break;
    }
    drain();
  };
  // SimGrid keeps callbacks for the life of the process: route them through a handler emptied on return.
  auto handler = std::make_shared<std::function<void(sg4::Activity const&)>>();
  sg4::Activity::on_completion_cb([handler](sg4::Activity const& activity) {
    if (*handler) (*handler)(activity);
  });
  *handler = [&](sg4::Activity const& activity) {
    finished.clear();
    auto it = running.find(&activity);
    if (it == running.end()) return;
    const std::size_t i = it->second.task;
    for (int l : routes[it->second.route].links) --link_comms[static_cast<std::size_t>(l)];
    finished.push_back(std::move(it->second.comm));
    running.erase(it);
    complete(i);
    drain();
  };

  for (std::size_t i = n; i-- > 0;)
    if (waiting[i] == 0) ready.push_back(i);  // reversed, so tasks start in index order
  drain();
  impl_->engine->run();
  *handler = nullptr;
  if (done != n)
    throw Error("replay: " + std::to_string(n - done) + " of " + std::to_string(n) + " tasks never finished");
  for (const auto& t : result.tasks) result.makespan_s = std::max(result.makespan_s, t.finish);
  if (counts != nullptr) {
    counts->simgrid_comms = simgrid_comms;
    counts->lone_transfers = lone_done;
  }
  return result;
}

}  // namespace partsim::replay
