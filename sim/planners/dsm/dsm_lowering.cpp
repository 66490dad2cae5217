// Lowering of DeepSpatialMatrix plans (seed 003). docs/model.md "Lowering of dsm plans" gives the
// readings; in short:
// - Per group (a primary layer and its folded auxiliary layers) and pass the lowering derives, from
//   the plan's ChipD / CoreD / ArrayD work, DySM factor and memory-reuse decisions, what one
//   iteration does on each chip (IterationWork: PE-array and SFP time from the device model,
//   sim/devices/pe_array.hpp; the chip's memory traffic; what its cores reduce), never the planner's
//   cost (DESIGN.md principle 1), and describes the events of seed 003 §II-D: PriComp beside the
//   overlapped transfers, then AuxComp, then the non-overlapped ones.
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
#include "sim/collectives/formulas.hpp"
#include "sim/common/error.hpp"
#include "sim/planners/dsm/hardware.hpp"
#include "sim/planners/dsm/layer_model.hpp"
#include "sim/planners/dsm/pass_geometry.hpp"
#include "sim/planners/dsm/group_chain.hpp"
#include "sim/planners/dsm/search.hpp"
#include "sim/planners/dsm/dsm_lowerer.hpp"
#include "sim/planners/dsm/transfers.hpp"
#include "sim/planners/dsm/plan_fields.hpp"
#include "sim/planners/dsm/registration.hpp"
#include "sim/lowering/lowering.hpp"
#include "sim/plan/json_reader.hpp"
#include "sim/program/closed_form.hpp"
#include "sim/program/platform_binding.hpp"

namespace partsim::dsm::lowering_detail {

program::Program DsmLowerer::run() {
  for (std::size_t i = 0; i < c_.plan.layers.size(); ++i)
    fields_.push_back(dsm_fields_from(
        plan::JsonReader(c_.plan.layers[i].family, "/layers/" + std::to_string(i) + "/family", "dsm plan")));
  check_layers();
  program_.set_task_limit(c_.max_tasks);
  for (const auto& layer : c_.plan.layers) program_.add_layer(layer.name);
  for (int d = 0; d < s_.chips(); ++d) chips_.push_back(d);
  for (std::size_t g = 0; g < net_.groups.size(); ++g) groups_.push_back(setup_group(g));
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
  if (mode() == plan::Mode::training)
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

// ---- building the Program ---------------------------------------------------------------------

std::vector<int> DsmLowerer::segment(const GroupSetup& gs, const PassSetup& ps, const IterationWork& w, double k,
                                     const std::vector<int>& after) {
  const int layer = gs.layer;
  const Pass pass = ps.pass;
  const std::vector<int> from = after.empty() ? std::vector<int>{} : std::vector<int>{join(layer, pass, "start", after)};
  // PriComp and the overlapped data transfers start together.
  std::vector<int> group;
  for (int d : gs.chips) {
    if (w.pricomp_s > 0)
      for (const auto& ep : compute_endpoints(d))
        group.push_back(program_.add_compute(layer, pass, "compute", ep, k * w.pricomp_s, from));
    if (core_level_) {  // reads and writes use the two directions of the memory link
      memory(d, k * w.read_bytes, false, layer, pass, "fetch", from, group);
      memory(d, k * w.write_bytes, true, layer, pass, "writeout", from, group);
    } else {  // one memory port: FetchInp/FetchKer then WriteOut
      std::vector<int> f;
      memory(d, k * w.read_bytes, false, layer, pass, "fetch", from, f);
      memory(d, k * w.write_bytes, true, layer, pass, "writeout", f.empty() ? from : f, f);
      if (!f.empty()) group.push_back(f.back());
    }
  }
  on_chip_delay(k * w.on_chip_bytes / s_.chip.core_to_core_bandwidth, layer, pass, "onchip_load", from, group);
  if (pass != Pass::bwd) {
    const std::vector<int> rot = rotation(gs, ps, k, layer, from);
    if (rot != from) group.insert(group.end(), rot.begin(), rot.end());
  }
  if (group.empty()) return after;
  std::vector<int> done = {join(layer, pass, "overlap join", group)};
  // Then AuxComp (SFPs; the arrays idle).
  if (w.aux_s > 0) {
    std::vector<int> aux;
    for (int d : gs.chips)
      for (const auto& ep : compute_endpoints(d))
        aux.push_back(program_.add_compute(layer, pass, "aux", ep, k * w.aux_s, done));
    done = {join(layer, pass, "aux join", aux)};
  }
  // Then the non-overlapped transfers: PartialSumAcc (core rings at core granularity, else a delay of
  // the on-chip ring reduce-scatter), the BWD rotation.
  done = partial_sums(gs, w.reductions, k, layer, pass, done);
  if (pass == Pass::bwd) done = rotation(gs, ps, k, layer, done);
  return done;
}

std::vector<int> DsmLowerer::partial_sums(const GroupSetup& gs, const CoreReductions& reductions, double k, int layer,
                                          Pass pass, const std::vector<int>& after) {
  if (!core_level_ || s_.chip.interconnect != topology::OnChipInterconnect::ring) {
    // Each reduction: `rounds` reduce-scatters on a one-way ring of its cores (collectives' closed form).
    double seconds = 0;
    for (int i = 0; i < reductions.count; ++i) {
      const CoreReduction& r = reductions.items[static_cast<std::size_t>(i)];
      const collectives::AxisRing ring{static_cast<int>(r.cores), s_.chip.on_chip_latency,
                                       s_.chip.core_to_core_bandwidth, false};
      seconds += r.rounds * collectives::ring_reduce_scatter_time(ring, r.tile_bytes);
    }
    if (seconds <= 0) return after;
    return {program_.add_delay(layer, pass, "partial_sum", k * seconds, after, program::Endpoint::several_devices())};
  }
  std::vector<int> done;
  for (int ri = 0; ri < reductions.count; ++ri) {
    const CoreReduction& r = reductions.items[static_cast<std::size_t>(ri)];
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
            id = program_.add_delay(layer, pass, "partial_sum latency", (steps - 1) * s_.chip.on_chip_latency, {id}, {d, -1, false});
            program_.add_merged_latency(id);
          }
          done.push_back(id);
        }
    }
  }
  if (done.empty()) return after;
  return {join(layer, pass, "partial_sum join", done)};
}

std::vector<int> DsmLowerer::gradient(const GroupSetup& gs, const PassSetup& ps, const std::vector<int>& after) {
  const ChipFactors cf = chip_factors(gs.split, gs.sys.M, gs.sys.N);
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
    a.what.kind = collectives::Kind::all_reduce;  // a reduce-scatter then an all-gather
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

double DsmLowerer::chip_share_bytes(const DsmLayer& producer) const {
  return producer.out_elements * static_cast<double>(producer.ts) * s_.bytes_per_element / s_.chips();
}

std::vector<int> DsmLowerer::relayout(std::size_t p, const GroupSetup& gs, Pass pass, const std::vector<int>& after) {
  const auto& P = net_.groups[p].layer;
  const ChipSplit from = groups_[p].split;
  const ChipFactors a = chip_factors(from, s_.M, s_.N);
  const ChipFactors b = chip_factors(gs.split, s_.M, s_.N);
  const bool change_x = a.x_data != b.x_data && s_.M > 1;
  const bool change_y = a.y_data != b.y_data && s_.N > 1;
  if (!change_x && !change_y) return after;
  const double per_chip = chip_share_bytes(P);
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

std::vector<int> DsmLowerer::onchip_relayout(const GroupSetup& gs, Pass pass, const std::vector<int>& after) {
  if (!gs.reuse_in || gs.group == 0 || pass == Pass::upd) return after;
  const GroupSetup& prev = groups_[gs.group - 1];
  const PassSetup* p = find(prev, pass);
  const PassSetup* c = find(gs, pass);
  if (!p || !c) return after;
  if (reuse_layouts_match(pass, p->config.core, c->config.core)) return after;
  // The producer's output share of the chip, all-to-all over the cores on the bidirectional ring:
  // what it puts on each directed ring link (transfers.hpp ring_all_to_all_link_bytes).
  const double share = chip_share_bytes(net_.groups[gs.group - 1].layer);
  const double link_bytes = ring_all_to_all_link_bytes(share, s_.cores(), true);
  if (link_bytes <= 0) return after;
  if (!core_level_ || s_.chip.interconnect != topology::OnChipInterconnect::ring) {
    const double seconds = link_bytes / s_.chip.core_to_core_bandwidth;
    return {program_.add_delay(gs.layer, pass, "onchip_relayout", seconds, after, program::Endpoint::several_devices())};
  }
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

std::vector<int> DsmLowerer::relayouts(const GroupSetup& gs, Pass pass, const std::vector<int>& after) {
  std::vector<int> done = after;
  for (std::size_t p : net_.groups[gs.group].producers) {
    if (gs.reuse_in && p + 1 == gs.group) continue;
    if (gs.pipe && groups_[p].pipe == gs.pipe) continue;  // handed on per timestep (lower_pipe)
    done = relayout(p, gs, pass, done);
  }
  return onchip_relayout(gs, pass, done);
}

std::vector<int> DsmLowerer::iterations(const GroupSetup& gs, const PassSetup& ps, const std::vector<int>& after) {
  const double n = static_cast<double>(gs.iterations);
  if (ps.first == ps.rest || gs.iterations == 1) return segment(gs, ps, ps.first, n, after);
  const long long directions = std::min<long long>(gs.iterations, gs.Ls.directions);
  const double per_direction = n / static_cast<double>(directions);
  std::vector<int> done = after;
  for (long long d = 0; d < directions; ++d) {
    done = segment(gs, ps, ps.first, 1, done);
    if (per_direction > 1) done = segment(gs, ps, ps.rest, per_direction - 1, done);
  }
  return done;
}

std::vector<int> DsmLowerer::lower_pipe(std::size_t begin, std::size_t end, Pass pass, const std::vector<int>& after) {
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
  const auto next_of = [&](std::size_t j) -> std::optional<std::size_t> {
    if (j + 1 < G && pass != Pass::upd) return begin + j + 1;
    return std::nullopt;
  };
  std::vector<double> per_step(G);
  double cycle = 0;
  for (std::size_t j = 0; j < G; ++j) {
    per_step[j] = stage_step_time(begin + j, next_of(j), pass);
    cycle = std::max(cycle, per_step[j]);
  }
  std::vector<int> ends;
  for (std::size_t j = 0; j < G; ++j) {
    const GroupSetup& gs = groups_[begin + j];
    const double ts = static_cast<double>(gs.iterations);
    std::vector<int> done = start;
    if (j > 0)
      done = {program_.add_delay(gs.layer, pass, "pipeline fill", static_cast<double>(j) * cycle, start,
                                 program::Endpoint::several_devices())};
    done = pipe_stage(begin + j, next_of(j), pass, done);
    const double stall = ts * (cycle - per_step[j]);
    if (stall > 0) done = {program_.add_delay(gs.layer, pass, "pipeline stall", stall, done, program::Endpoint::several_devices())};
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

std::vector<int> DsmLowerer::pipe_stage(std::size_t g, std::optional<std::size_t> next, Pass pass,
                                        const std::vector<int>& after) {
  const GroupSetup& gs = groups_[g];
  std::vector<int> done = iterations(gs, *find(gs, pass), after);
  if (!next) return done;
  // Each timestep's output, from the block's last row to the next block's first row, column by column.
  const GroupSetup& ng = groups_[*next];
  const DsmLayer& L = net_.groups[gs.group].layer;
  collectives::Schedule sched;
  for (int x = 0; x < s_.M; ++x)
    sched.add(x + s_.M * (gs.first_row + gs.sys.N - 1), x + s_.M * ng.first_row,
              L.out_elements * s_.bytes_per_element / s_.M, 0);
  return add_merged(sched, static_cast<double>(gs.iterations), gs.layer, pass, "pipeline hand_on", done);
}

double DsmLowerer::stage_step_time(std::size_t g, std::optional<std::size_t> next, Pass pass) {
  program::Program scratch;
  for (const auto& name : program_.layer_names()) scratch.add_layer(name);
  std::swap(scratch, program_);
  pipe_stage(g, next, pass, {});
  std::swap(scratch, program_);
  program::ClosedFormEvaluator closed(program::uncontended_transfer_time(c_.topology));
  return closed.evaluate(scratch).makespan_s / static_cast<double>(groups_[g].iterations);
}

std::vector<int> DsmLowerer::lower_pass(const GroupSetup& gs, Pass pass, const std::vector<int>& after) {
  const PassSetup& ps = *find(gs, pass);
  std::vector<int> done = after;
  if (pass == Pass::fwd) done = relayouts(gs, pass, done);
  done = iterations(gs, ps, done);
  if (pass == Pass::upd) done = gradient(gs, ps, done);
  if (pass == Pass::bwd) done = relayouts(gs, pass, done);
  // One join closes the pass, so the next pass waits on one task.
  return {join(gs.layer, pass, "end", done)};
}

}  // namespace partsim::dsm::lowering_detail

namespace partsim::dsm {

program::Program lower_dsm(const lowering::Context& context) {
  if (context.plan.strategy != "dsm")
    throw InputError("lower_dsm: plan strategy is '" + context.plan.strategy + "', not dsm");
  return lowering_detail::DsmLowerer(context).run();
}

}  // namespace partsim::dsm
