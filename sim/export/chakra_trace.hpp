#pragma once
// Chakra execution traces of a lowered plan: one trace per device, the input ASTRA-sim 2.x
// replays, so the same plan can be run in both simulators (docs/chakra-export.md).
//
// Contract:
// - export_chakra() turns a chip-granularity Program into one trace per device of the platform; a
//   device without work gets one COMP node of 0 us (ASTRA-sim refuses a trace without nodes).
// - A trace is a length-delimited protobuf stream (a varint length, then the message): first the
//   GlobalMetadata, then the Nodes in the Program's topological order, ids 0, 1, 2, ... per rank.
// - Compute task on device d -> COMP_NODE on rank d (duration_micros from partsim's device model,
//   num_ops the layer's FLOP of that pass shared over its compute tasks by duration). A transfer
//   between two devices -> COMM_SEND_NODE on the source and COMM_RECV_NODE on the destination with
//   the same comm_tag (unique to the message) and comm_size; a transfer carrying k merged steps of
//   a collective (Program::merged_steps) -> k such pairs, step after step. A delay that stands for a
//   device's activity -> COMP_NODE there; a delay adding back merged latencies -> no node (each
//   message pays its latency); another delay of no place -> COMP_NODE on the ranks its predecessors
//   finish on; a zero-time delay (a join) and a transfer inside one device -> no node.
// - COMP nodes of a rank with the same dependencies (work partsim runs concurrently) are one node
//   of the longest duration: ASTRA-sim runs one COMP at a time per NPU.
// - Dependencies are per rank and transitively reduced: a node depends on the nearest nodes of its
//   own rank it waited for through its rank's tasks and placeless ones (joins); waits across ranks
//   are carried by the SEND/RECV pairs.
// - The Program holds collectives as their steps on the topology (lowering::add_collective), so
//   they appear as SEND/RECV pairs, never as COMM_COLL_NODE.
// - Throws InputError for a core-granularity Program (Chakra ranks are devices).
// docs/chakra-export.md gives ASTRA-sim's execution rules behind each choice.

#include <cstddef>
#include <string>
#include <vector>

#include "sim/program/evaluation.hpp"
#include "sim/program/program.hpp"
#include "workloads/graph.hpp"

namespace partsim::chakra_export {

/// What the traces describe, recorded in every trace's GlobalMetadata.
struct TraceContext {
  std::string workload;   // plan's workload name
  std::string strategy;   // plan's strategy
  std::string platform;   // platform name
  std::string mode;       // training | inference
};

/// One rank's trace, serialised, with its node counts (for messages and tests).
struct RankTrace {
  int rank = 0;
  std::string bytes;           // the length-delimited stream
  std::size_t compute_nodes = 0;
  std::size_t send_nodes = 0;
  std::size_t recv_nodes = 0;
};

/// What writing a rank's compute as busy spans (compute_spans.hpp) did.
struct SpanCounts {
  std::size_t spans = 0;          // COMP nodes written for busy intervals
  std::size_t compute_tasks = 0;  // COMP nodes of positive duration they replace
};

struct ChakraExport {
  std::vector<RankTrace> ranks;  // one per device, rank = device index
  std::size_t dropped_delays = 0; // delays with no rank to run on (no predecessor on a device)
  std::size_t split_transfers = 0;    // transfers of merged collective steps written one message per step
  std::size_t carried_latencies = 0;  // merged-latency delays left out (each message pays its latency)
  std::size_t folded_compute = 0;     // COMP nodes folded into a sibling with the same dependencies
  SpanCounts spans;                   // with a schedule: busy intervals written, compute tasks they replace
};

/// The Chakra schema version written in GlobalMetadata.version.
inline constexpr const char* kChakraVersion = "0.0.4";

/// The traces of `program` on a platform of `device_count` devices. `graph` gives each layer's
/// FLOP per pass (num_ops). With `schedule` (the closed form's evaluation of `program`), each
/// rank's compute is written as its busy spans in that schedule (compute_spans.hpp); without, one
/// COMP node per compute task, siblings folded.
ChakraExport export_chakra(const program::Program& program, int device_count, const workloads::Graph& graph,
                           const TraceContext& context, const program::Evaluation* schedule = nullptr);

/// "<prefix>.<rank>.et", the names ASTRA-sim's --workload-configuration=<dir>/<prefix> expects.
std::string trace_file_name(const std::string& prefix, int rank);

}  // namespace partsim::chakra_export
