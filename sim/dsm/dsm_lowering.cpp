// Lowering of DeepSpatialMatrix plans (seed 003). docs/model.md "Lowering of dsm plans" gives the
// readings; in short:
// - Per group (a primary layer and its folded auxiliary layers) and pass the lowering rebuilds, from
//   the plan's ChipD / CoreD / ArrayD work, DySM factor and reuse flags, the PassCost the planner
//   charged (dsm::evaluate_pass, the same flags and first / later iteration split as the search), and
//   describes its events: TotCy = MAX(PriComp, OvlDt) + AuxComp + NonOvlDt (seed 003 §II-D).
// - Identical iterations (timesteps x DySM spatial minibatches, §III-C) are collapsed into one
//   segment of k x the iteration (exact: every term of TotCy is linear in k); the first iteration is
//   its own segment when it differs from the later ones (weights fetched once, partial gradients
//   read back).
// - Segment, per chip d: compute (PriComp) on the chip or on each of its cores; at the same time the
//   overlapped data-transfer group: FetchInp/FetchKer/WriteOut (add_memory_traffic), the on-chip
//   load (a delay at chip granularity; real core traffic at core granularity), the FWD/UPD rotation
//   (collectives "rotate" along the model axes); a join; AuxComp on the chip / cores; PartialSumAcc
//   (a delay); a join; the BWD rotation (not overlapped).
// - UPD ends with the gradient reduction (ring all-reduce along X of G and along Y of G / px, the two
//   axes concurrently: "pipelined", with the memory and on-chip parts, as the planner's group).
// - Relayout (all-to-all along the axes whose split kind changes) precedes the consumer's FWD and
//   follows its BWD; the core-to-core relayout of memory reuse likewise (a delay).
// - Ring steps that repeat the same (src, dst) pairs are merged into one transfer per pair carrying
//   their bytes, plus a delay holding the latencies the merge removed: exact in the closed form.
// - Core granularity: compute and AuxComp on every core; collectives as one transfer per chip pair
//   (core 0 to core 0, over the on-chip ring to the port), memory as two half-ring flows per chip
//   (see chip_topology_ and memory() for the measured reason: the issue 6 speed targets).
// - Timestep-pipelined groups (tpipe, §III-D): the stages run at once on their blocks of rows, paced
//   by the slowest stage (lower_pipe).

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
#include "sim/common/integer_math.hpp"
#include "sim/common/text.hpp"
#include "sim/dsm/hardware.hpp"
#include "sim/dsm/layer_model.hpp"
#include "sim/dsm/group_chain.hpp"
#include "sim/dsm/search.hpp"
#include "sim/dsm/transfers.hpp"
#include "sim/dsm/plan_fields.hpp"
#include "sim/dsm/registration.hpp"
#include "sim/lowering/lowering.hpp"
#include "sim/plan/json_reader.hpp"
#include "sim/lowering/task_builders.hpp"

namespace partsim::lowering {
namespace {

using dsm::ChipSplit;
using dsm::CoreConfig;
using dsm::DsmLayer;
using dsm::DsmSystem;
using dsm::PassCost;
using dsm::PassFlags;
using plan::Pass;
using dsm::Split5;

/// A resolved strategy option of the plan ("all" when the plan does not list it).
std::string option_of(const plan::Plan& plan, const std::string& key) {
  const auto it = plan.options.find(key);
  return it == plan.options.end() ? "all" : it->second;
}

std::string pass_list(const std::vector<Pass>& passes) {
  const std::string s = join(passes, [](Pass p) { return plan::to_string(p); });
  return s.empty() ? "none" : s;
}

/// The passes a group runs (pass_search.cpp passes_of): inference FWD; the first layer has no BWD.
std::vector<Pass> expected_passes(const DsmLayer& L, plan::Mode mode) {
  if (mode == plan::Mode::inference) return {Pass::fwd};
  if (L.first) return {Pass::fwd, Pass::upd};
  return {Pass::fwd, Pass::bwd, Pass::upd};
}

/// One pass of one group as the planner costed it.
struct PassSetup {
  Pass pass = Pass::fwd;
  const dsm::DsmPassPlan* plan = nullptr;
  CoreConfig config;
  PassFlags first_flags;
  PassFlags rest_flags;
  PassCost first;
  PassCost rest;
  double first_reads = 0;  // bytes FetchInp + FetchKer (+ read-back) of one iteration, per chip
  double rest_reads = 0;
  double grad_bytes = 0;   // UPD: weight gradient per chip
  double chunk_bytes = 0;  // rotated feature chunk per iteration, per chip
};

struct GroupSetup {
  std::size_t group = 0;
  int layer = -1;  // Program layer index (the plan layer of the group's primary layer)
  ChipSplit split = ChipSplit::data;
  int dysm = 1;
  DsmLayer Ls;     // the layer cut to its spatial minibatch
  long long iterations = 1;
  bool reuse_in = false;
  bool reuse_out = false;
  std::vector<PassSetup> passes;  // plan order
  DsmSystem sys;                  // the torus it runs on (a block of whole rows when pipelined)
  std::vector<int> chips;         // its chips
  int first_row = 0;              // pipelined: first torus row of its block
  std::optional<int> pipe;        // timestep-pipelining group (§III-D)
};

class DsmLowerer {
 public:
  explicit DsmLowerer(const Context& c)
      : c_(c),
        s_(dsm::make_dsm_system(c.spec)),
        o_(dsm::parse_dsm_options({option_of(c.plan, "opt")})),
        net_(dsm::build_group_chain(c.workload)),
        core_level_(c.topology.granularity() == topology::Granularity::core),
        chip_topology_(c.spec, topology::Granularity::chip) {
    o_.mode = c.plan.workload.mode;
  }

  program::Program run() {
    for (std::size_t i = 0; i < c_.plan.layers.size(); ++i)
      fields_.push_back(dsm::dsm_fields_from(
          plan::JsonReader(c_.plan.layers[i].family, "/layers/" + std::to_string(i) + "/family", "dsm plan")));
    check_layers();
    for (const auto& layer : c_.plan.layers) program_.add_layer(layer.name);
    for (int d = 0; d < s_.chips(); ++d) chips_.push_back(d);
    for (std::size_t g = 0; g < net_.groups.size(); ++g) groups_.push_back(setup_group(g));
    for (std::size_t g = 0; g < groups_.size(); ++g) decode_reuse(g);
    for (auto& gs : groups_)
      for (auto& ps : gs.passes) resolve_pass(gs, ps);

    std::vector<int> previous;
    const std::size_t n = groups_.size();
    for (std::size_t g = 0; g < n; ++g) {
      if (!groups_[g].pipe) {
        previous = lower_pass(groups_[g], Pass::fwd, previous);
      } else if (g == 0 || groups_[g - 1].pipe != groups_[g].pipe) {  // a pipe group, at its first stage
        std::size_t end = g;
        while (end < n && groups_[end].pipe == groups_[g].pipe) ++end;
        previous = lower_pipe(g, end, Pass::fwd, previous);
      }
    }
    if (o_.mode == plan::Mode::training)
      for (std::size_t g = n; g-- > 0;) {
        if (groups_[g].pipe && g + 1 < n && groups_[g + 1].pipe == groups_[g].pipe) continue;
        std::size_t begin = g;
        while (groups_[g].pipe && begin > 0 && groups_[begin - 1].pipe == groups_[g].pipe) --begin;
        for (const auto& ps : groups_[g].passes) {
          if (ps.pass == Pass::fwd) continue;
          previous = groups_[g].pipe ? lower_pipe(begin, g + 1, ps.pass, previous)
                                     : lower_pass(groups_[g], ps.pass, previous);
        }
      }
    return std::move(program_);
  }

 private:
  // ---- reading the plan -------------------------------------------------------------------------

  std::string where(std::size_t g) const {
    // The JSON path of the group's passes in plan.json; the program prefixes the plan's file name.
    const std::string& layer = net_.groups[g].members.front();
    return "/layers/" + std::to_string(plan_index_.at(layer)) + "/family/passes: layer '" + layer + "'";
  }

  void check_layers() {
    const auto& layers = c_.workload.layers();
    if (c_.plan.layers.size() != layers.size())
      throw InputError("dsm plan: " + std::to_string(c_.plan.layers.size()) + " layers, workload '" +
                       c_.workload.name() + "' has " + std::to_string(layers.size()));
    for (std::size_t i = 0; i < layers.size(); ++i) {
      if (c_.plan.layers[i].name != layers[i].name)
        throw InputError("dsm plan: layer " + std::to_string(i) + " is '" + c_.plan.layers[i].name +
                         "', the workload's is '" + layers[i].name + "'");
      plan_index_[layers[i].name] = static_cast<int>(i);
    }
    if (c_.topology.device_count() != s_.chips())
      throw InputError("dsm plan: the platform graph has " + std::to_string(c_.topology.device_count()) +
                       " devices, the torus " + std::to_string(s_.chips()));
    // Folded auxiliary layers carry no passes (registration.hpp).
    for (const auto& grp : net_.groups)
      for (std::size_t m = 1; m < grp.members.size(); ++m) {
        const auto index = static_cast<std::size_t>(plan_index_.at(grp.members[m]));
        const auto& lp = c_.plan.layers[index];
        if (!fields_[index].passes.empty())
          throw InputError("/layers/" + std::to_string(index) + "/family/passes: layer '" + lp.name + "' carries passes, but the workload folds it into group '" +
                           grp.members.front() + "' (only a group's primary layer has passes)");
      }
  }

  GroupSetup setup_group(std::size_t g) {
    const auto& grp = net_.groups[g];
    GroupSetup gs;
    gs.group = g;
    gs.layer = plan_index_.at(grp.members.front());
    const dsm::DsmLayerFields& lp = fields_[static_cast<std::size_t>(gs.layer)];
    const DsmLayer& L = grp.layer;

    std::vector<Pass> got;
    for (const auto& pp : lp.passes) got.push_back(pp.pass);
    const std::vector<Pass> want = expected_passes(L, o_.mode);
    std::multiset<Pass> got_set(got.begin(), got.end()), want_set(want.begin(), want.end());
    if (got_set != want_set || got.empty() || got.front() != Pass::fwd)
      throw InputError(where(g) + ": passes [" + pass_list(got) + "] do not match the workload (" +
                       std::string(o_.mode == plan::Mode::inference ? "inference"
                                   : L.first                        ? "training, first layer: no BWD"
                                                                    : "training") +
                       ": FWD first, then [" + pass_list(want) + "])");
    const dsm::DsmPassPlan& p0 = lp.passes.front();
    gs.split = p0.chip_split;
    gs.dysm = std::max(1, p0.dysm_factor);
    for (const auto& pp : lp.passes) {
      if (pp.chip_split != p0.chip_split || pp.dysm_factor != p0.dysm_factor)
        throw InputError(where(g) + ": every pass must have the same chip_split and dysm_factor (DeepSpatialMatrix §II-C: "
                         "the parallelism type fixes where the layer's data lives)");
      if (pp.pipe_group != p0.pipe_group || pp.chips != p0.chips)
        throw InputError(where(g) + ": every pass must have the same pipe_group and chips");
    }
    gs.sys = s_;
    gs.pipe = p0.pipe_group;
    if (p0.chips.empty()) {
      gs.chips = chips_;
    } else {
      // A pipelined layer runs on a block of whole torus rows (§III-D, timestep_pipeline.cpp try_pipeline).
      gs.chips = p0.chips;
      const int rows = static_cast<int>(gs.chips.size()) / s_.M;
      gs.first_row = gs.chips.front() / s_.M;
      bool block = rows >= 1 && static_cast<int>(gs.chips.size()) == rows * s_.M && gs.first_row + rows <= s_.N;
      for (std::size_t i = 0; block && i < gs.chips.size(); ++i)
        block = gs.chips[i] == gs.first_row * s_.M + static_cast<int>(i);
      if (!block)
        throw InputError(where(g) + ": chips must be whole rows of the torus, in order (DeepSpatialMatrix §III-D)");
      gs.sys = dsm::sub_torus(s_, rows);
    }
    gs.Ls = dsm::with_minibatch(L, ceil_div(L.mb, gs.dysm));
    gs.iterations = L.ts * gs.dysm;
    for (const auto& pp : lp.passes) {
      PassSetup ps;
      ps.pass = pp.pass;
      ps.plan = &pp;
      gs.passes.push_back(ps);
    }
    return gs;
  }

  const PassSetup* find(const GroupSetup& gs, Pass pass) const {
    for (const auto& ps : gs.passes)
      if (ps.pass == pass) return &ps;
    return nullptr;
  }

  /// Memory reuse (§III-B) as the search's state: reuse_in (this group's input held on chip) and
  /// reuse_out (its output held for the next group). In training FWD's flag is reuse_in and
  /// BWD/UPD's is reuse_out (chain_dp.cpp NetworkSearch::cost); in inference FWD's flag is reuse_in OR reuse_out,
  /// resolved with the neighbours (an edge is held on both of its sides).
  void decode_reuse(std::size_t g) {
    GroupSetup& gs = groups_[g];
    const bool fwd_flag = find(gs, Pass::fwd)->plan->memory_reuse;
    if (o_.mode == plan::Mode::training) {
      gs.reuse_in = fwd_flag;
      for (const auto& ps : gs.passes)
        if (ps.pass != Pass::fwd) gs.reuse_out = gs.reuse_out || ps.plan->memory_reuse;
      return;
    }
    // Inference: an edge is held on both of its sides; when both neighbours' flags are set the
    // edge is read as held (the search holds every edge it can, §III-B "aggressively").
    gs.reuse_in = g > 0 && groups_[g - 1].reuse_out;
    if (!fwd_flag || g + 1 >= groups_.size()) return;
    const auto& next = net_.groups[g + 1];
    const GroupSetup& ng = groups_[g + 1];
    gs.reuse_out = next.primary_producer == static_cast<std::ptrdiff_t>(g) && ng.split == gs.split &&
                   ng.dysm == gs.dysm && find(ng, Pass::fwd)->plan->memory_reuse;
  }

  /// The pass as the planner costed it, from the plan's own fields: the CoreD / ArrayD factors and
  /// the memory-reuse reading (preloaded weights, weights or gradient held across iterations). The
  /// work per core and per array the plan lists must follow from the factors.
  void resolve_pass(GroupSetup& gs, PassSetup& ps) {
    const dsm::DsmPassPlan& pp = *ps.plan;
    const DsmLayer& Ls = gs.Ls;
    const double e = gs.sys.bytes_per_element;
    const dsm::ChipFactors cf = dsm::chip_factors(gs.split, gs.sys.M, gs.sys.N);
    const double kernel_chip = dsm::fprod({Ls.in, ceil_div(Ls.out, cf.out), Ls.kij});
    ps.config = CoreConfig{pp.core_factors, pp.array_factors};
    {
      const dsm::WorkSplit w = dsm::work_split(Ls, gs.split, ps.config, gs.sys.M, gs.sys.N);
      if (!(w.core == pp.core_split) || !(w.array == pp.array_split))
        throw InputError(where(gs.group) + " pass " + plan::to_string(ps.pass) +
                         ": core_split / array_split are not the work the core_factors / array_factors give "
                         "(DeepSpatialMatrix Fig. 4; re-run simplan)");
    }
    PassFlags base = dsm::flags_for(ps.pass, gs.reuse_in, gs.reuse_out, o_.mode == plan::Mode::inference);
    if (pp.preloaded) base.fetch_b = false;  // weights preloaded (§III-B)
    ps.first_flags = base;
    ps.rest_flags = base;
    if (gs.iterations > 1 && Ls.primary) {  // pass_search.cpp best_pass
      PassFlags& rf = ps.rest_flags;
      if (ps.pass != Pass::upd) {
        if (pp.weights_held) rf.fetch_b = false;  // weights held across timesteps
      } else if (pp.weights_held) {
        rf.write_o = false;  // gradient accumulated on chip, written once
      } else {
        rf.extra_memory_bytes += kernel_chip * e;  // read back the partial gradient
      }
    }
    ps.first = dsm::evaluate_pass(Ls, ps.pass, gs.split, ps.config, ps.first_flags, gs.sys);
    ps.rest = dsm::evaluate_pass(Ls, ps.pass, gs.split, ps.config, ps.rest_flags, gs.sys);
    // Reads of one iteration (FetchInp + FetchKer + read-back): the memory term without WriteOut.
    auto reads_of = [&](PassFlags f) {
      f.write_o = false;
      return dsm::evaluate_pass(Ls, ps.pass, gs.split, ps.config, f, gs.sys).overlapped.memory;
    };
    ps.first_reads = reads_of(ps.first_flags);
    ps.rest_reads = reads_of(ps.rest_flags);
    ps.grad_bytes = Ls.primary ? kernel_chip * e * Ls.directions : 0.0;
    // Rotated chunk (layer_model.cpp evaluate_pass): the chip's own share of the input features.
    const dsm::WorkSplit w = dsm::work_split(Ls, gs.split, ps.config, gs.sys.M, gs.sys.N);
    const double ij_scale = static_cast<double>(Ls.ij_in) / static_cast<double>(Ls.ij);
    ps.chunk_bytes = dsm::fprod({w.chip.in, w.chip.mb, w.chip.ij}) * ij_scale / static_cast<double>(cf.out) * e;
  }

  // ---- building the Program ---------------------------------------------------------------------

  std::vector<program::Endpoint> compute_endpoints(int d) const {
    std::vector<program::Endpoint> v;
    if (!core_level_) return {{d, -1, false}};
    const int cores = c_.topology.cores_of(d);
    for (int c = 0; c < cores; ++c) v.push_back({d, c, false});
    return v;
  }

  /// A collective along one torus axis, `repeats` times in a row, with ring steps that repeat the
  /// same (src, dst) pairs merged into one transfer (module comment). Returns its last tasks.
  std::vector<int> axis_collective(const GroupSetup& gs, const std::string& name, const std::string& axis, double bytes,
                                   double repeats, int layer, Pass pass, const std::string& label,
                                   const std::vector<int>& after) {
    if (bytes <= 0 || repeats <= 0) return after;
    return add_merged(axis_schedule(gs, name, axis, bytes), repeats, layer, pass, label, after);
  }

  /// The device schedule of a collective along one torus axis over the group's chips: the whole
  /// torus (collectives::build_schedule), or for a pipelined group its block of rows treated as a
  /// torus (§III-D, timestep_pipeline.cpp try_pipeline): the X rings are its rows; along Y a ring over the
  /// block's rows in every column, closing from the last row back to the first over the real
  /// torus's routes.
  collectives::Schedule axis_schedule(const GroupSetup& gs, const std::string& name, const std::string& axis,
                                      double bytes) const {
    collectives::Request r;
    r.collective = name;
    r.axis = axis;
    r.bytes = bytes;
    collectives::Schedule full = collectives::build_schedule(r, chip_topology_);
    if (!gs.pipe) return full;
    collectives::Schedule sched;
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

  /// Several device schedules run one after the other, merged as above.
  std::vector<int> add_merged(const collectives::Schedule& sched, double repeats, int layer, Pass pass,
                              const std::string& label, const std::vector<int>& after) {
    const std::vector<StepRun> runs = step_runs(sched, c_.topology);
    // Repeating a schedule that is one run extends the run; otherwise the runs are repeated.
    collectives::Schedule merged;
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
      done = {program_.add_delay(layer, pass, label + " latency", removed_latency, done)};
      program_.add_merged_latency(done.front());
    }
    return done;
  }

  /// Bytes between chip d's external memory and its cores. At chip granularity one delay of
  /// memory latency + bytes / the memory bandwidth (add_memory_traffic). At core granularity two
  /// transfers of half the bytes, between the memory (on core 0's ring stop) and the core a quarter
  /// of the way round each side of the ring: the model's reading of the on-chip load (a tensor spread
  /// over the cores and multicast loads each of the two ring links next to the memory port with half
  /// of it, docs/model.md "Data transfers") with two flows per chip instead of one per core.
  void memory(int d, double bytes, bool to_memory, int layer, Pass pass, const std::string& label,
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

  /// A delay standing for on-chip traffic that has no link at chip granularity.
  void on_chip_delay(double seconds, int layer, Pass pass, const std::string& label, const std::vector<int>& after,
                     std::vector<int>& done) {
    if (seconds <= 0 || core_level_) return;
    done.push_back(program_.add_delay(layer, pass, label, seconds, after));
  }

  int join(int layer, Pass pass, const std::string& label, const std::vector<int>& after) {
    if (after.size() == 1) return after.front();
    return add_join(program_, layer, pass, label, after);
  }

  /// Rotation of the feature chunk along the model axes (seed 003 §II-D, RotateAlongX/Y): per
  /// iteration r.x steps along X and r.y along Y, each a neighbour rotation of the chunk; k
  /// iterations at once.
  std::vector<int> rotation(const GroupSetup& gs, const PassSetup& ps, double k, int layer,
                            const std::vector<int>& after) {
    const dsm::RotationSteps r = dsm::rotation_steps(gs.split, gs.sys.M, gs.sys.N);
    if (!gs.Ls.primary || r.x + r.y == 0 || ps.chunk_bytes <= 0) return after;
    std::vector<int> done = after;
    if (r.x > 0) done = axis_collective(gs, "rotate", "x", ps.chunk_bytes, k * r.x, layer, ps.pass, "rotate_x", done);
    if (r.y > 0) done = axis_collective(gs, "rotate", "y", ps.chunk_bytes, k * r.y, layer, ps.pass, "rotate_y", done);
    return done;
  }

  /// One segment: k identical iterations of a pass (TotCy x k, seed 003 §II-D).
  std::vector<int> segment(const GroupSetup& gs, const PassSetup& ps, const PassCost& c, double reads, double k,
                           const std::vector<int>& after) {
    const int layer = gs.layer;
    const Pass pass = ps.pass;
    const double writes = std::max(0.0, c.overlapped.memory - reads);
    const std::vector<int> from = after.empty() ? std::vector<int>{} : std::vector<int>{join(layer, pass, "start", after)};
    // MAX(PriComp, OvlDt): compute and the overlapped group start together.
    std::vector<int> group;
    for (int d : gs.chips) {
      if (c.pricomp > 0)
        for (const auto& ep : compute_endpoints(d))
          group.push_back(program_.add_compute(layer, pass, "compute", ep, k * c.pricomp, from));
      if (core_level_) {  // reads and writes use the two directions of the memory link
        memory(d, k * reads, false, layer, pass, "fetch", from, group);
        memory(d, k * writes, true, layer, pass, "writeout", from, group);
      } else {  // one memory port: FetchInp/FetchKer then WriteOut (the model sums them)
        std::vector<int> f;
        memory(d, k * reads, false, layer, pass, "fetch", from, f);
        memory(d, k * writes, true, layer, pass, "writeout", f.empty() ? from : f, f);
        if (!f.empty()) group.push_back(f.back());
      }
    }
    on_chip_delay(k * c.overlapped.on_chip / s_.chip.core_to_core_bandwidth, layer, pass, "onchip_load", from, group);
    if (pass != Pass::bwd) {
      const std::vector<int> rot = rotation(gs, ps, k, layer, from);
      if (rot != from) group.insert(group.end(), rot.begin(), rot.end());
    }
    if (group.empty()) return after;
    std::vector<int> done = {join(layer, pass, "overlap join", group)};
    // + AuxComp (SFPs; the arrays idle).
    if (c.aux > 0) {
      std::vector<int> aux;
      for (int d : gs.chips)
        for (const auto& ep : compute_endpoints(d))
          aux.push_back(program_.add_compute(layer, pass, "aux", ep, k * c.aux, done));
      done = {join(layer, pass, "aux join", aux)};
    }
    // + NonOvlDt: PartialSumAcc (core rings at core granularity, else a delay of the model's ring
    // reduce-scatter time), BWD rotation.
    if (c.partial_sum > 0) done = partial_sums(gs, c, k, layer, pass, done);
    if (pass == Pass::bwd) done = rotation(gs, ps, k, layer, done);
    return done;
  }

  /// The cores' PartialSumAcc (seed 003 Fig. 5). At core granularity on a ring chip, SimGrid flows:
  /// each group of `cores` consecutive cores reduce-scatters its tile on a ring, as one flow per
  /// neighbour pair carrying all of the ring's steps (rounds x (cores - 1) x tile / cores) and a
  /// delay for the per-step latencies the merge removes (lowering::step_runs' reading); the last
  /// member's flow back to the first crosses the group's cores - 1 hops the other way round. Groups
  /// use disjoint ring segments. Elsewhere: a delay of the model's time.
  std::vector<int> partial_sums(const GroupSetup& gs, const PassCost& c, double k, int layer, Pass pass,
                                const std::vector<int>& after) {
    if (!core_level_ || s_.chip.interconnect != topology::OnChipInterconnect::ring)
      return {program_.add_delay(layer, pass, "partial_sum", k * c.partial_sum, after)};
    std::vector<int> done;
    for (int ri = 0; ri < c.core_reduction_count; ++ri) {
      const dsm::CoreReduction& r = c.core_reductions[static_cast<std::size_t>(ri)];
      const long long n = r.cores;
      const double steps = static_cast<double>(r.rounds) * static_cast<double>(n - 1) * k;
      const double bytes = steps * r.tile_bytes / static_cast<double>(n);
      for (int d : gs.chips) {
        const int cores = c_.topology.cores_of(d);
        for (long long first = 0; first + n <= cores; first += n)
          for (long long i = 0; i < n; ++i) {
            const program::Endpoint src{d, static_cast<int>(first + i), false};
            const program::Endpoint dst{d, static_cast<int>(first + (i + 1) % n), false};
            int id = program_.add_transfer(layer, pass, "partial_sum", src, dst, bytes, after);
            if (steps > 1) {
              program_.add_merged_run({id}, steps);
              id = program_.add_delay(layer, pass, "partial_sum latency", (steps - 1) * s_.chip.on_chip_latency, {id});
              program_.add_merged_latency(id);
            }
            done.push_back(id);
          }
      }
    }
    if (done.empty()) return after;
    return {join(layer, pass, "partial_sum join", done)};
  }

  /// Gradient reduction and weight distribution (seed 003 §II-D, Fig. 5), pipelined over X and Y:
  /// ring all-reduce of G along X (reduce-scatter then all-gather) and of G / px along Y at the same
  /// time, with the memory (read partial gradient, write new weights) and on-chip parts.
  std::vector<int> gradient(const GroupSetup& gs, const PassSetup& ps, const std::vector<int>& after) {
    const dsm::ChipFactors cf = dsm::chip_factors(gs.split, gs.sys.M, gs.sys.N);
    const int px = cf.x_data ? gs.sys.M : 1;
    const int py = cf.y_data ? gs.sys.N : 1;
    const double G = ps.grad_bytes;
    if (px * py <= 1 || G <= 0) return after;
    const int layer = gs.layer;
    std::vector<int> group;
    auto ring = [&](const std::string& axis, double bytes) {
      collectives::Schedule a = axis_schedule(gs, "reduce_scatter", axis, bytes);
      const collectives::Schedule b = axis_schedule(gs, "all_gather", axis, bytes);
      const int offset = a.step_count;
      for (const auto& t : b.transfers) a.add(t.src, t.dst, t.bytes, t.step + offset);
      a.step_count = offset + b.step_count;
      const auto done = add_merged(a, 1, layer, Pass::upd, "grad_allreduce_" + axis, after);
      group.insert(group.end(), done.begin(), done.end());
    };
    if (px > 1) ring("x", G);
    if (py > 1) ring("y", G / px);
    for (int d : gs.chips) {
      if (core_level_) {
        memory(d, G, false, layer, Pass::upd, "grad_read", after, group);
        memory(d, G, true, layer, Pass::upd, "grad_write", after, group);
      } else {
        memory(d, 2 * G, false, layer, Pass::upd, "grad_memory", after, group);
      }
    }
    on_chip_delay(G / s_.chip.core_to_core_bandwidth, layer, Pass::upd, "grad_onchip", after, group);
    return {join(layer, Pass::upd, "grad join", group)};
  }

  /// Chip-to-chip relayout of producer p's output for group l (seed 003 §II-D RelayoutAlongX/Y):
  /// all-to-all of the chip's share along every axis whose split kind changes (X, then Y), with the
  /// memory (read the old layout, write the new) and on-chip parts, as one group.
  std::vector<int> relayout(std::size_t p, const GroupSetup& gs, Pass pass, const std::vector<int>& after) {
    const auto& P = net_.groups[p].layer;
    const ChipSplit from = groups_[p].split;
    const dsm::ChipFactors a = dsm::chip_factors(from, s_.M, s_.N);
    const dsm::ChipFactors b = dsm::chip_factors(gs.split, s_.M, s_.N);
    const bool change_x = a.x_data != b.x_data && s_.M > 1;
    const bool change_y = a.y_data != b.y_data && s_.N > 1;
    if (!change_x && !change_y) return after;
    const double per_chip = P.out_elements * static_cast<double>(P.ts) * s_.bytes_per_element / s_.chips();
    const int layer = gs.layer;
    std::vector<int> group;
    std::vector<int> chain = after;
    // On the whole torus (chain_dp.cpp NetworkSearch::relayout_time), also for a pipelined consumer.
    GroupSetup whole;
    whole.sys = s_;
    if (change_x) chain = axis_collective(whole, "all_to_all", "x", per_chip, 1, layer, pass, "relayout_x", chain);
    if (change_y) chain = axis_collective(whole, "all_to_all", "y", per_chip, 1, layer, pass, "relayout_y", chain);
    if (chain != after) group = chain;
    for (int d : chips_) {
      if (core_level_) {
        memory(d, per_chip, false, layer, pass, "relayout_read", after, group);
        memory(d, per_chip, true, layer, pass, "relayout_write", after, group);
      } else {
        memory(d, 2 * per_chip, false, layer, pass, "relayout_memory", after, group);
      }
    }
    on_chip_delay(per_chip / s_.chip.core_to_core_bandwidth, layer, pass, "relayout_onchip", after, group);
    return {join(layer, pass, "relayout join", group)};
  }

  /// Core-to-core relayout when memory reuse hands a tensor over in a different core layout
  /// (layer_model.hpp reuse_layouts_match, onchip_relayout_time; chain_dp.cpp with_producer). At core
  /// granularity on a ring chip, SimGrid flows carrying what the ring all-to-all puts on each
  /// directed ring link (every core to both neighbours: the same time uncontended, 2 x cores flows
  /// per chip instead of cores^2); elsewhere a delay.
  std::vector<int> onchip_relayout(const GroupSetup& gs, Pass pass, const std::vector<int>& after) {
    if (!gs.reuse_in || gs.group == 0 || pass == Pass::upd) return after;
    const GroupSetup& prev = groups_[gs.group - 1];
    const PassSetup* p = find(prev, pass);
    const PassSetup* c = find(gs, pass);
    if (!p || !c) return after;
    if (dsm::reuse_layouts_match(pass, p->config.core, c->config.core)) return after;
    const double t = dsm::onchip_relayout_time(net_.groups[gs.group - 1].layer, s_);
    if (t <= 0) return after;
    if (!core_level_ || s_.chip.interconnect != topology::OnChipInterconnect::ring)
      return {program_.add_delay(gs.layer, pass, "onchip_relayout", t, after)};
    const double link_bytes = t * s_.chip.core_to_core_bandwidth;  // onchip_relayout_time's load
    std::vector<int> done;
    for (int d : gs.chips) {
      const int cores = c_.topology.cores_of(d);
      for (int i = 0; i < cores && cores > 1; ++i)
        for (int step : {1, cores - 1}) {
          if (step == cores - 1 && cores == 2) continue;  // two cores: one link each way
          done.push_back(program_.add_transfer(gs.layer, pass, "onchip_relayout", {d, i, false},
                                               {d, (i + step) % cores, false}, link_bytes, after));
        }
    }
    if (done.empty()) return after;
    return {join(gs.layer, pass, "onchip_relayout join", done)};
  }

  /// Relayouts charged to group gs in `pass` (chain_dp.cpp charge_edges): every producer edge whose
  /// split differs, except the edge held on chip by memory reuse.
  std::vector<int> relayouts(const GroupSetup& gs, Pass pass, const std::vector<int>& after) {
    std::vector<int> done = after;
    for (std::size_t p : net_.groups[gs.group].producers) {
      if (gs.reuse_in && p + 1 == gs.group) continue;
      if (gs.pipe && groups_[p].pipe == gs.pipe) continue;  // handed on per timestep (lower_pipe)
      done = relayout(p, gs, pass, done);
    }
    return onchip_relayout(gs, pass, done);
  }

  /// All iterations of a pass: the first, then the later ones in one segment (or all in one when
  /// they are equal); a bidirectional LSTM does so once per direction, one after the other.
  std::vector<int> iterations(const GroupSetup& gs, const PassSetup& ps, const std::vector<int>& after) {
    const double n = static_cast<double>(gs.iterations);
    const bool equal = ps.first.total == ps.rest.total && ps.first_reads == ps.rest_reads &&
                       ps.first.overlapped.memory == ps.rest.overlapped.memory;
    if (equal || gs.iterations == 1) return segment(gs, ps, ps.first, ps.first_reads, n, after);
    const long long directions = std::min<long long>(gs.iterations, gs.Ls.directions);
    const double per_direction = n / static_cast<double>(directions);
    std::vector<int> done = after;
    for (long long d = 0; d < directions; ++d) {
      done = segment(gs, ps, ps.first, ps.first_reads, 1, done);
      if (per_direction > 1) done = segment(gs, ps, ps.rest, ps.rest_reads, per_direction - 1, done);
    }
    return done;
  }

  /// One pass of a pipe group (seed 003 §III-D, timestep_pipeline.cpp try_pipeline): every stage (layer) on its
  /// block of rows, all at once. Stage j starts after j cycles (the pipeline fills), runs its N_ts
  /// timesteps (segments as above), hands each timestep's output to the next stage over the M Y
  /// links between the blocks (not in UPD), and keeps the pace of the slowest stage: a stall delay
  /// makes it last N_ts cycles, a cycle being the slowest stage's time per timestep. The pass ends
  /// after (N_ts + G - 1) cycles; in UPD the stages' gradient reductions follow, concurrently.
  std::vector<int> lower_pipe(std::size_t begin, std::size_t end, Pass pass, const std::vector<int>& after) {
    // A pass the first stage does not have (BWD of a group starting at the first layer) is not
    // pipelined by the planner (try_pipeline pipelines the first stage's passes): each stage that
    // has it runs it on its own block, one after the other.
    if (!find(groups_[begin], pass)) {
      std::vector<int> done = after;
      for (std::size_t g = begin; g < end; ++g)
        if (find(groups_[g], pass)) done = lower_pass(groups_[g], pass, done);
      return done;
    }
    std::vector<int> start = after;
    if (pass == Pass::fwd)
      for (std::size_t g = begin; g < end; ++g) start = relayouts(groups_[g], pass, start);
    const std::size_t G = end - begin;
    std::vector<double> per_step(G), hand(G, 0.0);
    double cycle = 0;
    for (std::size_t j = 0; j < G; ++j) {
      const GroupSetup& gs = groups_[begin + j];
      const PassSetup& ps = *find(gs, pass);
      const double ts = static_cast<double>(gs.iterations);
      const DsmLayer& L = net_.groups[gs.group].layer;
      if (j + 1 < G && pass != Pass::upd)
        hand[j] = L.out_elements * s_.bytes_per_element / (s_.M * s_.bw_y) + s_.lat_y;
      per_step[j] = (ps.first.total + (ts - 1) * ps.rest.total) / ts + hand[j];
      cycle = std::max(cycle, per_step[j]);
    }
    std::vector<int> ends;
    for (std::size_t j = 0; j < G; ++j) {
      const GroupSetup& gs = groups_[begin + j];
      const PassSetup& ps = *find(gs, pass);
      const double ts = static_cast<double>(gs.iterations);
      std::vector<int> done = start;
      if (j > 0) done = {program_.add_delay(gs.layer, pass, "pipeline fill", static_cast<double>(j) * cycle, start)};
      done = iterations(gs, ps, done);
      if (hand[j] > 0) {
        // Each timestep's output, from the block's last row to the next block's first row, column by column.
        const GroupSetup& next = groups_[begin + j + 1];
        const DsmLayer& L = net_.groups[gs.group].layer;
        collectives::Schedule sched;
        for (int x = 0; x < s_.M; ++x)
          sched.add(x + s_.M * (gs.first_row + gs.sys.N - 1), x + s_.M * next.first_row,
                    L.out_elements * s_.bytes_per_element / s_.M, 0);
        done = add_merged(sched, ts, gs.layer, pass, "pipeline hand_on", done);
      }
      const double stall = ts * (cycle - per_step[j]);
      if (stall > 0) done = {program_.add_delay(gs.layer, pass, "pipeline stall", stall, done)};
      ends.insert(ends.end(), done.begin(), done.end());
    }
    std::vector<int> done = {join(groups_[begin].layer, pass, "pipe join", ends)};
    if (pass == Pass::upd) {
      std::vector<int> grads;
      for (std::size_t g = begin; g < end; ++g) {
        const auto t = gradient(groups_[g], *find(groups_[g], pass), done);
        grads.insert(grads.end(), t.begin(), t.end());
      }
      done = {join(groups_[begin].layer, pass, "pipe grad join", grads)};
    }
    if (pass == Pass::bwd)
      for (std::size_t g = begin; g < end; ++g) done = relayouts(groups_[g], pass, done);
    return done;
  }

  std::vector<int> lower_pass(const GroupSetup& gs, Pass pass, const std::vector<int>& after) {
    const PassSetup& ps = *find(gs, pass);
    std::vector<int> done = after;
    if (pass == Pass::fwd) done = relayouts(gs, pass, done);
    done = iterations(gs, ps, done);
    if (pass == Pass::upd) done = gradient(gs, ps, done);
    if (pass == Pass::bwd) done = relayouts(gs, pass, done);
    // One join closes the pass, so the next pass waits on one task.
    return {join(gs.layer, pass, "end", done)};
  }

  const Context& c_;
  DsmSystem s_;
  dsm::DsmOptions o_;
  dsm::GroupChain net_;
  bool core_level_ = false;
  /// Collectives are lowered on the chip-level graph at both granularities: at core granularity a
  /// chip's part of a ring step is one transfer between the chips' core-0 endpoints (node_of: the
  /// device is its core 0, where the external memory is), routed over the on-chip ring to the port
  /// core and on. Splitting every chip transfer into one per core pair (lower_to_nodes) was measured
  /// at 13-19 s and 20-30k activities/s for vgg16 b512 (issue 6 target: 3 s): 32 x the flows on
  /// every chip-to-chip link.
  topology::TopologyGraph chip_topology_;
  std::vector<dsm::DsmLayerFields> fields_;  // every plan layer's dsm fields, in plan order
  std::map<std::string, int> plan_index_;
  std::vector<GroupSetup> groups_;
  std::vector<int> chips_;
  program::Program program_;
};

}  // namespace

}  // namespace partsim::lowering

namespace partsim::dsm {

program::Program lower_dsm(const lowering::Context& context) {
  if (context.plan.strategy != "dsm")
    throw InputError("lower_dsm: plan strategy is '" + context.plan.strategy + "', not dsm");
  return lowering::DsmLowerer(context).run();
}

}  // namespace partsim::dsm
