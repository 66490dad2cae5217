#pragma once
// Building blocks both lowerings use to put transfers into a Program.
//
// Contract: every function appends tasks to `program` and returns the task indices that finish the
// piece (what a later task must wait for), never an empty list when it added tasks; with nothing to
// add it returns `after` unchanged so callers can chain pieces without special cases.

#include <string>
#include <vector>

#include "sim/collectives/schedule.hpp"
#include "sim/program/program.hpp"
#include "topology/topology_graph.hpp"

namespace partsim::lowering {

/// The Endpoint of a TopologyGraph endpoint node (device, core at core granularity, or memory).
program::Endpoint endpoint_of_node(const topology::TopologyGraph& topology, int node);

/// Appends a collective given as a DEVICE schedule (collectives::build_schedule). It is lowered to
/// the graph's nodes first (collectives::lower_to_nodes: at core granularity each chip-to-chip
/// transfer becomes one transfer per core pair), then every step becomes transfers that start when
/// every transfer of the previous step has finished (a zero-length join task between steps: the
/// schedule's barrier semantics, schedule.hpp), the first step after `after`. Returns the last join.
/// Transfers of 0 bytes are left out of a plan's program (nothing moves); a collective measured on
/// its own (simrun --collective --bytes 0B) keeps them, so each step still takes its route latency.
/// `transfer_steps`, when given, receives (transfer task, schedule step) of every transfer added.
/// Every task added is marked as part of one collective instance (Program::add_collective_instance:
/// the schedule's identity, its devices, `label`) at its schedule step: the start delay at step -1,
/// a step's overhead delay, transfers and join at that step. The overhead delays stand for several
/// devices (Endpoint::several_devices), the joins for nowhere.
enum class EmptyTransfers { skip, keep };
std::vector<int> add_collective(program::Program& program, const collectives::Schedule& device_schedule,
                                const topology::TopologyGraph& topology, int layer, plan::Pass pass,
                                const std::string& label, const std::vector<int>& after,
                                EmptyTransfers empty = EmptyTransfers::skip,
                                std::vector<std::pair<int, int>>* transfer_steps = nullptr);

/// Traffic between device `device`'s external memory and the device. At core granularity (the graph
/// has a memory node) it is `bytes` split evenly into one transfer per core (to_memory: core to
/// memory; else memory to core), all after `after`. At chip granularity there is no memory link in
/// the graph: it is one delay task of memory latency + bytes / effective memory bandwidth (template
/// chips, seed 003 §IV) or bytes / memory bandwidth (roofline devices).
std::vector<int> add_memory_traffic(program::Program& program, const topology::TopologyGraph& topology, int device,
                                    double bytes, bool to_memory, int layer, plan::Pass pass,
                                    const std::string& label, const std::vector<int>& after);

/// Consecutive steps of a device schedule that move data between the same (src, dst) pairs, as one
/// run: a collective whose ring steps repeat the same pairs (every step of a ring) becomes one
/// transfer per pair carrying all its steps' bytes, and the latencies the merge removes are added back
/// as a delay, so an uncontended run takes exactly as long as its steps (steps x latency + bytes /
/// bandwidth). Fewer, longer flows: what makes a 128-device ring replay in reasonable time.
struct StepRun {
  std::vector<std::pair<int, int>> pairs;  // (src, dst) devices, in schedule order
  std::vector<double> bytes;               // per pair, all steps of the run
  double steps = 0;                        // steps merged
  int first_step = 0;                      // the schedule step the run begins with
  double latency = 0;                      // the largest route latency of one step, s
  double removed_latency() const { return (steps - 1) * latency; }
};
/// `topology` is the replay's (chip or core granularity): a device's endpoint is its node or its
/// core 0, and the latency merged away is that of the route the transfers take.
std::vector<StepRun> step_runs(const collectives::Schedule& device_schedule, const topology::TopologyGraph& topology);

/// Declares the collective `device_schedule` is (its identity, its devices in the order its transfers
/// first name them) under `label` in `program`, for a lowering that adds the collective's tasks
/// itself (the shared lowering's merged steps); returns the instance (Program::mark_collective).
int add_collective_instance(program::Program& program, const collectives::Schedule& device_schedule,
                            const std::string& label);
/// The devices `device_schedule` names, in the order its transfers first name them.
std::vector<int> devices_of(const collectives::Schedule& device_schedule);

/// One zero-length delay that waits for all of `after` (a barrier / join), placed nowhere. Returns
/// its index.
int add_join(program::Program& program, int layer, plan::Pass pass, const std::string& label,
             const std::vector<int>& after);

}  // namespace partsim::lowering
