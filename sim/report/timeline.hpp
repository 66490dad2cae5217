#pragma once
// The timeline of an evaluated Program as Chrome-trace JSON (the {"traceEvents": [...]} object
// format that opens in Perfetto, ui.perfetto.dev, and chrome://tracing). Format and example in
// docs/results-format.md.
//
// Contract:
// - One process per device (named after the platform's device, e.g. "d3", or "dev3"): a thread
//   per core ("core 2", or "compute" at chip granularity) for compute, one per core for what it
//   sends ("core 2 send" / "send"), "memory" for transfers out of the external memory (and delays
//   whose Task::at is a memory), "delays" for delay tasks: on Task::at's device when the lowering
//   set it, else on the one device all its predecessors belong to, else in a process "program"
//   (e.g. a delay after a join of every device). Every task is one complete ("ph":"X") event named
//   "<layer>/<pass> <label>" (args: transfers bytes, src, dst; compute at; all task = its index).
//   Zero-length delays (joins) are left out.
// - One process "links" with exactly one thread per directed link that carried traffic. A link's
//   busy time is cut at every start and finish of the transfers crossing it into segments during
//   which the same transfers are in flight; each segment is one event named after the transfer in
//   flight that started first, args {flows (in flight), bytes (theirs), src, dst, task (of the
//   first)}. So concurrent transfers sharing a link (hundreds at core granularity) stay one track,
//   and the "flows" arg shows the sharing.
// - Device threads never hold overlapping events (the format needs strictly nested slices per
//   thread): events that overlap on one device track (concurrent sends, compute the Program lets
//   overlap) go to extra lanes, threads named "<track> #2", "#3", ... next to the first.
// - Times in microseconds (ts, dur; 0.1 ns resolution) from the start of the iteration.
// - Streamed to the ostream event by event; memory is O(tasks + sum of route lengths), not O(file).
// - At most `max_events` complete events: device events are kept first (in task order when even
//   they exceed the cap), then the link segments that start before a time chosen so they fit (a
//   bin of 1/65536 of the iteration; otherData.links_shown_until_us, null when nothing was cut);
//   the dropped counts are in "otherData" and in TimelineStats.
//   Deterministic output.

#include <cstddef>
#include <ostream>

#include "sim/program/evaluation.hpp"
#include "sim/report/link_usage.hpp"
#include "topology/topology_graph.hpp"

namespace partsim::report {

struct TimelineOptions {
  size_t max_events = 2'000'000;  // complete events in the trace (metadata events not counted)
};

struct TimelineStats {
  size_t events = 0;                // complete events written
  size_t link_events = 0;           // of which link segments on the "links" process
  size_t link_events_dropped = 0;   // link segments left out by the cap
  size_t other_events_dropped = 0;  // device events left out by the cap (only once no link events are left)
  size_t threads = 0;               // threads (tracks and their lanes) named in the trace
};

TimelineStats write_timeline(std::ostream& out, const program::Program& program,
                             const program::Evaluation& evaluation, const topology::TopologyGraph& graph,
                             const TimelineOptions& options = {});
/// Same, with routes already computed.
TimelineStats write_timeline(std::ostream& out, const program::Program& program,
                             const program::Evaluation& evaluation, const topology::TopologyGraph& graph,
                             const TransferRoutes& routes, const TimelineOptions& options = {});

}  // namespace partsim::report
