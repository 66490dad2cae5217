#include "sim/report/timeline.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
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

namespace partsim::report {
namespace {

using program::Task;
using program::TaskKind;

std::string quoted(const std::string& s) { return nlohmann::json(s).dump(); }

// Microseconds with 0.1 ns resolution, in fixed notation so the output is byte-identical across
// runs and readable by every trace viewer. Integer formatting: printf("%.4f") dominated the time.
void append_micros(std::string& out, double seconds) {
  long long ticks = std::llround(seconds * 1e10);  // 0.1 ns
  if (ticks < 0) {
    out += '-';
    ticks = -ticks;
  }
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, ticks / 10000);
  out.append(buf, r.ptr);
  out += '.';
  const long long frac = ticks % 10000;
  char digits[4] = {static_cast<char>('0' + frac / 1000), static_cast<char>('0' + frac / 100 % 10),
                    static_cast<char>('0' + frac / 10 % 10), static_cast<char>('0' + frac % 10)};
  out.append(digits, 4);
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
    for (int d = 0; d < device_count_; ++d) memory_names_.push_back(quoted(process_name(d) + ":memory"));
  }

  TimelineStats write(const TimelineOptions& options) {
    const auto& tasks = program_.tasks();
    const size_t n = tasks.size();
    infer_delay_devices();
    event_names_.assign(n, std::string());

    // Which events exist and which the cap keeps: device events first, then link events of whole
    // transfers in task order while they fit.
    size_t device_events = 0;
    for (size_t i = 0; i < n; ++i) device_events += shown(i);
    const size_t device_budget = std::min(device_events, options.max_events);
    size_t link_budget = options.max_events - device_budget;
    TimelineStats stats;
    stats.other_events_dropped = device_events - device_budget;

    std::map<TrackKey, std::vector<std::uint32_t>> tracks;                           // device tracks
    std::vector<std::vector<std::uint32_t>> link_tracks(static_cast<size_t>(graph_.link_count()));  // by link id
    size_t kept_device = 0;
    bool links_full = false;
    for (size_t i = 0; i < n; ++i) {
      if (!shown(i)) continue;
      if (kept_device < device_budget) {
        ++kept_device;
        tracks[device_track(i)].push_back(static_cast<std::uint32_t>(i));
      }
      if (tasks[i].kind != TaskKind::transfer) continue;
      const auto& route = routes_.route(i);
      if (!links_full && route.size() <= link_budget) {
        link_budget -= route.size();
        stats.link_events += route.size();
        for (int l : route) link_tracks[static_cast<size_t>(l)].push_back(static_cast<std::uint32_t>(i));
      } else {
        links_full = true;  // a prefix of the transfers keeps its link events, no holes
        stats.link_events_dropped += route.size();
      }
    }

    out_ << "{\"traceEvents\":[\n";
    std::map<int, int> next_tid;  // per pid
    auto write_track = [&](const TrackKey& key, std::vector<std::uint32_t>& events) {
      if (events.empty()) return;
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
    };
    for (auto& [key, events] : tracks) write_track(key, events);
    for (int l = 0; l < graph_.link_count(); ++l) write_track({links_pid_, l}, link_tracks[static_cast<size_t>(l)]);
    out_ << "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{";
    out_ << "\"generator\":\"partsim\",\"time_unit\":\"us\",\"makespan_s\":" << number(evaluation_.makespan_s)
         << ",\"tasks\":" << n << ",\"events\":" << stats.events << ",\"link_events\":" << stats.link_events
         << ",\"max_events\":" << options.max_events << ",\"link_events_dropped\":" << stats.link_events_dropped
         << ",\"events_dropped\":" << stats.other_events_dropped << "}}\n";
    if (!out_) throw Error("timeline: write failed");
    return stats;
  }

 private:
  // A task appears on its device unless it is a zero-length delay (a join).
  bool shown(size_t i) const {
    const Task& t = program_.tasks()[i];
    return !(t.kind == TaskKind::delay && t.seconds <= 0 &&
             evaluation_.tasks[i].finish <= evaluation_.tasks[i].start);
  }

  // Delays name no endpoint: draw one on the device of its first predecessor that has a device
  // (compute: where it ran; transfer: where the data arrived; delay: its own inferred device).
  void infer_delay_devices() {
    const auto& tasks = program_.tasks();
    delay_device_.assign(tasks.size(), -1);
    for (size_t i = 0; i < tasks.size(); ++i) {
      const Task& t = tasks[i];
      if (t.kind == TaskKind::compute) delay_device_[i] = t.at.device;
      else if (t.kind == TaskKind::transfer) delay_device_[i] = t.dst.device;
      else if (t.at.device >= 0) delay_device_[i] = t.at.device;
      else
        for (int d : t.after)
          if (delay_device_[static_cast<size_t>(d)] >= 0) {
            delay_device_[i] = delay_device_[static_cast<size_t>(d)];
            break;
          }
    }
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
    const int d = delay_device_[i];
    return {d >= 0 ? d : program_pid_, kDelaysOrder};
  }

  // Core -1 (the chip) at chip granularity; a core index only where the graph has core nodes.
  int core_of(const program::Endpoint& e) const {
    return graph_.granularity() == topology::Granularity::core && e.core >= 0 ? e.core : -1;
  }

  std::string process_name(int pid) const {
    if (pid == links_pid_) return "links";
    if (pid == program_pid_) return "program";
    const auto& names = graph_.spec().device_names;
    if (pid < static_cast<int>(names.size()) && !names[static_cast<size_t>(pid)].empty())
      return names[static_cast<size_t>(pid)];
    return "dev" + std::to_string(pid);
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

  // Interval partitioning: events sorted by (start, finish, task) each take the lane that became
  // free earliest, a new lane when none is free. Sorts `events` in place; returns each one's lane.
  std::vector<int> assign_lanes(std::vector<std::uint32_t>& events) const {
    const auto& timing = evaluation_.tasks;
    std::sort(events.begin(), events.end(), [&](std::uint32_t a, std::uint32_t b) {
      if (timing[a].start != timing[b].start) return timing[a].start < timing[b].start;
      if (timing[a].finish != timing[b].finish) return timing[a].finish < timing[b].finish;
      return a < b;
    });
    std::vector<int> lane(events.size(), 0);
    using Free = std::pair<double, int>;  // (finish of its last event, lane)
    std::priority_queue<Free, std::vector<Free>, std::greater<>> busy;
    int lanes = 0;
    for (size_t k = 0; k < events.size(); ++k) {
      const auto& tt = timing[events[k]];
      if (!busy.empty() && busy.top().first <= tt.start) {
        lane[k] = busy.top().second;
        busy.pop();
      } else {
        lane[k] = lanes++;
      }
      busy.push({std::max(tt.finish, tt.start), lane[k]});
    }
    return lane;
  }

  // JSON-quoted graph node name; "<device>:memory" for a memory the graph has no node for.
  const std::string& endpoint_name(const program::Endpoint& e) const {
    if (e.memory && e.device >= 0 && e.device < device_count_ && graph_.memory_node(e.device) < 0)
      return memory_names_[static_cast<size_t>(e.device)];
    return node_names_[static_cast<size_t>(program::node_of(graph_, e))];
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
      name = quoted(layer + "/" + plan::to_string(t.pass) + " " + t.label);
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
    append_micros(b, tt.start);
    b += ",\"dur\":";
    append_micros(b, std::max(0.0, tt.finish - tt.start));
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
  std::vector<int> delay_device_;
  std::map<int, bool> names_written_;
  std::vector<std::string> event_names_;  // per task, filled when first written
  std::string buffer_;
  bool first_ = true;
};

}  // namespace

TimelineStats write_timeline(std::ostream& out, const program::Program& program,
                             const program::Evaluation& evaluation, const topology::TopologyGraph& graph,
                             const TimelineOptions& options) {
  return write_timeline(out, program, evaluation, graph, TransferRoutes(program, graph), options);
}

TimelineStats write_timeline(std::ostream& out, const program::Program& program,
                             const program::Evaluation& evaluation, const topology::TopologyGraph& graph,
                             const TransferRoutes& routes, const TimelineOptions& options) {
  if (evaluation.tasks.size() != program.size())
    throw Error("timeline: the evaluation has " + std::to_string(evaluation.tasks.size()) + " task timings for " +
                std::to_string(program.size()) + " tasks");
  return Writer(out, program, evaluation, graph, routes).write(options);
}

}  // namespace partsim::report
