// DsmLowerer: reading a dsm plan: its per-layer fields checked against the workload, each group's
// DySM factor, chips and reuse flags, and each pass's work per iteration (IterationWork) from the
// plan's work split, the device model and the plan's memory-reuse decisions.

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
#include "sim/common/integer_math.hpp"
#include "sim/common/text.hpp"
#include "sim/devices/pe_array.hpp"
#include "sim/planners/dsm/hardware.hpp"
#include "sim/planners/dsm/layer_model.hpp"
#include "sim/planners/dsm/pass_geometry.hpp"
#include "sim/planners/dsm/group_chain.hpp"
#include "sim/planners/dsm/pass_search.hpp"
#include "sim/planners/dsm/search.hpp"
#include "sim/planners/dsm/transfers.hpp"
#include "sim/planners/dsm/plan_fields.hpp"
#include "sim/lowering/lowering.hpp"

namespace partsim::dsm::lowering_detail {
namespace {

std::string pass_list(const std::vector<Pass>& passes) {
  const std::string s = join(passes, [](Pass p) { return plan::to_string(p); });
  return s.empty() ? "none" : s;
}

}  // namespace

DsmLowerer::DsmLowerer(const Context& c)
    : c_(c),
      s_(make_dsm_system(c.spec)),
      net_(build_group_chain(c.workload)),
      core_level_(c.topology.granularity() == topology::Granularity::core),
      chip_topology_(c.spec, topology::Granularity::chip) {}

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
  const DsmLayerFields& lp = fields_[static_cast<std::size_t>(gs.layer)];
  const DsmLayer& L = grp.layer;

  std::vector<Pass> got;
  for (const auto& pp : lp.passes) got.push_back(pp.pass);
  // The passes a group must have depend on the mode (and the group), not on which optimisations
  // the search was allowed: memreuse only reorders them, and this check ignores the order.
  DsmOptions mode_only;
  mode_only.mode = mode();
  const std::vector<Pass> want = detail::passes_of(L, mode_only);  // the search's passes, in any order
  std::multiset<Pass> got_set(got.begin(), got.end()), want_set(want.begin(), want.end());
  if (got_set != want_set || got.empty() || got.front() != Pass::fwd)
    throw InputError(where(g) + ": passes [" + pass_list(got) + "] do not match the workload (" +
                     std::string(mode() == plan::Mode::inference ? "inference"
                                 : L.first                        ? "training, first layer: no BWD"
                                                                  : "training") +
                     ": FWD first, then [" + pass_list(want) + "])");
  const DsmPassPlan& p0 = lp.passes.front();
  gs.split = p0.chip_split;
  gs.dysm = std::max(1, p0.dysm_factor);
  gs.reuse_in = p0.reuse_in;
  gs.reuse_out = p0.reuse_out;
  for (const auto& pp : lp.passes) {
    if (pp.chip_split != p0.chip_split || pp.dysm_factor != p0.dysm_factor)
      throw InputError(where(g) + ": every pass must have the same chip_split and dysm_factor (DeepSpatialMatrix §II-C: "
                       "the parallelism type fixes where the layer's data lives)");
    if (pp.reuse_in != p0.reuse_in || pp.reuse_out != p0.reuse_out)
      throw InputError(where(g) + ": every pass must have the same reuse_in and reuse_out (DeepSpatialMatrix §III-B: "
                       "a held edge is held for the whole step)");
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
    gs.sys = sub_torus(s_, rows);
  }
  gs.Ls = with_minibatch(L, ceil_div(L.mb, gs.dysm));
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

void DsmLowerer::resolve_pass(GroupSetup& gs, PassSetup& ps) {
  const DsmPassPlan& pp = *ps.plan;
  const DsmLayer& Ls = gs.Ls;
  const double e = gs.sys.bytes_per_element;
  ps.config = CoreConfig{pp.core_factors, pp.array_factors};
  {
    const WorkSplit w = work_split(Ls, gs.split, ps.config, gs.sys.M, gs.sys.N);
    if (!(w.core == pp.core_split) || !(w.array == pp.array_split))
      throw InputError(where(gs.group) + " pass " + plan::to_string(ps.pass) +
                       ": core_split / array_split are not the work the core_factors / array_factors give "
                       "(DeepSpatialMatrix Fig. 4; re-run simplan)");
  }
  // The memory traffic the plan's reuse decisions leave (§III-B): held edges, preloaded weights,
  // and in later iterations the weights or the gradient held (weights_held, as the search chose).
  PassFlags first = flags_for(ps.pass, gs.reuse_in, gs.reuse_out, mode() == plan::Mode::inference);
  if (pp.preloaded) first.fetch_b = false;  // weights preloaded (§III-B)
  const Split5 chip = chip_work(Ls, gs.split, gs.sys.M, gs.sys.N);
  const double kernel_chip = fprod({chip.in, chip.out, chip.kij});  // elements of the chip's kernel share
  PassFlags rest = first;
  if (gs.iterations > 1 && Ls.primary) rest = later_iteration_flags(first, ps.pass, pp.weights_held, kernel_chip * e);
  ps.first = work_of(gs, ps, first);
  ps.rest = work_of(gs, ps, rest);
  ps.grad_bytes = Ls.primary ? kernel_chip * e * Ls.directions : 0.0;
  ps.chunk_bytes = pass_operands(Ls, ps.pass, gs.split, pp.core_factors, first, gs.sys.M, gs.sys.N).chunk * e;
}

IterationWork DsmLowerer::work_of(const GroupSetup& gs, const PassSetup& ps, const PassFlags& flags) const {
  const DsmPassPlan& pp = *ps.plan;
  const DsmLayer& Ls = gs.Ls;
  const topology::CoreSpec& core = gs.sys.chip.core;
  const double e = gs.sys.bytes_per_element;
  IterationWork w;
  // PriComp: the PE-array model of one array's work (ArrayD), at the core's clock (§II-D).
  if (Ls.primary) {
    const Split5& a = pp.array_split;
    w.pricomp_s = devices::pricomp_cycles({a.in, a.out, a.ij, a.kij, a.mb}, ps.pass, core) / core.frequency_hz;
  }
  // AuxComp: every op's values spread evenly over the chips and cores, on the SFPs.
  const double units = static_cast<double>(gs.sys.chips()) * gs.sys.cores();
  for (const AuxOp& op : Ls.aux[static_cast<std::size_t>(ps.pass)])
    w.aux_s += devices::sfu_seconds(op.elements / units, op.ops, op.accesses, e, core);
  // The chip's tensors to and from its external memory, and the on-chip load they make.
  const PassOperands o = pass_operands(Ls, ps.pass, gs.split, pp.core_factors, flags, gs.sys.M, gs.sys.N);
  w.read_bytes = (o.read_a + o.read_b + o.extra) * e + flags.extra_memory_bytes;
  w.write_bytes = o.write_o * e;
  w.on_chip_bytes = on_chip_link_bytes(o, e, gs.sys.cores());
  w.reductions = core_reductions(Ls, ps.pass, pp.core_split, pp.core_factors, e);
  return w;
}

}  // namespace partsim::dsm::lowering_detail
