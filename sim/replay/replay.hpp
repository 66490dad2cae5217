#pragma once
// The SimGrid replay: the platform of a TopologyGraph built in SimGrid 3.32, on which a Program
// (program_replay.hpp) is executed. This library is the ONLY place that uses SimGrid (its
// Engine is a process singleton): one Simulation per process.
//
// Platform: one SimGrid host per endpoint node of the graph (device at chip granularity; core and
// external memory at core granularity), a router per bus or switch node, one SimGrid link per
// physical link (split-duplex when it has two directions: UP = the direction with the lower link
// id), and for every pair of nodes that communicates the route of TopologyGraph::route(), link by
// link. Settings (notes/simgrid-3.32.md): network/model CM02, network/crosstraffic 0 and
// network/TCP-gamma 0, set right after the Engine is constructed, so that an uncontended transfer
// takes exactly latency + bytes / bandwidth; network/optim Full at core granularity, Lazy at chip
// granularity (whichever is faster; the rates are the same).
//
// Execution: program_replay.hpp (a collective on its own is the Program of its steps,
// lowering::add_collective, as simrun --collective runs it).

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sim/program/evaluation.hpp"
#include "topology/topology_graph.hpp"

namespace partsim::program {
class TransferRoutes;  // program/platform_binding.hpp
}  // namespace partsim::program

namespace partsim::replay {

/// Called during a long replay, at most once per `ReplayProgressEvery` of wall clock: the simulated
/// time reached (s), the tasks finished and the tasks in all (simrun's progress line).
using ReplayProgress = std::function<void(double simulated_s, std::size_t done, std::size_t total)>;
inline constexpr double kReplayProgressEvery = 1.0;  // s of wall clock

/// Where a replay stops to be looked at (program/replay_lower_bound.hpp ReplayPrefix: the bound
/// after a replayed prefix): at each simulated time of `at_s` (s, increasing) `seen` gets the replay
/// so far, whose tasks not started by then have start +infinity and those not finished finish
/// +infinity (makespan_s: the last finish seen). The replay ends at the last of them.
struct ReplayPrefixes {
  std::vector<double> at_s;
  std::function<void(double clock_s, const program::Evaluation& seen)> seen;
};

struct ReplayStats {
  double simulated_s = 0;      // simulated makespan, s
  std::size_t activities = 0;  // the timed tasks of a Program's replay: SimGrid comms and timers
  // A Program's replay (program_replay.hpp): transfers SimGrid's network model ran (with
  // LoneTransfers::timed, those that met another transfer on a link, from that moment on), and
  // transfers that shared no link from start to end and were timed directly.
  std::size_t simgrid_comms = 0;
  std::size_t lone_transfers = 0;
  double wall_s = 0;           // wall-clock time of Engine::run, s
  double setup_wall_s = 0;     // wall-clock time to build the platform, s
};

/// The SimGrid name of link `link_id` of `graph` as SimGrid reports it on a route
/// (split-duplex halves are called <physical>_UP and <physical>_DOWN).
std::string simgrid_link_name(const topology::TopologyGraph& graph, int link_id);

/// Where a transfer's route latency is paid. in_links: SimGrid's links carry their latency (CM02 then
/// weights a flow's share of a link by its route latency, TCP's RTT unfairness; harmless in the
/// collectives' symmetric steps). by_caller: links have no latency and the caller waits the route
/// latency before starting the comm (program_replay.cpp), so flows share a link equally (max-min
/// fair), as a hardware link does.
enum class LinkLatency { in_links, by_caller };

/// How a Program's replay runs a transfer that shares none of its links with another transfer
/// (program_replay.hpp). timed: a kernel timer of bytes / its route's slowest link, what SimGrid's
/// max-min model gives a lone flow under partsim's settings, until another transfer starts on one of
/// its links: then it becomes a SimGrid comm of the bytes it has left. simgrid: every transfer is a
/// SimGrid comm from its start. A transfer gets the same rate either way, and timed is faster where
/// flows rarely meet (SimGrid 3.32 walks a list of every comm in flight at each completion). Times
/// agree to SimGrid's 1 ns timing precision, except that heavily contended replays, which SimGrid's
/// own rounding already moves by up to a few per cent, move as much (docs/model.md).
enum class LoneTransfers { timed, simgrid };

/// simrun's --lone-transfers: "timed" or "simgrid"; "" chooses timed with partsim's own SimGrid
/// settings or with settings of the solver alone (network/optim, cpu/optim: the same rates), and
/// simgrid when `simgrid_config` has any other (a setting such as LV08's bandwidth factor changes
/// what a lone flow gets). Throws InputError, naming the allowed values, for anything else and for
/// "timed" with such a setting.
LoneTransfers choose_lone_transfers(const std::string& option, const std::vector<std::string>& simgrid_config);

/// Checks extra SimGrid settings ("key:value", --simgrid-cfg) before anything is planned or built:
/// the form, that SimGrid declares the key and that the value parses as the key's type. Throws
/// InputError, one line naming the setting and what is allowed (never SimGrid's list of every key).
void check_simgrid_settings(const std::vector<std::string>& settings);

class Simulation {
 public:
  /// Builds the SimGrid platform of `graph` with routes for `pairs` (node ids). Throws Error if a
  /// Simulation was already created in this process.
  /// `simgrid_config`: extra "key:value" settings for Engine::set_config, applied after partsim's own.
  Simulation(const topology::TopologyGraph& graph, const std::vector<std::pair<int, int>>& pairs,
             const std::vector<std::string>& simgrid_config = {}, LinkLatency latency = LinkLatency::in_links);
  /// The same with the routes of a Program bound to `graph` (program/platform_binding.hpp): it
  /// installs their communicating pairs as resolved there, computing no route again.
  Simulation(const topology::TopologyGraph& graph, const program::TransferRoutes& routes,
             const std::vector<std::string>& simgrid_config = {}, LinkLatency latency = LinkLatency::in_links);
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  /// The route SimGrid holds from node src to node dst: link names in order, and its latency (s).
  std::vector<std::string> route_link_names(int src_node, int dst_node, double* latency = nullptr) const;

  /// Runs a Program to completion (program_replay.hpp describes how); once per Simulation. The
  /// routes for its transfers must be among `pairs`. `counts`, when given, receives simgrid_comms
  /// and lone_transfers. With `prefixes` it stops at each of their times instead and returns what
  /// the last one saw (ReplayPrefixes).
  program::Evaluation run(const program::Program& program, LoneTransfers lone = LoneTransfers::timed,
                          ReplayStats* counts = nullptr, const ReplayProgress& progress = {},
                          const ReplayPrefixes* prefixes = nullptr);

  int host_count() const;

 private:
  struct Impl;
  struct RoutedPair;  // replay.cpp
  void build(const std::vector<RoutedPair>& routed, const std::vector<std::string>& simgrid_config, LinkLatency latency);
  std::unique_ptr<Impl> impl_;
};

}  // namespace partsim::replay
