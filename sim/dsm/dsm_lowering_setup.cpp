// DsmLowerer: reading a dsm plan: its per-layer fields checked against the workload, each group's
// DySM factor, chips and reuse flags, and each pass's PassCost as the planner charged it.

#include "sim/dsm/dsm_lowerer.hpp"

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
#include "sim/lowering/lowering.hpp"
#include "sim/lowering/task_builders.hpp"

namespace partsim::lowering::dsm_detail {
namespace {

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

}  // namespace

DsmLowerer::DsmLowerer(const Context& c)
    : c_(c),
      s_(dsm::make_dsm_system(c.spec)),
      o_(dsm::parse_dsm_options({option_of(c.plan, "opt")})),
      net_(dsm::build_group_chain(c.workload)),
      core_level_(c.topology.granularity() == topology::Granularity::core),
      chip_topology_(c.spec, topology::Granularity::chip) {
  o_.mode = c.plan.workload.mode;
}

std::string DsmLowerer::where(std::size_t g) const {
  // The JSON path of the group's passes in plan.json; the program prefixes the plan's file name.
  const std::string& layer = net_.groups[g].members.front();
  return "/layers/" + std::to_string(plan_index_.at(layer)) + "/family/passes: layer '" + layer + "'";
}

void DsmLowerer::check_layers() {
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

GroupSetup DsmLowerer::setup_group(std::size_t g) {
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

const PassSetup* DsmLowerer::find(const GroupSetup& gs, Pass pass) const {
  for (const auto& ps : gs.passes)
    if (ps.pass == pass) return &ps;
  return nullptr;
}

void DsmLowerer::decode_reuse(std::size_t g) {
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

void DsmLowerer::resolve_pass(GroupSetup& gs, PassSetup& ps) {
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

}  // namespace partsim::lowering::dsm_detail
