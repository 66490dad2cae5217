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
// - Times in microseconds from the start of the iteration, snapped to whole nanoseconds (ts with
//   three decimals; dur = end - start, both snapped): a viewer that rounds to nanoseconds sees the
//   same numbers, and lanes are assigned on the snapped times, so no two events on one thread
//   overlap by even 1 ns (events that touch share an instant).
// - Filters (TimelineOptions): only the tasks of some layers, of some devices, and the link
//   tracks of some link kinds (or none). A link segment counts the selected layers' transfers
//   only; with a device filter, only links with an end on a selected device are shown.
// - Streamed to the ostream event by event; memory is O(tasks + sum of route lengths), not O(file).
// - At most `max_events` complete events: device events are kept first (in task order when even
//   they exceed the cap), then the link segments that start before a time chosen so they fit (a
//   bin of 1/65536 of the iteration; otherData.links_shown_until_us, null when nothing was cut);
//   the dropped counts are in "otherData" and in TimelineStats. The cap counts events after the
//   filters.
// - With a memory timeline (sim/memory/memory_timeline.hpp), a counter track "memory in use" in
//   each shown device's process: one "C" event at every change of its use (args bytes), which
//   Perfetto draws as a graph. Counter events are not capped (a few per layer and device) and do not
//   count towards max_events; otherData.counter_events gives their number.
//   Deterministic output.

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "sim/memory/memory_timeline.hpp"
#include "sim/program/evaluation.hpp"
#include "sim/report/link_usage.hpp"
#include "topology/topology_graph.hpp"

namespace partsim::report {

struct TimelineOptions {
  size_t max_events = 2'000'000;  // complete events in the trace (metadata events not counted)
  /// Layer names whose tasks are shown; empty: every layer. An unknown name is an InputError
  /// that lists the layers.
  std::vector<std::string> layers;
  /// Devices whose tracks are shown, by platform device name ("d3") or index ("3"); empty: every
  /// device. Delays that belong to no one device (process "program") are shown only without it.
  std::vector<std::string> devices;
  /// Link kinds whose tracks are shown: chip_to_chip, on_chip, memory; {"none"}: no link tracks.
  std::vector<std::string> link_kinds = {"chip_to_chip", "on_chip", "memory"};
};

/// The allowed values of TimelineOptions::link_kinds, for help texts and errors.
inline constexpr const char* kTimelineLinkKinds = "chip_to_chip, on_chip, memory, none";

struct TimelineStats {
  size_t events = 0;                // complete events written
  size_t link_events = 0;           // of which link segments on the "links" process
  size_t link_events_dropped = 0;   // link segments left out by the cap
  size_t other_events_dropped = 0;  // device events left out by the cap (only once no link events are left)
  size_t counter_events = 0;        // memory counter samples (not in `events`, not capped)
  size_t threads = 0;               // threads (tracks and their lanes) named in the trace
  /// Link segments are shown when they start before this time (s); < 0 when the cap cut none.
  double links_shown_until_s = -1;
  bool capped() const { return link_events_dropped + other_events_dropped > 0; }
};

/// Checks the filters of `options` against the Program and the platform, so a typo fails before
/// the replay: InputError naming the option and the allowed values.
void check_timeline_options(const TimelineOptions& options, const program::Program& program,
                            const topology::TopologyGraph& graph);

/// One line saying what the cap left out, e.g. "timeline capped at 1000 events: 52 link segments
/// starting after 12.345 us left out (raise the cap to see them)"; "" when nothing was left out.
std::string cap_note(const TimelineStats& stats, size_t max_events);

TimelineStats write_timeline(std::ostream& out, const program::Program& program,
                             const program::Evaluation& evaluation, const topology::TopologyGraph& graph,
                             const TimelineOptions& options = {});
/// Same, with routes already computed, and a counter track per device from `memory` when given
/// (the memory timeline of the same evaluation).
TimelineStats write_timeline(std::ostream& out, const program::Program& program,
                             const program::Evaluation& evaluation, const topology::TopologyGraph& graph,
                             const TransferRoutes& routes, const TimelineOptions& options = {},
                             const memory::MemoryTimeline* memory = nullptr);

}  // namespace partsim::report
