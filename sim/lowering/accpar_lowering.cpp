// Lowering of AccPar-family plans (dp, owt, hypar, accpar; seed 000). docs/model.md "Lowering of
// AccPar-family plans" gives the readings; in short:
// - The events are exactly those the planner charged: accpar::layer_work lists, per layer, every
//   split's Table 4 and Table 5 elements each side fetches and every leaf's FLOPs (Table 6 + aux).
// - A split's fetch into side a is real transfers from side b's devices to side a's, spread over
//   device pairs so that (uncontended) they all finish after elements x bytes / W, with W the sum of
//   the pairs' route bandwidths; on the star W = min(sum b_a, sum b_b), the cut bandwidth of eq. 7.
// - Levels run top-down along a device's path (the time model sums them), then the device computes
//   (roofline: max(FLOPs / peak, bytes / memory bandwidth)).
// - One segment per layer and pass, in training order (FWD of every layer, then BWD and UPD of every
//   layer in reverse), closed by a join: eq. 9 sums layer costs, nothing overlaps across layers.

#include <algorithm>
#include <cstddef>
#include <string>
#include <variant>
#include <vector>

#include "sim/accpar/accpar_planner.hpp"
#include "sim/accpar/problem.hpp"
#include "sim/common/error.hpp"
#include "sim/lowering/lowering.hpp"
#include "sim/lowering/task_builders.hpp"

namespace partsim::lowering {
namespace {

using accpar::LayerWork;
using accpar::Type;
using plan::Pass;

/// The pass whose phase needs Table 4's partial sums of a type (seed 000 Table 4): Type-I the dW
/// partial sums (gradient phase, UPD), Type-II F_{l+1} (forward, FWD), Type-III E_l (backward, BWD).
Pass intra_pass(Type t) {
  switch (t) {
    case Type::I: return Pass::upd;
    case Type::II: return Pass::fwd;
    case Type::III: return Pass::bwd;
  }
  return Pass::fwd;
}

/// A device's compute speed for the roofline: peak FLOP/s and memory bytes/s.
struct Roofline {
  double peak = 0;
  double memory_bandwidth = 0;
};

Roofline roofline_of(const topology::SystemSpec& spec, int device) {
  const auto& model = spec.device_type(device).model;
  if (const auto* r = std::get_if<topology::RooflineDevice>(&model)) return {r->peak_flops, r->memory_bandwidth};
  // A template chip as a roofline: the AccPar planner sees only its peak (eq. 8); its memory at the
  // effective bandwidth the DSM model uses (seed 003 §IV).
  const auto& chip = std::get<topology::TemplateDevice>(model);
  return {chip.peak_flops(), chip.effective_memory_bandwidth()};
}

class Lowerer {
 public:
  explicit Lowerer(const Context& c)
      : c_(c),
        mode_(c.plan.workload.mode == plan::Mode::training ? accpar::Mode::training : accpar::Mode::inference),
        bpe_(static_cast<double>(topology::bytes_per_element(c.spec.precision))),
        problem_(accpar::make_problem(c.workload, mode_, bpe_)),
        hierarchy_(accpar::build_hierarchy(c.spec)),
        typing_(accpar::typing_from_plan(c.plan, problem_, hierarchy_)) {}

  program::Program run() {
    const int n = static_cast<int>(problem_.nodes.size());
    for (const auto& layer : c_.plan.layers) program_.add_layer(layer.name);
    work_.reserve(static_cast<size_t>(n));
    for (int v = 0; v < n; ++v) work_.push_back(accpar::layer_work(problem_, hierarchy_, typing_, v));
    std::vector<int> previous;
    // Forward through the layers, then (training) backward in reverse: BWD (E_l) then UPD (dW_l).
    for (int v = 0; v < n; ++v) previous = segment(v, Pass::fwd, previous);
    if (mode_ == accpar::Mode::training)
      for (int v = n - 1; v >= 0; --v) {
        previous = segment(v, Pass::bwd, previous);
        previous = segment(v, Pass::upd, previous);
      }
    return std::move(program_);
  }

 private:
  /// Elements side a (or b) fetches at split `s` in `pass`.
  double fetched(const accpar::SplitTransfers& s, int v, Pass pass, bool side_a) const {
    const Type type = typing_[static_cast<size_t>(v)][static_cast<size_t>(s.level)].type;
    double e = 0;
    if (intra_pass(type) == pass) e += side_a ? s.intra_a : s.intra_b;
    const double f = side_a ? s.inter_fwd_a : s.inter_fwd_b;
    if (pass == Pass::fwd) e += f;
    if (pass == Pass::bwd) e += (side_a ? s.inter_a : s.inter_b) - f;
    return std::max(0.0, e);
  }

  /// Transfers of `bytes` from the devices of `from` to those of `to`, all after `after`: the
  /// smaller side's device k talks to the larger side's devices k, k + m, k + 2m, ... one after the
  /// other (m = smaller side's size), so no device has two transfers at once in one direction; every
  /// transfer of chain k lasts T / len_k, with T the same for all chains (module comment).
  std::vector<int> move(int v, Pass pass, const std::string& label, const std::vector<int>& from,
                        const std::vector<int>& to, double bytes, const std::vector<int>& after) {
    const bool from_smaller = from.size() <= to.size();
    const std::vector<int>& small = from_smaller ? from : to;
    const std::vector<int>& large = from_smaller ? to : from;
    const size_t m = small.size();
    std::vector<std::vector<std::pair<int, double>>> chains(m);  // (large device, route bandwidth)
    for (size_t j = 0; j < large.size(); ++j) {
      const int s = small[j % m], l = large[j];
      const topology::Route r = c_.topology.route(c_.topology.endpoint(s), c_.topology.endpoint(l));
      chains[j % m].push_back({l, c_.topology.route_bandwidth(r)});
    }
    double w = 0;  // bytes/s the whole pattern moves: sum over chains of their mean pair bandwidth
    for (const auto& chain : chains) {
      double sum = 0;
      for (const auto& [device, bw] : chain) sum += bw;
      w += sum / static_cast<double>(chain.size());
    }
    const double t = bytes / w;
    std::vector<int> last;
    for (size_t k = 0; k < m; ++k) {
      std::vector<int> dep = after;
      for (const auto& [device, bw] : chains[k]) {
        const double share = t / static_cast<double>(chains[k].size()) * bw;
        const program::Endpoint a{small[k], -1, false}, b{device, -1, false};
        const int id = program_.add_transfer(v, pass, label, from_smaller ? a : b, from_smaller ? b : a, share, dep);
        dep = {id};
      }
      last.push_back(dep.front());
    }
    return last;
  }

  /// The layer's tensors a leaf reads and writes in `pass`, in bytes (roofline's memory term):
  /// FWD reads F_l and W_l, writes F_{l+1}; BWD reads E_{l+1} and W_l, writes E_l; UPD reads F_l and
  /// E_{l+1}, writes dW_l. A carrier reads its inputs and writes its output (FWD, BWD).
  double pass_bytes(int v, const accpar::DeviceWork& leaf, Pass pass) const {
    const accpar::Node& node = problem_.nodes[static_cast<size_t>(v)];
    if (node.weighted) {
      const double in = leaf.dims.A_F_in(), out = leaf.dims.A_F_out(), w = leaf.dims.A_W();
      return (in + out + w) * bpe_;  // each pass touches one tensor of each of the three sizes
    }
    if (pass == Pass::upd) return 0;
    double in = 0;
    for (const auto& e : node.inputs) in += e.elements;
    const double out = c_.workload.layer(static_cast<size_t>(v)).q.output_elements;
    return (in * leaf.edge_scale + out * leaf.aux_scale) * bpe_;
  }

  /// The leaf's FLOPs in `pass`: its Table 6 phase, plus its auxiliary FLOPs spread over the passes
  /// like the workload's auxiliary FLOPs of the layer (all in FWD for inference).
  double pass_flops(int v, const accpar::DeviceWork& leaf, Pass pass) const {
    const accpar::Node& node = problem_.nodes[static_cast<size_t>(v)];
    double primary = 0;
    if (node.weighted) {
      const accpar::PhaseFlops f = accpar::table6_flops(leaf.dims);
      primary = pass == Pass::fwd ? f.forward : pass == Pass::bwd ? f.backward : f.gradient;
      if (mode_ == accpar::Mode::inference && pass != Pass::fwd) primary = 0;
    }
    if (mode_ == accpar::Mode::inference) return primary + (pass == Pass::fwd ? leaf.aux_flops : 0.0);
    const auto aux = c_.workload.layer(static_cast<size_t>(v)).q.aux_flops;
    const double total = aux.total();
    const double part = pass == Pass::fwd ? aux.fwd : pass == Pass::bwd ? aux.bwd : aux.upd;
    const double share = total > 0 ? part / total : (pass == Pass::fwd ? 1.0 : 0.0);
    return primary + leaf.aux_flops * share;
  }

  /// One layer's pass: every split top-down (a side's next level waits for what it fetched), then
  /// every leaf's compute, then a join. Returns {join}.
  std::vector<int> segment(int v, Pass pass, const std::vector<int>& previous) {
    const LayerWork& work = work_[static_cast<size_t>(v)];
    std::vector<std::vector<int>> ready(hierarchy_.groups.size());
    ready[0] = previous;
    std::vector<int> ends;
    for (const auto& s : work.splits) {
      const accpar::Group& g = hierarchy_.groups[static_cast<size_t>(s.group)];
      const auto& a = hierarchy_.groups[static_cast<size_t>(g.a)].devices;
      const auto& b = hierarchy_.groups[static_cast<size_t>(g.b)].devices;
      const std::vector<int>& start = ready[static_cast<size_t>(s.group)];
      const std::string level = "level " + std::to_string(s.level) + " ";
      for (const bool side_a : {true, false}) {
        const double bytes = fetched(s, v, pass, side_a) * bpe_;
        std::vector<int>& next = ready[static_cast<size_t>(side_a ? g.a : g.b)];
        if (bytes <= 0) {
          next = start;
          continue;
        }
        const std::vector<int> done = move(v, pass, level + (side_a ? "fetch a" : "fetch b"), side_a ? b : a,
                                           side_a ? a : b, bytes, start);
        next = {done.size() == 1 ? done.front() : add_join(program_, v, pass, level + "join", done)};
      }
    }
    for (const auto& leaf : work.leaves) {
      const auto& devices = hierarchy_.groups[static_cast<size_t>(leaf.group)].devices;
      const std::vector<int>& start = ready[static_cast<size_t>(leaf.group)];
      const double k = static_cast<double>(devices.size());  // a multi-device leaf shares its work evenly
      const double flops = pass_flops(v, leaf, pass) / k;
      if (flops <= 0) {
        ends.insert(ends.end(), start.begin(), start.end());
        continue;
      }
      const double bytes = pass_bytes(v, leaf, pass) / k;
      for (const int d : devices) {
        const Roofline r = roofline_of(c_.spec, d);
        const double t_flops = flops / r.peak, t_memory = bytes / r.memory_bandwidth;
        ends.push_back(program_.add_compute(v, pass, t_memory > t_flops ? "compute (memory-bound)" : "compute",
                                            {d, -1, false}, std::max(t_flops, t_memory), start));
      }
    }
    std::sort(ends.begin(), ends.end());
    ends.erase(std::unique(ends.begin(), ends.end()), ends.end());
    return {add_join(program_, v, pass, "layer join", ends)};
  }

  const Context& c_;
  accpar::Mode mode_;
  double bpe_;
  accpar::Problem problem_;
  accpar::Hierarchy hierarchy_;
  accpar::Typing typing_;
  std::vector<LayerWork> work_;
  program::Program program_;
};

}  // namespace

program::Program lower_accpar(const Context& context) {
  const std::string& s = context.plan.strategy;
  if (s != "dp" && s != "owt" && s != "hypar" && s != "accpar")
    throw InputError("lower_accpar: plan strategy '" + s + "' is not an AccPar-family strategy (dp, owt, hypar, accpar)");
  return Lowerer(context).run();
}

}  // namespace partsim::lowering
