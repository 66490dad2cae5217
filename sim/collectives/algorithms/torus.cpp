// The torus schedule (seed 003 §II-D, generalised to N axes): reduce-scatter along the axes in
// order (the shard shrinking by each axis's size), then the last axis (all-reduce), then all-gather
// back along the axes in reverse; each axis's rings are split over a + and a - ring on a
// bidirectional torus. Runs when every device of a torus takes part (or one axis is named).

#include "sim/collectives/algorithms/algorithms.hpp"
#include "sim/common/error.hpp"

namespace partsim::collectives::algorithms {
namespace {

std::string torus_cannot_run(const Participants& who, const topology::TopologyGraph& g) {
  if (!who.torus_axes.empty()) return "";
  return "algorithm 'torus' runs over the axes of a torus with every device taking part (platform '" +
         g.spec().name + "', " + std::to_string(who.devices.size()) + " participants): use ring";
}

Schedule torus_schedule(const BuildInput& in) {
  const auto& g = in.graph;
  const auto& dims = in.who.torus_axes;
  if (auto why = torus_cannot_run(in.who, g); !why.empty()) throw InputError(why);
  const bool bidirectional = g.spec().torus().bidirectional;
  const auto rings_of = [&](int dim) { return g.axis_rings(dim); };
  const auto bidi = [&](int dim) { return bidirectional && g.dim_size(dim) > 2; };
  const int n = static_cast<int>(dims.size());
  std::vector<double> shard(static_cast<std::size_t>(n) + 1, in.bytes);
  for (int k = 0; k < n; ++k) shard[k + 1] = shard[k] / g.dim_size(dims[k]);
  Schedule s;
  int step = 0;
  if (in.collective == "reduce_scatter") {
    for (int k = 0; k < n; ++k) step += ring_pass(s, rings_of(dims[k]), shard[k], bidi(dims[k]), step);
  } else if (in.collective == "all_gather") {
    for (int k = n - 1; k >= 0; --k) step += ring_pass(s, rings_of(dims[k]), shard[k], bidi(dims[k]), step);
  } else {
    for (int k = 0; k + 1 < n; ++k) step += ring_pass(s, rings_of(dims[k]), shard[k], bidi(dims[k]), step);
    if (n > 0) {
      const int last = dims[n - 1];
      step += ring_pass(s, rings_of(last), shard[n - 1], bidi(last), step);
      step += ring_pass(s, rings_of(last), shard[n - 1], bidi(last), step);
    }
    for (int k = n - 2; k >= 0; --k) step += ring_pass(s, rings_of(dims[k]), shard[k], bidi(dims[k]), step);
  }
  return s;
}

double torus_formula(const std::string& collective, double bytes, const Fabric& f) {
  if (collective == "reduce_scatter") return torus_reduce_scatter_time(f.axes, bytes);
  if (collective == "all_gather") return torus_all_gather_time(f.axes, bytes);
  return torus_all_reduce_time(f.axes, bytes);
}

}  // namespace

Algorithm torus() {
  return {"torus",
          reducing_collectives(),
          "dimension-ordered rings over the torus axes (DeepSpatialMatrix §II-D): RS X, ..., AR last, ..., AG X",
          "all_reduce: sum over axes k < n of 2(p_k-1)(a + S_k/(p_k d_k B)) + 2(p_n-1)(a + S_n/(p_n d_n B)), "
          "S_k = S/(p_1...p_(k-1)), d = 2 on a bidirectional axis",
          torus_schedule, torus_formula, torus_cannot_run, false};
}

}  // namespace partsim::collectives::algorithms
