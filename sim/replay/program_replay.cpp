#include "sim/replay/program_replay.hpp"

#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u.hpp>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <map>
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

SimGridEvaluator::SimGridEvaluator(const topology::TopologyGraph& graph, std::vector<std::string> simgrid_config)
    : graph_(graph), simgrid_config_(std::move(simgrid_config)) {}

program::Evaluation SimGridEvaluator::evaluate(const program::Program& program) {
  const auto t0 = std::chrono::steady_clock::now();
  Simulation simulation(graph_, communicating_pairs(program, graph_), simgrid_config_, LinkLatency::by_caller);
  stats_ = {};
  stats_.setup_wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  program::Evaluation result = simulation.run(program);
  stats_.simulated_s = result.makespan_s;
  stats_.activities = static_cast<std::size_t>(result.activities);
  stats_.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() - stats_.setup_wall_s;
  return result;
}

program::Evaluation Simulation::run(const program::Program& program) {
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
  // Route latency per node pair, paid before the comm starts (LinkLatency::by_caller).
  std::map<std::pair<int, int>, double> latency;
  for (const auto& [src, dst] : communicating_pairs(program, impl_->graph))
    latency[{src, dst}] = impl_->graph.route_latency(impl_->graph.route(src, dst));

  program::Evaluation result;
  result.tasks.resize(n);
  // comm -> its task, and the comm held until completion (an actor-free comm must be); only the
  // comms in flight, not one slot per task.
  std::unordered_map<const sg4::Activity*, std::pair<std::size_t, sg4::CommPtr>> running;
  std::vector<sg4::CommPtr> finished;     // released in the next callback, once SimGrid is done with it
  std::vector<std::size_t> ready;
  std::size_t done = 0;
  std::function<void()> drain;

  auto complete = [&](std::size_t i) {
    result.tasks[i].finish = sg4::Engine::get_clock();
    ++done;
    for (std::size_t s = first_successor[i]; s < first_successor[i + 1]; ++s)
      if (--waiting[static_cast<std::size_t>(successors[s])] == 0) ready.push_back(static_cast<std::size_t>(successors[s]));
  };
  auto start_comm = [&](std::size_t i, int src, int dst, std::uint64_t bytes) {
    auto comm = sg4::Comm::sendto_init(impl_->hosts.at(static_cast<std::size_t>(src)),
                                       impl_->hosts.at(static_cast<std::size_t>(dst)));
    comm->set_payload_size(bytes);
    running[comm.get()] = {i, comm};  // registered before start()
    comm->start();
  };
  // A timer fires at `date` (kernel timers cost a heap entry, not an activity): compute and delay
  // tasks end on one, transfers start their comm on one once the route latency has passed.
  auto at = [&](double date, std::function<void()> action) {
    simgrid::kernel::timer::Timer::set(date, [action = std::move(action), &drain]() {
      action();
      drain();
    });
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
        const double wait = latency.at({src, dst});
        ++result.activities;
        if (bytes == 0) {  // nothing to send, but the route's latency still passes (as in the closed form)
          at(now + wait, [&, i]() { complete(i); });
          continue;
        }
        if (wait > 0)
          at(now + wait, [&, i, src, dst, bytes]() { start_comm(i, src, dst, bytes); });
        else
          start_comm(i, src, dst, bytes);
      } else if (task.seconds > 0) {
        ++result.activities;
        at(now + task.seconds, [&, i]() { complete(i); });
      } else {
        complete(i);
      }
    }
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
    const std::size_t i = it->second.first;
    finished.push_back(std::move(it->second.second));
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
  return result;
}

}  // namespace partsim::replay
