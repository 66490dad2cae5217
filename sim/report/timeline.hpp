#pragma once
// The timeline of an evaluated Program as Chrome-trace JSON (the {"traceEvents": [...]} object
// format that opens in Perfetto, ui.perfetto.dev, and chrome://tracing). Format and example in
// docs/results-format.md.
//
// Contract:
// - One process per device (named after the platform's device, e.g. "d3", or "dev3"): a thread
//   per core ("core 2", or "compute" at chip granularity) for compute, one per core for what it
//   sends ("core 2 send" / "send"), "memory" for transfers out of the external memory, "delays"
//   for delay tasks (a delay names no endpoint: it is drawn on the device of the first predecessor
//   that has one, else in a process "program"). One process "links" with a thread per directed link
//   that carried traffic. Every task is one complete ("ph":"X") event named "<layer>/<pass> <label>";
//   a transfer is one event on its sender's thread and one on every link of its route, args
//   {bytes, src, dst, task}. Zero-length delays (joins) are left out.
// - Threads never hold overlapping events (the format needs strictly nested slices per thread):
//   events that overlap on one track (concurrent transfers sharing a link, compute the Program lets
//   overlap) go to extra lanes, threads named "<track> #2", "#3", ... next to the first.
// - Times in microseconds (ts, dur) from the start of the iteration.
// - Streamed to the ostream event by event; memory is O(tasks + kept link events), not O(file).
// - At most `max_events` complete events: link events are dropped first (whole transfers, the
//   latest in task order first), then the remaining events beyond the cap in task order; the counts
//   are in the trace's "otherData" and in the returned TimelineStats. Deterministic output.

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
  size_t link_events = 0;           // of which on the "links" process
  size_t link_events_dropped = 0;   // link events left out by the cap
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
