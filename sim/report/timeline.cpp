#include "sim/report/timeline.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "sim/common/error.hpp"
#include "sim/program/platform_binding.hpp"
#include "sim/report/timeline_selection.hpp"

namespace partsim::report {
namespace {

using detail::device_name;
using detail::Selection;
using program::Task;
using program::TaskKind;

std::string quoted(const std::string& s) { return nlohmann::json(s).dump(); }

// A time in whole nanoseconds: every ts and end is snapped once, so dur = end - start exactly and
// events that do not overlap in seconds do not overlap once written.
long long to_ns(double seconds) { return std::llround(seconds * 1e9); }

// Nanoseconds as microseconds with three decimals, in fixed notation so the output is
// byte-identical across runs and readable by every trace viewer. Integer formatting:
// printf("%.3f") dominated the time.
void append_micros(std::string& out, long long ns) {
  if (ns < 0) {
    out += '-';
    ns = -ns;
  }
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, ns / 1000);
  out.append(buf, r.ptr);
  out += '.';
  const long long frac = ns % 1000;
  char digits[3] = {static_cast<char>('0' + frac / 100), static_cast<char>('0' + frac / 10 % 10),
                    static_cast<char>('0' + frac % 10)};
  out.append(digits, 3);
}

// Shortest representation that reads back exactly.
void append_number(std::string& out, double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

void append_number(std::string& out, long long v) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

std::string number(double v) {
  std::string s;
  append_number(s, v);
  return s;
}

// Track order inside a device process: per core (-1 = the chip), its compute thread then its send
// thread; then memory and delays.
constexpr int kMemoryOrder = std::numeric_limits<int>::max() - 1;
constexpr int kDelaysOrder = std::numeric_limits<int>::max();
int compute_order(int core) { return 2 * (core + 1); }
int send_order(int core) { return 2 * (core + 1) + 1; }

struct TrackKey {
  int pid = 0;
  int order = 0;  // position within the process; the link id on the links process
  bool operator<(const TrackKey& o) const { return pid != o.pid ? pid < o.pid : order < o.order; }
};

class Writer {
 public:
  Writer(std::ostream& out, const program::Program& program, const program::Evaluation& evaluation,
         const topology::TopologyGraph& graph, const TransferRoutes& routes)
      : out_(out), program_(program), evaluation_(evaluation), graph_(graph), routes_(routes) {
    device_count_ = graph.device_count();
    program_pid_ = device_count_;
    links_pid_ = device_count_ + 1;
    for (const auto& node : graph.nodes()) node_names_.push_back(quoted(node.name));
    for (int d = 0; d < device_count_; ++d) memory_names_.push_back(quoted(device_name(graph, d) + ":memory"));
  }

  TimelineStats write(const TimelineOptions& options, const memory::MemoryTimeline* memory) {
    const auto& tasks = program_.tasks();
    const size_t n = tasks.size();
    selection_ = Selection(options, program_, graph_);
    event_names_.assign(n, std::string());

    // Device events: every shown task, the first max_events in task order.
    TimelineStats stats;
    std::map<TrackKey, std::vector<std::uint32_t>> tracks;
    size_t device_events = 0;
    for (size_t i = 0; i < n; ++i) {
      if (!shown(i) || !layer_selected(tasks[i].layer)) continue;
      const TrackKey track = device_track(i);
      if (!device_selected(track.pid)) continue;
      if (++device_events <= options.max_events) tracks[track].push_back(static_cast<std::uint32_t>(i));
    }
    const size_t device_kept = std::min(device_events, options.max_events);
    stats.other_events_dropped = device_events - device_kept;

    // Flows per link in (start, task) order, which link_segments() relies on.
    std::vector<std::uint32_t> order;
    size_t flow_count = 0;
    for (size_t i = 0; i < n; ++i) {
      const auto& tt = evaluation_.tasks[i];
      if (tasks[i].kind != TaskKind::transfer || !(tt.finish > tt.start) || routes_.route(i).empty()) continue;
      if (!layer_selected(tasks[i].layer)) continue;
      order.push_back(static_cast<std::uint32_t>(i));
      flow_count += routes_.route(i).size();
    }
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      const auto& x = evaluation_.tasks[a];
      const auto& y = evaluation_.tasks[b];
      return x.start != y.start ? x.start < y.start : a < b;
    });
    link_flows_.assign(static_cast<size_t>(graph_.link_count()), {});
    for (std::uint32_t i : order)
      for (int l : routes_.route(i))
        if (link_selected(l)) link_flows_[static_cast<size_t>(l)].push_back(i);
    order = {};
    const size_t link_budget = options.max_events - device_kept;
    // The cap on link segments is a time: segments are kept when they start in a time bin (of
    // kTimeBins over the iteration) before the first bin where the count would exceed the budget.
    // A histogram, not a sorted list of starts: O(bins) memory for any number of segments.
    constexpr size_t kTimeBins = 1 << 16;
    const double makespan = evaluation_.makespan_s;
    auto bin_of = [&](double t) {
      if (!(makespan > 0) || !(t > 0)) return size_t{0};
      return std::min(kTimeBins - 1, static_cast<size_t>(t / makespan * static_cast<double>(kTimeBins)));
    };
    size_t cut_bin = kTimeBins;  // keep segments whose bin < cut_bin
    size_t link_segments_total = 0;
    // A link with F flows has at most 2F - 1 segments: count them only when the cap may bind.
    const bool may_bind = 2 * flow_count > link_budget;
    if (may_bind) {
      std::vector<size_t> histogram(kTimeBins, 0);
      for (size_t l = 0; l < link_flows_.size(); ++l)
        link_segments(l, [&](const Segment& seg) {
          ++histogram[bin_of(seg.start)];
          ++link_segments_total;
        });
      size_t kept = 0;
      for (size_t b = 0; b < kTimeBins; ++b) {
        if (kept + histogram[b] > link_budget) {
          cut_bin = b;
          break;
        }
        kept += histogram[b];
      }
    }

    out_ << "{\"traceEvents\":[\n";
    std::map<int, int> next_tid;  // per pid
    for (auto& [key, events] : tracks) {
      if (!names_written_.count(key.pid)) write_process_name(key.pid);
      const std::vector<int> lanes = assign_lanes(events);
      const int lane_count = *std::max_element(lanes.begin(), lanes.end()) + 1;
      int& tid = next_tid[key.pid];
      const std::string name = track_name(key);
      for (int lane = 0; lane < lane_count; ++lane) {
        write_thread_name(key.pid, tid + lane, lane == 0 ? name : name + " #" + std::to_string(lane + 1));
        ++stats.threads;
      }
      for (size_t k = 0; k < events.size(); ++k) {
        write_event(events[k], key, tid + lanes[k]);
        ++stats.events;
      }
      tid += lane_count;
      events = {};  // written: free it
    }
    if (memory != nullptr) write_memory_counters(*memory, stats);
    int link_tid = 0;
    for (size_t l = 0; l < link_flows_.size(); ++l) {
      bool named = false;
      link_segments(l, [&](const Segment& seg) {
        if (bin_of(seg.start) >= cut_bin) return;
        if (!named) {
          if (!names_written_.count(links_pid_)) write_process_name(links_pid_);
          write_thread_name(links_pid_, link_tid, link_label(graph_.link(static_cast<int>(l))));
          ++stats.threads;
          named = true;
        }
        write_segment(seg, link_tid);
        ++stats.events;
        ++stats.link_events;
      });
      if (named) ++link_tid;
      link_flows_[l] = {};
    }
    stats.link_events_dropped = may_bind ? link_segments_total - stats.link_events : 0;

    out_ << "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{";
    out_ << "\"generator\":\"partsim\",\"time_unit\":\"us\",\"makespan_s\":" << number(evaluation_.makespan_s)
         << ",\"tasks\":" << n << ",\"events\":" << stats.events << ",\"counter_events\":" << stats.counter_events << ",\"link_events\":" << stats.link_events
         << ",\"max_events\":" << options.max_events << ",\"link_events_dropped\":" << stats.link_events_dropped
         << ",\"links_shown_until_us\":";
    if (cut_bin == kTimeBins) {
      out_ << "null";
    } else {
      stats.links_shown_until_s = static_cast<double>(cut_bin) * makespan / static_cast<double>(kTimeBins);
      std::string b;
      append_micros(b, to_ns(stats.links_shown_until_s));
      out_ << b;
    }
    out_ << ",\"events_dropped\":" << stats.other_events_dropped << "}}\n";
    if (!out_) throw Error("timeline: write failed");
    return stats;
  }

 private:
  // One piece of a link's busy time during which the same flows are in flight.
  struct Segment {
    double start = 0, finish = 0;
    std::uint32_t first = 0;  // the flow in flight that started first (ties: lowest task index)
    size_t flows = 0;         // flows in flight
    double bytes = 0;         // their bytes
  };

  // Cuts link l's busy time at every start and finish of its flows and calls emit for every piece
  // with at least one flow in flight, in time order; consecutive pieces with the same flows in flight
  // (same first flow and count) are one segment. link_flows_[l] is sorted by (start, task), so the
  // flows in flight, in start order, are a queue: O(F log F) for F flows with a heap of finishes.
  template <class Emit>
  void link_segments(size_t l, Emit emit) const {
    const auto& flows = link_flows_[l];
    if (flows.empty()) return;
    const auto& timing = evaluation_.tasks;
    using Close = std::pair<double, size_t>;  // (finish, position in flows)
    std::priority_queue<Close, std::vector<Close>, std::greater<>> closes;
    std::vector<char> closed(flows.size(), 0);
    size_t next_open = 0, head = 0, active = 0;
    double bytes = 0;
    Segment open;
    bool has_open = false;
    while (next_open < flows.size() || !closes.empty()) {
      const double t = closes.empty() ? timing[flows[next_open]].start
                       : next_open < flows.size() ? std::min(closes.top().first, timing[flows[next_open]].start)
                                                  : closes.top().first;
      // Close before open at the same instant: a flow ending when another starts is not shared.
      while (!closes.empty() && closes.top().first == t) {
        const size_t k = closes.top().second;
        closes.pop();
        closed[k] = 1;
        --active;
        bytes -= program_.tasks()[flows[k]].bytes;
      }
      for (; next_open < flows.size() && timing[flows[next_open]].start == t; ++next_open) {
        closes.push({timing[flows[next_open]].finish, next_open});
        ++active;
        bytes += program_.tasks()[flows[next_open]].bytes;
      }
      while (head < next_open && closed[head]) ++head;
      const std::uint32_t first = active > 0 ? flows[head] : 0;
      if (has_open && active > 0 && first == open.first && active == open.flows) continue;
      if (has_open) {
        open.finish = t;
        emit(open);
        has_open = false;
      }
      if (active > 0) {
        // Exact for one flow; a running sum otherwise (deterministic: same order every run).
        open = {t, t, first, active, active == 1 ? program_.tasks()[first].bytes : bytes};
        has_open = true;
      }
    }
  }

  void write_segment(const Segment& seg, int tid) {
    const Task& t = program_.tasks()[seg.first];
    std::string& b = buffer_;
    b.clear();
    if (!first_) b += ",\n";
    first_ = false;
    b += "{\"name\":";
    b += event_name(seg.first);
    b += ",\"cat\":\"link\",\"ph\":\"X\",\"ts\":";
    const long long start = to_ns(seg.start);
    append_micros(b, start);
    b += ",\"dur\":";
    append_micros(b, to_ns(seg.finish) - start);
    b += ",\"pid\":";
    append_number(b, static_cast<long long>(links_pid_));
    b += ",\"tid\":";
    append_number(b, static_cast<long long>(tid));
    b += ",\"args\":{\"flows\":";
    append_number(b, static_cast<long long>(seg.flows));
    b += ",\"bytes\":";
    append_number(b, seg.bytes);
    b += ",\"src\":";
    b += endpoint_name(t.src);
    b += ",\"dst\":";
    b += endpoint_name(t.dst);
    b += ",\"task\":";
    append_number(b, static_cast<long long>(seg.first));
    b += "}}";
    out_.write(b.data(), static_cast<std::streamsize>(b.size()));
  }

  // A task appears on its device unless it is a zero-length delay (a join).
  bool shown(size_t i) const {
    const Task& t = program_.tasks()[i];
    return !(t.kind == TaskKind::delay && t.seconds <= 0 &&
             evaluation_.tasks[i].finish <= evaluation_.tasks[i].start);
  }

  TrackKey device_track(size_t i) const {
    const Task& t = program_.tasks()[i];
    switch (t.kind) {
      case TaskKind::compute:
        if (t.at.memory) return {t.at.device, kMemoryOrder};
        return {t.at.device, compute_order(core_of(t.at))};
      case TaskKind::transfer:
        if (t.src.memory) return {t.src.device, kMemoryOrder};
        return {t.src.device, send_order(core_of(t.src))};
      case TaskKind::delay: break;
    }
    // A delay is drawn where the lowering placed it (Program::add_delay); one that stands for
    // several devices or for nowhere, in the process "program".
    if (t.at.device < 0) return {program_pid_, kDelaysOrder};
    return {t.at.device, t.at.memory ? kMemoryOrder : kDelaysOrder};  // at.memory: memory traffic as a delay
  }

  // Core -1 (the chip) at chip granularity; a core index only where the graph has core nodes.
  int core_of(const program::Endpoint& e) const {
    return graph_.granularity() == topology::Granularity::core && e.core >= 0 ? e.core : -1;
  }

  std::string process_name(int pid) const {
    if (pid == links_pid_) return "links";
    if (pid == program_pid_) return "program";
    return device_name(graph_, pid);
  }

  std::string track_name(const TrackKey& key) const {
    if (key.pid == links_pid_) return link_label(graph_.link(key.order));
    if (key.order == kMemoryOrder) return "memory";
    if (key.order == kDelaysOrder) return "delays";
    const int core = key.order / 2 - 1;
    const bool send = key.order % 2 == 1;
    if (core < 0) return send ? "send" : "compute";
    return "core " + std::to_string(core) + (send ? " send" : "");
  }

  // Interval partitioning on the times as written (whole nanoseconds): events sorted by (start,
  // finish, task) each take the lane that became free earliest, a new lane when none is free.
  // Sorts `events` in place; returns each one's lane.
  std::vector<int> assign_lanes(std::vector<std::uint32_t>& events) const {
    const auto& timing = evaluation_.tasks;
    auto start = [&](std::uint32_t i) { return to_ns(timing[i].start); };
    auto finish = [&](std::uint32_t i) { return std::max(to_ns(timing[i].finish), start(i)); };
    std::sort(events.begin(), events.end(), [&](std::uint32_t a, std::uint32_t b) {
      if (start(a) != start(b)) return start(a) < start(b);
      if (finish(a) != finish(b)) return finish(a) < finish(b);
      return a < b;
    });
    std::vector<int> lane(events.size(), 0);
    using Free = std::pair<long long, int>;  // (finish of its last event in ns, lane)
    std::priority_queue<Free, std::vector<Free>, std::greater<>> busy;
    int lanes = 0;
    for (size_t k = 0; k < events.size(); ++k) {
      if (!busy.empty() && busy.top().first <= start(events[k])) {
        lane[k] = busy.top().second;
        busy.pop();
      } else {
        lane[k] = lanes++;
      }
      busy.push({finish(events[k]), lane[k]});
    }
    return lane;
  }

  bool layer_selected(int layer) const { return selection_.layer(layer); }
  bool device_selected(int pid) const { return selection_.device(pid); }
  bool link_selected(int l) const { return selection_.link(graph_.link(l), graph_); }

  // JSON-quoted graph node name; "<device>:memory" for a memory the graph has no node for.
  const std::string& endpoint_name(const program::Endpoint& e) const {
    if (e.memory && e.device >= 0 && e.device < device_count_ && graph_.memory_node(e.device) < 0)
      return memory_names_[static_cast<size_t>(e.device)];
    return node_names_[static_cast<size_t>(program::node_of(graph_, e))];
  }

  // One counter track "memory in use" per shown device (Perfetto draws "C" events as a graph): a
  // sample at every step of the device's use, in bytes. Steps closer than the trace's nanosecond
  // resolution keep the last (the use after every change at that instant).
  void write_memory_counters(const memory::MemoryTimeline& memory, TimelineStats& stats) {
    for (const memory::DeviceMemoryTimeline& device : memory.devices) {
      if (!device_selected(device.device)) continue;
      if (!names_written_.count(device.device)) write_process_name(device.device);
      const auto& steps = device.steps;
      for (size_t k = 0; k < steps.size(); ++k) {
        const long long ns = to_ns(steps[k].time_s);
        if (k + 1 < steps.size() && to_ns(steps[k + 1].time_s) == ns) continue;
        std::string& b = buffer_;
        b.clear();
        if (!first_) b += ",\n";
        first_ = false;
        b += "{\"name\":\"memory in use\",\"ph\":\"C\",\"ts\":";
        append_micros(b, ns);
        b += ",\"pid\":";
        append_number(b, static_cast<long long>(device.device));
        b += ",\"args\":{\"bytes\":";
        append_number(b, steps[k].bytes);
        b += "}}";
        out_ << b;
        ++stats.counter_events;
      }
    }
  }

  void separator() {
    if (!first_) out_ << ",\n";
    first_ = false;
  }

  void write_process_name(int pid) {
    names_written_[pid] = true;
    separator();
    out_ << "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":" << pid << ",\"tid\":0,\"args\":{\"name\":"
         << quoted(process_name(pid)) << "}},\n";
    out_ << "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":" << pid
         << ",\"tid\":0,\"args\":{\"sort_index\":" << pid << "}}";
  }

  void write_thread_name(int pid, int tid, const std::string& name) {
    separator();
    out_ << "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":" << pid << ",\"tid\":" << tid
         << ",\"args\":{\"name\":" << quoted(name) << "}},\n";
    out_ << "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":" << pid << ",\"tid\":" << tid
         << ",\"args\":{\"sort_index\":" << tid << "}}";
  }

  // "<layer>/<pass> <label>", JSON-quoted; cached per task, as a transfer is written once per link.
  const std::string& event_name(std::uint32_t i) {
    std::string& name = event_names_[i];
    if (name.empty()) {
      const Task& t = program_.tasks()[i];
      const std::string layer =
          t.layer >= 0 ? program_.layer_names()[static_cast<size_t>(t.layer)] : std::string("(none)");
      name = quoted(layer + "/" + plan::to_string(t.pass) + " " + t.label.str());
    }
    return name;
  }

  void write_event(std::uint32_t i, const TrackKey& key, int tid) {
    const Task& t = program_.tasks()[i];
    const auto& tt = evaluation_.tasks[i];
    const char* cat = key.pid == links_pid_ ? "link"
                      : t.kind == TaskKind::compute ? "compute"
                      : t.kind == TaskKind::transfer ? "transfer"
                                                     : "delay";
    std::string& b = buffer_;
    b.clear();
    if (!first_) b += ",\n";
    first_ = false;
    b += "{\"name\":";
    b += event_name(i);
    b += ",\"cat\":\"";
    b += cat;
    b += "\",\"ph\":\"X\",\"ts\":";
    const long long start = to_ns(tt.start);
    append_micros(b, start);
    b += ",\"dur\":";
    append_micros(b, std::max(0LL, to_ns(tt.finish) - start));
    b += ",\"pid\":";
    append_number(b, static_cast<long long>(key.pid));
    b += ",\"tid\":";
    append_number(b, static_cast<long long>(tid));
    b += ",\"args\":{";
    if (t.kind == TaskKind::transfer) {
      b += "\"bytes\":";
      append_number(b, t.bytes);
      b += ",\"src\":";
      b += endpoint_name(t.src);
      b += ",\"dst\":";
      b += endpoint_name(t.dst);
      b += ',';
    } else if (t.kind == TaskKind::compute) {
      b += "\"at\":";
      b += endpoint_name(t.at);
      b += ',';
    }
    b += "\"task\":";
    append_number(b, static_cast<long long>(i));
    b += "}}";
    out_.write(b.data(), static_cast<std::streamsize>(b.size()));
  }

  std::ostream& out_;
  const program::Program& program_;
  const program::Evaluation& evaluation_;
  const topology::TopologyGraph& graph_;
  const TransferRoutes& routes_;
  int device_count_ = 0;
  int program_pid_ = 0;
  int links_pid_ = 0;
  std::vector<std::string> node_names_;    // JSON-quoted
  std::vector<std::string> memory_names_;  // JSON-quoted, per device
  Selection selection_;
  std::map<int, bool> names_written_;
  std::vector<std::string> event_names_;  // per task, filled when first written
  std::vector<std::vector<std::uint32_t>> link_flows_;  // per link: transfers crossing it (f > s), by start
  std::string buffer_;
  bool first_ = true;
};

}  // namespace

void check_timeline_options(const TimelineOptions& options, const program::Program& program,
                            const topology::TopologyGraph& graph) {
  Selection(options, program, graph);
}

std::string cap_note(const TimelineStats& stats, size_t max_events) {
  if (!stats.capped()) return "";
  std::string line = "timeline capped at " + std::to_string(max_events) + " events: ";
  if (stats.link_events_dropped > 0) {
    std::string until;
    append_micros(until, to_ns(std::max(0.0, stats.links_shown_until_s)));
    line += std::to_string(stats.link_events_dropped) + " link segments starting from " + until + " us on";
  }
  if (stats.other_events_dropped > 0)
    line += std::string(stats.link_events_dropped > 0 ? " and " : "") + std::to_string(stats.other_events_dropped) +
            " device events (the last in task order)";
  return line + " left out; raise the cap or filter layers, devices or links";
}

TimelineStats write_timeline(std::ostream& out, const program::Program& program,
                             const program::Evaluation& evaluation, const topology::TopologyGraph& graph,
                             const TimelineOptions& options) {
  return write_timeline(out, program, evaluation, graph, TransferRoutes(program, graph), options);
}

TimelineStats write_timeline(std::ostream& out, const program::Program& program,
                             const program::Evaluation& evaluation, const topology::TopologyGraph& graph,
                             const TransferRoutes& routes, const TimelineOptions& options,
                             const memory::MemoryTimeline* memory) {
  if (evaluation.tasks.size() != program.size())
    throw Error("timeline: the evaluation has " + std::to_string(evaluation.tasks.size()) + " task timings for " +
                std::to_string(program.size()) + " tasks");
  return Writer(out, program, evaluation, graph, routes).write(options, memory);
}

}  // namespace partsim::report
