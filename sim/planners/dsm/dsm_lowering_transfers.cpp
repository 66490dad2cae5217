// DsmLowerer: the building blocks of a dsm Program: compute endpoints, collectives along torus axes
// with repeated ring steps merged, external-memory traffic, on-chip delays, joins and the rotation.

#include "sim/planners/dsm/dsm_lowerer.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sim/collectives/collectives.hpp"
#include "sim/common/error.hpp"
#include "sim/planners/dsm/hardware.hpp"
#include "sim/planners/dsm/layer_model.hpp"
#include "sim/planners/dsm/group_chain.hpp"
#include "sim/planners/dsm/search.hpp"
#include "sim/planners/dsm/transfers.hpp"
#include "sim/planners/dsm/plan_fields.hpp"
#include "sim/lowering/lowering.hpp"
#include "sim/lowering/task_builders.hpp"

namespace partsim::dsm::lowering_detail {

using lowering::add_collective;
using lowering::add_join;
using lowering::add_memory_traffic;
using lowering::EmptyTransfers;
using lowering::step_runs;
using lowering::StepRun;

std::vector<program::Endpoint> DsmLowerer::compute_endpoints(int d) const {
  std::vector<program::Endpoint> v;
  if (!core_level_) return {{d, -1, false}};
  const int cores = c_.topology.cores_of(d);
  for (int c = 0; c < cores; ++c) v.push_back({d, c, false});
  return v;
}

std::vector<int> DsmLowerer::axis_collective(const GroupSetup& gs, const std::string& name, const std::string& axis,
                                             double bytes, double repeats, int layer, Pass pass,
                                             const std::string& label, const std::vector<int>& after) {
  if (bytes <= 0 || repeats <= 0) return after;
  return add_merged(axis_schedule(gs, name, axis, bytes), repeats, layer, pass, label, after);
}

collectives::Schedule DsmLowerer::axis_schedule(const GroupSetup& gs, const std::string& name, const std::string& axis,
                                                double bytes) const {
  collectives::Request r;
  r.collective = name;
  r.axis = axis;
  r.bytes = bytes;
  collectives::Schedule full = collectives::build_schedule(r, chip_topology_);
  if (!gs.pipe) return full;
  collectives::Schedule sched = collectives::Schedule::of(full.what);
  if (axis == "x") {
    const auto in_block = [&](int d) { return std::find(gs.chips.begin(), gs.chips.end(), d) != gs.chips.end(); };
    for (const auto& t : full.transfers)
      if (in_block(t.src) && in_block(t.dst)) sched.add(t.src, t.dst, t.bytes, t.step);
    sched.step_count = full.step_count;
    return sched;
  }
  const int R = gs.sys.N;
  if (R <= 1) return sched;
  const int dirs = gs.sys.bidirectional && R > 2 ? 2 : 1;
  const int steps = name == "rotate" ? 1 : R - 1;  // rotate; ring reduce_scatter / all_gather
  const double piece = name == "rotate" ? bytes : bytes / (static_cast<double>(R) * dirs);
  if (name != "rotate" && name != "reduce_scatter" && name != "all_gather")
    throw Error("lower_dsm: no block-ring schedule for " + name);
  for (int step = 0; step < steps; ++step)
    for (int x = 0; x < s_.M; ++x)
      for (int i = 0; i < R; ++i) {
        const int from = x + s_.M * (gs.first_row + i);
        sched.add(from, x + s_.M * (gs.first_row + (i + 1) % R), piece, step);
        if (dirs == 2 && name != "rotate") sched.add(from, x + s_.M * (gs.first_row + (i + R - 1) % R), piece, step);
      }
  return sched;
}

std::vector<int> DsmLowerer::add_merged(const collectives::Schedule& sched, double repeats, int layer, Pass pass,
                                        const std::string& label, const std::vector<int>& after) {
  const std::vector<StepRun> runs = step_runs(sched, c_.topology);
  // Repeating a schedule that is one run extends the run; otherwise the runs are repeated.
  collectives::Schedule merged = collectives::Schedule::of(sched.what);  // the same collective, runs merged
  double removed_latency = 0;
  std::vector<double> steps_merged;  // per step of `merged`: the schedule steps it carries
  const bool single = runs.size() == 1;
  const double copies = single ? 1 : repeats;
  int step = 0;
  for (double k = 0; k < copies; k += 1)
    for (const StepRun& run : runs) {
      const double scale = single ? repeats : 1.0;
      for (std::size_t i = 0; i < run.pairs.size(); ++i)
        merged.add(run.pairs[i].first, run.pairs[i].second, run.bytes[i] * scale, step);
      ++step;
      steps_merged.push_back(run.steps * scale);
      removed_latency += (run.steps * scale - 1) * run.latency;
    }
  merged.step_count = step;
  std::vector<std::pair<int, int>> transfer_steps;
  std::vector<int> done = add_collective(program_, merged, chip_topology_, layer, pass, label, after,
                                         EmptyTransfers::skip, &transfer_steps);
  std::map<int, std::vector<int>> run_of_step;
  for (const auto& [task, s] : transfer_steps) run_of_step[s].push_back(task);
  for (const auto& [s, transfers] : run_of_step)
    if (steps_merged[static_cast<std::size_t>(s)] > 1)
      program_.add_merged_run(transfers, steps_merged[static_cast<std::size_t>(s)]);
  if (removed_latency > 0) {
    done = {program_.add_delay(layer, pass, label + " latency", removed_latency, done, program::Endpoint::several_devices())};
    program_.add_merged_latency(done.front());
  }
  return done;
}

void DsmLowerer::memory(int d, double bytes, bool to_memory, int layer, Pass pass, const std::string& label,
                        const std::vector<int>& after, std::vector<int>& done) {
  if (bytes <= 0) return;
  if (!core_level_ || c_.topology.memory_node(d) < 0) {
    const auto t = add_memory_traffic(program_, c_.topology, d, bytes, to_memory, layer, pass, label, after);
    done.insert(done.end(), t.begin(), t.end());
    return;
  }
  const int cores = c_.topology.cores_of(d);
  std::vector<int> targets;
  if (cores <= 2) {
    for (int c = 0; c < cores; ++c) targets.push_back(c);
  } else {
    const int quarter = std::max(1, cores / 4);
    targets = {quarter, cores - quarter};
  }
  const program::Endpoint mem{d, -1, true};
  const double part = bytes / static_cast<double>(targets.size());
  for (int c : targets) {
    const program::Endpoint core{d, c, false};
    done.push_back(program_.add_transfer(layer, pass, label, to_memory ? core : mem, to_memory ? mem : core, part, after));
  }
}

void DsmLowerer::on_chip_delay(double seconds, int layer, Pass pass, const std::string& label,
                               const std::vector<int>& after, std::vector<int>& done) {
  if (seconds <= 0 || core_level_) return;
  done.push_back(program_.add_delay(layer, pass, label, seconds, after, program::Endpoint::several_devices()));
}

int DsmLowerer::join(int layer, Pass pass, const std::string& label, const std::vector<int>& after) {
  if (after.size() == 1) return after.front();
  return add_join(program_, layer, pass, label, after);
}

std::vector<int> DsmLowerer::rotation(const GroupSetup& gs, const PassSetup& ps, double k, int layer,
                                      const std::vector<int>& after) {
  const RotationSteps r = rotation_steps(gs.split, gs.sys.M, gs.sys.N);
  if (!gs.Ls.primary || r.x + r.y == 0 || ps.chunk_bytes <= 0) return after;
  std::vector<int> done = after;
  if (r.x > 0) done = axis_collective(gs, "rotate", "x", ps.chunk_bytes, k * r.x, layer, ps.pass, "rotate_x", done);
  if (r.y > 0) done = axis_collective(gs, "rotate", "y", ps.chunk_bytes, k * r.y, layer, ps.pass, "rotate_y", done);
  return done;
}

}  // namespace partsim::dsm::lowering_detail
