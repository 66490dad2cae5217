#pragma once
// A replay of Chakra traces under ASTRA-sim 2.x's execution rules, without ASTRA-sim: the check
// that an export keeps partsim's timing, runnable in CI (issue 42). It is an event-driven
// simulation of the rules the ASTRA-sim workload layer applies to each rank's trace; the network is
// a caller-supplied message time (ASTRA-sim's analytical, congestion-unaware backend gives a
// message bytes / bandwidth + latency per hop).
//
// Contract (the rules, per rank; times in seconds):
// - A node is ready when every node of its data_deps (ids on the same rank) has completed.
// - COMP_NODE: at most one runs at a time on a rank (ASTRA-sim's HardwareResource lets one GPU
//   compute op be in flight); ready COMP nodes wait in the order they became ready, ties by node
//   id (AstraRulesOptions::order). It takes the exact `duration_s` double attribute when the node
//   has one, else duration_micros (AstraRulesOptions::duration). A COMP of 0 s still waits for
//   its turn, then completes at once.
// - COMM_SEND_NODE: at most one SEND in flight on a rank, queued like COMP. Started at t, its
//   message is delivered at t + message_time(rank, comm_dst, comm_size). The SEND completes
//   (frees its slot, releases its dependants) when the message is delivered, as ASTRA-sim's
//   analytical frontend runs the sender's callback on arrival (read in its sources, /work/astra
//   RULES.md; AstraRulesOptions::send_completes and ::one_send_in_flight relax this).
// - COMM_RECV_NODE: completes when it is ready and its matching message has been delivered: the
//   message from comm_src to this rank with the same comm_tag (as ASTRA-sim matches: the sender
//   is the rank that holds the SEND, the receiver the rank that holds the RECV). A message that
//   arrives before its RECV is ready waits for it. By default a RECV takes no slot
//   (AstraRulesOptions::recv_takes_comm_slot: astra-sim/workload/HardwareResource.cc at commit
//   043f2ec counts SEND, RECV and COLL in one comm slot, so there a posted RECV blocks its rank's
//   SENDs until its message comes, and two ranks can deadlock on each other's RECVs).
// - A message's bytes are comm_size (int64 as the exporter writes it; int32, uint64 and double
//   are read too); comm_src, comm_dst and comm_tag likewise.
// - Traces are read as ASTRA-sim's feeder reads them: a length-delimited protobuf stream, the
//   GlobalMetadata, then the Nodes. A malformed stream, a duplicate node id, a dependency on an
//   id the trace does not have, a node type other than COMP/SEND/RECV, a peer rank outside the
//   traces, or ranks not numbered 0, 1, 2, ... in order -> InputError.
// - A rank with no nodes -> AstraRulesError (ASTRA-sim's feeder fails such a rank with "No
//   dependancy free nodes found"), unless AstraRulesOptions::allow_empty_ranks.
// - Nodes left that can never run (a RECV whose message never comes, a dependency cycle) ->
//   AstraRulesError naming the rank and the node.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sim/common/error.hpp"
#include "sim/export/chakra_trace.hpp"
#include "topology/topology_graph.hpp"

namespace partsim::chakra_export {

/// Seconds a message of `bytes` takes from rank `src` to rank `dst` (its delivery after the SEND starts).
using MessageTime = std::function<double(int src, int dst, double bytes)>;

/// When a SEND completes: when its message is delivered (the default), or when it starts (then
/// SENDs of a rank no longer wait for each other).
enum class SendCompletion : std::uint8_t { at_delivery, at_issue };

/// Which duration a COMP takes: the exact `duration_s` attribute (duration_micros where a node has
/// none), or duration_micros, the whole microseconds ASTRA-sim itself reads.
enum class CompDuration : std::uint8_t { exact_seconds, whole_micros };

/// Which ready node of a queue (COMP, SEND) runs first: the earliest ready (ties by id), or the
/// lowest id (what ASTRA-sim's feeder does if its dependency-free queue is ordered by id: unchecked).
enum class ReadyOrder : std::uint8_t { fifo, lowest_id };

struct AstraRulesOptions {
  SendCompletion send_completes = SendCompletion::at_delivery;
  CompDuration duration = CompDuration::exact_seconds;
  ReadyOrder order = ReadyOrder::lowest_id;  // ASTRA-sim walks its ready nodes by ascending id
  bool recv_takes_comm_slot = false;  // a RECV waits for, and holds, the SEND slot of its rank
  /// false: a rank's SENDs no longer wait for each other (each still completes when its message
  /// is delivered): partsim's own rule, to tell ASTRA-sim's one SEND in flight apart from the rest.
  bool one_send_in_flight = true;
  bool allow_empty_ranks = false;     // a rank without nodes finishes at 0 instead of throwing
};

/// When one node ran (seconds from the start of the replay).
struct ReplayedNode {
  std::uint64_t id = 0;
  std::string name;
  int type = 0;         // ChakraProtoMsg::NodeType
  double start_s = 0;   // COMP/SEND: when it took its slot; RECV: when it was ready
  double finish_s = 0;  // when it completed
};

struct AstraReplay {
  std::vector<double> rank_finish_s;              // per rank: when its last node completed
  double makespan_s = 0;                          // the latest of rank_finish_s
  std::size_t nodes_executed = 0;                 // over all ranks
  std::vector<std::vector<ReplayedNode>> nodes;   // per rank, in trace order
};

/// The traces cannot run to the end under the rules: a rank without nodes, or nodes that never
/// become runnable. rank() and node() say where (node() is -1 for a rank without nodes).
class AstraRulesError : public Error {
 public:
  AstraRulesError(int rank, std::int64_t node, const std::string& what)
      : Error(what), rank_(rank), node_(node) {}
  int rank() const noexcept { return rank_; }
  std::int64_t node() const noexcept { return node_; }

 private:
  int rank_;
  std::int64_t node_;
};

/// Replays `traces` (rank i = traces.ranks[i]) under the rules above.
AstraReplay replay_astra_rules(const ChakraExport& traces, const MessageTime& message_time,
                               const AstraRulesOptions& options = {});

/// partsim's uncontended transfer time between two devices of `graph` (chip granularity: rank =
/// device index): the route's latency + bytes / its slowest link, the number the closed-form
/// evaluator gives the same transfer (program::uncontended_transfer_time). 0 from a rank to itself.
MessageTime platform_message_time(const topology::TopologyGraph& graph);

}  // namespace partsim::chakra_export
