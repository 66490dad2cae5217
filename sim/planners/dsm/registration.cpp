#include "sim/planners/dsm/registration.hpp"

#include <nlohmann/json.hpp>
#include <cstdio>
#include <sstream>

#include "sim/common/error.hpp"
#include "sim/common/integer_math.hpp"
#include "sim/common/text.hpp"
#include "sim/planners/dsm/footprint.hpp"
#include "sim/planners/dsm/notation.hpp"

namespace partsim::dsm {

namespace {

plan::PredictedCost predicted_of(const std::map<std::string, double>& bd, double total) {
  plan::PredictedCost p;
  p.total_s = total;
  p.compute_s = bd.at("mac_busy_s") + bd.at("array_underuse_s") + bd.at("auxiliary_s");
  p.comm_s = bd.at("overlap_not_hidden_s") + bd.at("non_overlapped_s");
  p.breakdown = bd;
  return p;
}

/// The dsm fields of every layer, decoded strictly (InputError naming the file and JSON path).
std::vector<DsmLayerFields> fields_of(const plan::Plan& plan, const std::string& file) {
  std::vector<DsmLayerFields> out;
  for (std::size_t i = 0; i < plan.layers.size(); ++i)
    out.push_back(dsm_fields_from(plan::JsonReader(plan.layers[i].family, "/layers/" + std::to_string(i) + "/family", file)));
  return out;
}

void check_dsm_plan(const plan::Plan& plan, const topology::SystemSpec& spec, const workloads::Graph&,
                    const std::string& file) {
  const DsmSystem s = make_dsm_system(spec);
  const std::vector<DsmLayerFields> fields = fields_of(plan, file);
  for (std::size_t i = 0; i < fields.size(); ++i) {
    for (std::size_t k = 0; k < fields[i].passes.size(); ++k) {
      const auto& pp = fields[i].passes[k];
      const std::string where = file + ": /layers/" + std::to_string(i) + "/family/passes/" + std::to_string(k);
      if (product(pp.core_factors) != s.cores())
        throw InputError(where + "/core_factors: must multiply to the " + std::to_string(s.cores()) +
                         " cores of a chip (DeepSpatialMatrix §II-E)");
      if (product(pp.array_factors) != std::max(1, s.chip.core.arrays))
        throw InputError(where + "/array_factors: must multiply to the " + std::to_string(s.chip.core.arrays) +
                         " PE arrays of a core (DeepSpatialMatrix §II-E)");
      for (int c : pp.chips)
        if (c < 0 || c >= s.chips())
          throw InputError(where + "/chips: chip " + std::to_string(c) + " does not exist (" +
                           std::to_string(s.chips()) + " chips)");
    }
  }
}

/// The chips' sharding of a group (seed 003 §II-C, §III-A): devices x + M*y, rows (Y) outermost.
plan::Sharding chip_sharding(ChipSplit split, const std::vector<int>& chips, int M) {
  const int rows = static_cast<int>(chips.size()) / std::max(1, M);
  using plan::ShardDim;
  switch (split) {
    case ChipSplit::data: return plan::mesh_sharding(chips, {{ShardDim::batch, rows * M}});
    case ChipSplit::model: return plan::mesh_sharding(chips, {{ShardDim::out_channels, rows * M}});
    case ChipSplit::data_x_model_y:
      return plan::mesh_sharding(chips, {{ShardDim::out_channels, rows}, {ShardDim::batch, M}});
    case ChipSplit::model_x_data_y:
      return plan::mesh_sharding(chips, {{ShardDim::batch, rows}, {ShardDim::out_channels, M}});
  }
  return {};
}

}  // namespace

planner::OptionBindings<DsmOptions> option_bindings() {
  planner::OptionBindings<DsmOptions> b;
  b.add({"opt", planner::OptionType::words, "all",
         "optimizations (§III): hybrid parallelism, memory reuse, dynamic spatial minibatching, "
         "timestep pipelining",
         {"hybrid", "memreuse", "dysm", "tpipe"}, {}},
        [](DsmOptions& o, const planner::OptionValue& v) {
          const DsmOptions words = parse_dsm_options({v.text()});  // sets the four switches only
          o.hybrid = words.hybrid;
          o.memreuse = words.memreuse;
          o.dysm = words.dysm;
          o.tpipe = words.tpipe;
        });
  return b;
}

DsmOptions options_from(const planner::StrategyOptions& options, plan::Mode mode) {
  DsmOptions o = option_bindings().read(options);
  o.mode = mode;
  return o;
}

plan::Plan make_dsm_plan(const planner::PlanInputs& in) {
  const DsmSystem s = make_dsm_system(in.spec);
  const DsmOptions o = options_from(in.resolved, in.mode);
  const GroupChain net = build_group_chain(in.graph);
  const DsmResult r = search_network(net, s, o);

  std::map<std::string, std::size_t> group_of;
  for (std::size_t g = 0; g < net.groups.size(); ++g)
    for (const auto& m : net.groups[g].members) group_of[m] = g;
  std::vector<int> all_chips(static_cast<std::size_t>(s.chips()));
  for (int d = 0; d < s.chips(); ++d) all_chips[static_cast<std::size_t>(d)] = d;

  plan::Plan p;
  p.predicted_iteration_s = r.iteration_s;
  std::vector<GroupPlacement> placement;
  for (const LayerChoice& lc : r.layers)
    placement.push_back({lc.split, lc.chips.empty() ? s.chips() : static_cast<int>(lc.chips.size())});
  p.memory = memory_footprint(net, placement, s, o.mode == plan::Mode::training);
  for (const auto& layer : in.graph.layers()) {
    plan::LayerPlan lp;
    lp.name = layer.name;
    auto it = group_of.find(layer.name);
    // A layer outside every group (a graph input) is spread like data parallelism.
    const LayerChoice* lc_of = it == group_of.end() ? nullptr : &r.layers[it->second];
    lp.sharding = chip_sharding(lc_of ? lc_of->split : ChipSplit::data,
                                lc_of && !lc_of->chips.empty() ? lc_of->chips : all_chips, s.M);
    if (!lc_of || lc_of->chips.empty()) lp.sharding.devices.clear();  // every chip, by index
    if (it != group_of.end() && net.groups[it->second].members.front() == layer.name) {
      const LayerChoice& lc = r.layers[it->second];
      const DsmLayer& L = net.groups[it->second].layer;
      const DsmLayer Ls = with_minibatch(L, ceil_div(L.mb, lc.dysm_factor));
      std::map<std::string, double> layer_bd;
      DsmLayerFields fields;
      for (const PassChoice& pc : lc.passes) {
        DsmPassPlan pp;
        pp.pass = pc.pass;
        pp.chip_split = lc.split;
        // A pipelined layer works on its own M x rows block of the torus (§III-D).
        const int M = s.M;
        const int N = lc.pipe_group ? static_cast<int>(lc.chips.size()) / std::max(1, M) : s.N;
        const WorkSplit w = work_split(Ls, lc.split, pc.config, M, N);
        pp.core_factors = pc.config.core;
        pp.array_factors = pc.config.array;
        pp.core_split = w.core;
        pp.array_split = w.array;
        pp.dysm_factor = lc.dysm_factor;
        pp.memory_reuse = pc.memory_reuse;
        pp.reuse_in = lc.reuse_in;
        pp.reuse_out = lc.reuse_out;
        pp.weight_reuse = pc.weight_reuse;
        pp.preloaded = pc.preloaded;
        pp.weights_held = pc.weights_held;
        pp.pipe_group = lc.pipe_group;
        pp.chips = lc.chips;
        const auto bd = pc.breakdown();
        lp.passes.push_back({pc.pass, predicted_of(bd, pc.total_s)});
        for (const auto& [k, v] : bd) layer_bd[k] += v;
        fields.passes.push_back(pp);
      }
      *lp.family = to_json(fields);
      if (!layer_bd.empty()) lp.predicted = predicted_of(layer_bd, lc.total_s);
      lp.predicted.total_s = lc.total_s;
    }
    p.layers.push_back(std::move(lp));
  }
  return p;
}

std::string explain_text(const planner::PlanInputs& in, const std::string& layer, int top) {
  const DsmSystem s = make_dsm_system(in.spec);
  const DsmOptions o = options_from(in.resolved, in.mode);
  const GroupChain net = build_group_chain(in.graph);
  std::size_t group = net.groups.size();
  for (std::size_t g = 0; g < net.groups.size() && group == net.groups.size(); ++g)
    for (const auto& m : net.groups[g].members)
      if (m == layer) group = g;
  if (group == net.groups.size()) {
    throw UnknownNameError("layer", layer, join(net.groups, [](const auto& g) { return g.members.front(); }));
  }
  const DsmLayer& L = net.groups[group].layer;
  std::ostringstream out;
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "layer %s (group of %zu workload layers): N_in %lld N_out %lld N_ij %lld (in %lld) N_kij %lld "
                "N_mb %lld N_ts %lld\n",
                L.name.c_str(), net.groups[group].members.size(), L.in, L.out, L.ij, L.ij_in, L.kij, L.mb, L.ts);
  out << buf;
  out << "Times in microseconds for the whole pass (all timesteps and spatial minibatches), without\n"
         "relayout and memory reuse (those depend on the neighbours; see the plan). TotCy = max(PriComp,\n"
         "OvlDt) + AuxComp + NonOvlDt (+ gradient reduction in UPD). CoreD as split factors.\n"
         "Legend (DeepSpatialMatrix, Venkataramani et al. HiPC 2019, §II-§III): ChipD how the layer is split\n"
         "over chips (dimension x chips); DySM dynamic spatial minibatching factor (the minibatch processed\n"
         "in that many spatial slices); CoreD the split over a chip's cores; PriComp primary computation on\n"
         "the PE arrays; OvlDt data transfers overlapped with it; AuxComp auxiliary computation on the\n"
         "special-function units; NonOvlDt transfers not overlapped; GradRed gradient reduction; TotCy the\n"
         "total; util MACs over the peak in that time.\n";
  for (Pass pass : {Pass::fwd, Pass::bwd, Pass::upd}) {
    if (in.mode == plan::Mode::inference && pass != Pass::fwd) continue;
    const auto rows = explain_layer(net, group, pass, s, o, top);
    out << "\n" << plan::to_string(pass) << "\n";
    std::snprintf(buf, sizeof buf, "%-3s %-15s %-4s %-22s %10s %10s %10s %10s %10s %10s %6s\n", "#", "ChipD", "DySM",
                  "CoreD factors", "PriComp", "OvlDt", "AuxComp", "NonOvlDt", "GradRed", "TotCy", "util");
    out << buf;
    int k = 0;
    for (const auto& row : rows) {
      std::string cs;
      for (Dim d : kDims)
        if (get(row.config.core, d) > 1) cs += std::string(cs.empty() ? "" : " ") + to_string(d) + "=" + std::to_string(get(row.config.core, d));
      if (cs.empty()) cs = "-";
      const double it = static_cast<double>(row.iterations);
      const double util = row.total_s > 0 ? row.cost.macs * it / (s.peak_macs_per_s() * row.total_s) : 0;
      std::snprintf(buf, sizeof buf, "%-3d %-15s %-4d %-22s %10.2f %10.2f %10.2f %10.2f %10.2f %10.2f %6.3f\n", ++k,
                    to_string(row.split), row.dysm_factor, cs.c_str(), row.cost.pricomp * it * 1e6,
                    row.cost.ovl * it * 1e6, row.cost.aux * it * 1e6, row.cost.non_ovl * it * 1e6,
                    row.grad_reduction_s * 1e6, row.total_s * 1e6, util);
      out << buf;
    }
  }
  return out.str();
}

void register_strategies(planner::StrategyRegistry& registry) {
  planner::StrategyInfo info;
  info.name = "dsm";
  info.description =
      "DeepSpatialMatrix: ChipD/CoreD/ArrayD search with hybrid parallelism, memory reuse, DySM, timestep "
      "pipelining (DeepSpatialMatrix)";
  info.options = option_bindings().specs();
  info.plan = make_dsm_plan;
  info.check = check_dsm_plan;
  info.lower = lower_dsm;
  info.explain = [](const planner::PlanInputs& inputs, const std::string& layer) {
    return explain_text(inputs, layer);
  };
  registry.add(std::move(info));
  registry.add_notation(notation_view());  // DeepSpatialMatrix's N_in, N_out, ... in describe JSON
}

}  // namespace partsim::dsm
