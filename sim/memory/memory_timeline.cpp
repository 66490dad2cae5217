#include "sim/memory/memory_timeline.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <limits>
#include <unordered_map>

#include "sim/common/error.hpp"

namespace partsim::memory {
namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

// A time window [start, finish] grown by every task that falls in it; empty until the first.
struct Window {
  double start = kNever;
  double finish = -kNever;
  bool empty() const { return start > finish; }
  void cover(const program::TaskTiming& t) {
    start = std::min(start, t.start);
    finish = std::max(finish, t.finish);
  }
};

// What the Program says about one layer on one device (seconds).
struct LayerOnDevice {
  Window forward_compute;   // its FWD compute tasks on the device
  Window forward_tasks;     // its FWD compute and the transfers to or from the device
  Window backward_compute;  // its BWD and UPD compute tasks on the device
  Window working;           // training: BWD tasks touching the device and UPD compute; inference: FWD tasks
};

// (layer, device) -> its windows, for the pairs that have a box.
class Windows {
 public:
  Windows(const std::vector<BoxMemory>& boxes, int device_count) : device_count_(device_count) {
    for (const BoxMemory& b : boxes) index_.emplace(key(b.layer, b.device), index_.size());
    windows_.resize(index_.size());
  }
  LayerOnDevice* find(int layer, int device) {
    if (layer < 0 || device < 0 || device >= device_count_) return nullptr;
    const auto it = index_.find(key(static_cast<std::size_t>(layer), device));
    return it == index_.end() ? nullptr : &windows_[it->second];
  }
  const LayerOnDevice& at(std::size_t layer, int device) const { return windows_[index_.at(key(layer, device))]; }

 private:
  std::uint64_t key(std::size_t layer, int device) const {
    return static_cast<std::uint64_t>(layer) * static_cast<std::uint64_t>(device_count_) + static_cast<std::uint64_t>(device);
  }
  int device_count_;
  std::unordered_map<std::uint64_t, std::size_t> index_;
  std::vector<LayerOnDevice> windows_;
};

// Records one task in the windows of its layer on the device(s) it runs on or moves data between.
void record(Windows& windows, const program::Task& task, const program::TaskTiming& timing, plan::Mode mode) {
  using plan::Pass;
  const bool compute = task.kind == program::TaskKind::compute;
  const bool transfer = task.kind == program::TaskKind::transfer;
  if (!compute && !transfer) return;  // delays hold no bytes
  const int devices[2] = {task.src.device, transfer ? task.dst.device : -1};  // src shares storage with at
  for (int i = 0; i < (transfer && task.dst.device != task.src.device ? 2 : 1); ++i) {
    LayerOnDevice* w = windows.find(task.layer, devices[i]);
    if (w == nullptr) continue;
    if (task.pass == Pass::fwd) {
      if (compute) w->forward_compute.cover(timing);
      w->forward_tasks.cover(timing);
      if (mode == plan::Mode::inference) w->working.cover(timing);
    } else if (compute) {
      w->backward_compute.cover(timing);
      w->working.cover(timing);
    } else if (task.pass == Pass::bwd) {
      w->working.cover(timing);
    }
  }
}

struct Change {
  double time_s;
  double bytes;  // > 0 allocation, < 0 free
};

void hold(std::vector<Change>& changes, double bytes, double from_s, double until_s) {
  if (bytes <= 0) return;
  changes.push_back({from_s, bytes});
  changes.push_back({until_s, -bytes});
}

// The step function of one device from its changes: frees before allocations at one instant.
DeviceMemoryTimeline steps_of(int device, double resident, std::vector<Change> changes) {
  std::sort(changes.begin(), changes.end(), [](const Change& a, const Change& b) {
    return a.time_s != b.time_s ? a.time_s < b.time_s : a.bytes < b.bytes;
  });
  DeviceMemoryTimeline timeline;
  timeline.device = device;
  timeline.resident_bytes = resident;
  timeline.steps.push_back({0, resident});
  timeline.peak_bytes = resident;
  double level = resident;
  for (std::size_t i = 0; i < changes.size();) {
    const double t = changes[i].time_s;
    for (; i < changes.size() && changes[i].time_s == t; ++i) level += changes[i].bytes;
    if (timeline.steps.back().time_s == t)
      timeline.steps.back().bytes = level;
    else
      timeline.steps.push_back({t, level});
    if (level > timeline.peak_bytes) {
      timeline.peak_bytes = level;
      timeline.peak_time_s = t;
    }
  }
  return timeline;
}

}  // namespace

double DeviceMemoryTimeline::bytes_at(double time_s) const {
  const auto after = std::upper_bound(steps.begin(), steps.end(), time_s,
                                      [](double t, const MemoryStep& s) { return t < s.time_s; });
  return after == steps.begin() ? 0.0 : std::prev(after)->bytes;
}

double DeviceMemoryTimeline::peak_between(double start_s, double finish_s) const {
  double peak = bytes_at(start_s);
  auto it = std::upper_bound(steps.begin(), steps.end(), start_s,
                             [](double t, const MemoryStep& s) { return t < s.time_s; });
  for (; it != steps.end() && it->time_s <= finish_s; ++it) peak = std::max(peak, it->bytes);
  return peak;
}

std::size_t MemoryTimeline::fullest() const {
  std::size_t best = 0;
  for (std::size_t d = 1; d < devices.size(); ++d)
    if (devices[d].peak_bytes > devices[best].peak_bytes) best = d;
  return best;
}

double MemoryTimeline::peak_between(double start_s, double finish_s) const {
  double peak = 0;
  for (const DeviceMemoryTimeline& d : devices) peak = std::max(peak, d.peak_between(start_s, finish_s));
  return peak;
}

namespace {

void check_timed(const program::Program& program, const program::Evaluation& evaluation) {
  if (evaluation.tasks.size() != program.size())
    throw Error("memory_timeline: the evaluation times " + std::to_string(evaluation.tasks.size()) +
                " tasks, the program has " + std::to_string(program.size()));
}

MemoryTimeline timeline_of(std::vector<double> resident, std::vector<std::vector<Change>> changes) {
  MemoryTimeline timeline;
  timeline.devices.reserve(resident.size());
  for (std::size_t d = 0; d < resident.size(); ++d)
    timeline.devices.push_back(steps_of(static_cast<int>(d), resident[d], std::move(changes[d])));
  return timeline;
}

}  // namespace

MemoryTimeline memory_timeline(const program::Program& program, const program::Evaluation& evaluation,
                               const std::vector<BoxMemory>& boxes,
                               const std::vector<std::vector<std::size_t>>& consumers, plan::Mode mode,
                               int device_count) {
  check_timed(program, evaluation);
  Windows windows(boxes, device_count);
  for (std::size_t i = 0; i < program.size(); ++i) record(windows, program.tasks()[i], evaluation.tasks[i], mode);
  const double end = evaluation.makespan_s;

  std::vector<double> resident(static_cast<std::size_t>(device_count), 0.0);
  std::vector<std::vector<Change>> changes(static_cast<std::size_t>(device_count));
  for (const BoxMemory& box : boxes) {
    if (box.device < 0 || box.device >= device_count)
      throw Error("memory_timeline: a box on device " + std::to_string(box.device) + " of " + std::to_string(device_count));
    const auto d = static_cast<std::size_t>(box.device);
    const LayerMemory& m = box.bytes;
    resident[d] += m.weights_bytes + m.gradients_bytes + m.optimizer_bytes;
    const LayerOnDevice& w = windows.at(box.layer, box.device);
    const double made = w.forward_compute.empty() ? 0.0 : w.forward_compute.start;
    const std::vector<std::size_t> none;
    const std::vector<std::size_t>& readers = box.layer < consumers.size() ? consumers[box.layer] : none;
    double freed = end;
    if (mode == plan::Mode::training) {
      // The layer's own backward and its consumers' (their weight gradients read it) on this device.
      Window backward = w.backward_compute;
      for (std::size_t c : readers)
        if (const LayerOnDevice* r = windows.find(static_cast<int>(c), box.device); r != nullptr && !r->backward_compute.empty())
          backward.cover({r->backward_compute.start, r->backward_compute.finish});
      if (!backward.empty()) freed = backward.finish;
    } else if (!readers.empty()) {
      // Freed once every consumer on this device has read it (or sent it on); if none runs here, once made.
      Window read;
      for (std::size_t c : readers)
        if (const LayerOnDevice* r = windows.find(static_cast<int>(c), box.device); r != nullptr && !r->forward_tasks.empty())
          read.cover({r->forward_tasks.start, r->forward_tasks.finish});
      freed = !read.empty() ? read.finish : (w.forward_compute.empty() ? made : w.forward_compute.finish);
    }
    hold(changes[d], m.activations_bytes, made, std::max(made, freed));
    if (!w.working.empty()) hold(changes[d], m.working_bytes, w.working.start, w.working.finish);
  }

  return timeline_of(std::move(resident), std::move(changes));
}

MemoryTimeline holding_timeline(const program::Program& program, const program::Evaluation& evaluation, int device_count) {
  check_timed(program, evaluation);
  std::vector<double> resident(static_cast<std::size_t>(std::max(device_count, 0)), 0.0);
  std::vector<std::vector<Change>> changes(resident.size());
  for (const program::Holding& h : program.holdings()) {
    if (h.device >= device_count)
      throw Error("memory_timeline: holding '" + h.what.str() + "' on device " + std::to_string(h.device) + " of " +
                  std::to_string(device_count));
    const auto d = static_cast<std::size_t>(h.device);
    if (h.resident()) {
      resident[d] += h.bytes;
      continue;
    }
    const double from = evaluation.tasks[static_cast<std::size_t>(h.first_task)].start;
    const double until = evaluation.tasks[static_cast<std::size_t>(h.last_task)].finish;
    hold(changes[d], h.bytes, from, std::max(from, until));
  }
  return timeline_of(std::move(resident), std::move(changes));
}

}  // namespace partsim::memory
