#pragma once
// Saying when a prediction cannot hold (DESIGN.md principle 2): the terms a strategy's cost model
// may leave out, each sized on the plan itself and set against the plan's own prediction.
// - Compute: AccPar (seed 000 eq. 8) charges FLOPs at peak, while a template chip maps each shard
//   onto its PE arrays (padding, start-up), runs auxiliary work on its special-function units and
//   streams operands through its memory, and a roofline device can be memory-bound on element-wise
//   layers.
// - Link latency: AccPar's eq. 7 is bandwidth-only (A(T) / b_i); every transfer of the lowered
//   program also pays its route's latency, which dominates tiny tensors.
// - Contention: a model that gives every device its b_i to itself (a star without sharing) misses
//   the bytes several transfers push through one link of a torus; the busiest link's bytes over its
//   bandwidth is a lower bound on the iteration whatever the schedule.
// The latency and contention terms come from the plan's lowered program (the shared sharding
// lowering at chip granularity), timed by the closed form: no SimGrid, cheap.
//
// Contract: pure; only for strategies lowered by the shared sharding lowering (a strategy with a
// lowering of its own, dsm, costs the device itself). Seconds.

#include <cstddef>
#include <string>
#include <vector>

#include "sim/plan/plan.hpp"
#include "sim/planners/compute_check.hpp"
#include "topology/system_spec.hpp"
#include "workloads/graph.hpp"

namespace partsim::planner {

struct CommunicationCheck {
  double predicted_comm_s = 0;     // the plan's communication, summed over its layers
  double predicted_latency_s = 0;  // the part of it the strategy says is latency (breakdown "latency_s")
  long long transfers = 0;         // transfers of the lowered program that cross at least one link
  double closed_form_s = 0;        // the lowered program, each transfer latency + bytes / bandwidth
  double closed_form_bandwidth_only_s = 0;  // the same with every route's latency taken out
  double busiest_link_s = 0;       // max over links of bytes carried / bandwidth
  double busiest_link_bytes = 0;
  std::string busiest_link;        // its label (report::link_label), empty when nothing crosses a link
  /// Of the transfers, those of point-to-point redistributions (lowering/redistribution_check.hpp):
  /// over kRedistributionWarningTransfers, prediction_warnings() says the replay may take minutes.
  std::size_t redistribution_transfers = 0;
  /// Not 0: the lowered program has more tasks than this (kCommunicationCheckTasks) and was not
  /// looked at; every other field but the predicted ones is then 0.
  std::size_t too_many_tasks = 0;
  /// What the routes' latency adds to the program's critical path.
  double latency_s() const { return closed_form_s - closed_form_bandwidth_only_s; }
};

/// The most tasks check_communication() lowers a plan to (about 1.6 GB of memory at 4 M: the
/// program and its bandwidth-only copy). The 4,096-chip data-parallel bert_large iteration has 3.1 M;
/// owt's bert_large on 1,024 chips, whose fully-connected layers every chip sends to every chip,
/// needed 18 GB before the limit.
inline constexpr std::size_t kCommunicationCheckTasks = 4'000'000;

/// The plan's lowered program (shared sharding lowering, chip granularity): what link latency adds
/// to it and how long its busiest link must carry bytes. A program over `max_tasks` tasks is not
/// lowered to the end (CommunicationCheck::too_many_tasks).
CommunicationCheck check_communication(const plan::Plan& plan, const topology::SystemSpec& spec,
                                       const workloads::Graph& graph, std::size_t max_tasks = kCommunicationCheckTasks);

/// "N of M devices get no layer of this plan and stay idle (first, .., last)", with "the batch (B)
/// is smaller than the M devices ..." when it is; empty when every device (or none) has work. A
/// plan is rarely meant to leave chips idle (issue 41: batch 512 data parallel on 1,024 chips).
std::string idle_devices_warning(const plan::Plan& plan, const topology::SystemSpec& spec, const workloads::Graph& graph);

/// The idle-devices line above first, if any; then one line per term that changes the iteration by
/// more than `threshold` of the prediction (empty
/// when the prediction can hold): compute (device model vs the plan's compute), link latency (the
/// lowered program's critical path with and without it vs the plan's "latency_s"), contention (the
/// busiest link's bytes / bandwidth vs the plan's communication). Each names the term, its size and
/// the prediction's, and says when the predicted iteration itself cannot hold.
/// `max_tasks`: check_communication()'s limit; over it, one line says communication was not checked.
std::vector<std::string> prediction_warnings(const plan::Plan& plan, const topology::SystemSpec& spec,
                                             const workloads::Graph& graph, double threshold = 0.10,
                                             std::size_t max_tasks = kCommunicationCheckTasks);

}  // namespace partsim::planner
