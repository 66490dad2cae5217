// Pass geometry shared by the dsm cost model and the dsm lowering (pass_geometry.hpp).

#include "sim/planners/dsm/pass_geometry.hpp"

#include <algorithm>
#include <string>

#include "sim/common/error.hpp"
#include "sim/common/integer_math.hpp"
#include "sim/planners/dsm/transfers.hpp"

namespace partsim::dsm {
namespace {

// Which dimensions each tensor spans (seed 003 §II-A: Input = in*mb*ij, Kernel = out*in*kij,
// Output = out*mb*ij).
long long split_of_input(const Split5& f) { return f.in * f.mb * f.ij; }
long long split_of_kernel(const Split5& f) { return f.out * f.in * f.kij; }
long long split_of_output(const Split5& f) { return f.out * f.mb * f.ij; }

// Product of the split factors over the pass's reduction dimensions: cores that hold partial sums
// of the same output (FWD: in, kij; BWD: out, kij; UPD: mb, ij).
long long reduction_split(const Split5& f, Pass pass) {
  switch (pass) {
    case Pass::fwd: return f.in * f.kij;
    case Pass::bwd: return f.out * f.kij;
    case Pass::upd: return f.mb * f.ij;
  }
  return 1;
}

}  // namespace

Split5 chip_work(const DsmLayer& layer, ChipSplit split, int M, int N) {
  const ChipFactors f = chip_factors(split, M, N);
  return {layer.in, ceil_div(layer.out, f.out), layer.ij, layer.kij, ceil_div(layer.mb, f.mb)};
}

PassFlags later_iteration_flags(const PassFlags& first, Pass pass, bool weights_held, double kernel_chip_bytes) {
  PassFlags f = first;
  if (pass != Pass::upd) {
    if (weights_held) f.fetch_b = false;  // weights held across timesteps
  } else if (weights_held) {
    f.write_o = false;  // gradient accumulated on chip, written once
  } else {
    f.extra_memory_bytes += kernel_chip_bytes;  // read back the partial gradient
  }
  return f;
}

PassOperands pass_operands(const DsmLayer& L, Pass pass, ChipSplit split, const Split5& f, const PassFlags& flags,
                           int M, int N) {
  PassOperands o;
  const ChipFactors cf = chip_factors(split, M, N);
  const double p_model = static_cast<double>(cf.out);  // chips sharing the features by rotation
  const Split5 w = chip_work(L, split, M, N);
  // Chip-level tensors (elements). Group output = what is written after pooling etc.
  const double ij_scale = static_cast<double>(L.ij_in) / static_cast<double>(L.ij);
  const double input_chip = fprod({w.in, w.mb, w.ij}) * ij_scale;
  const double kernel_chip = fprod({w.in, w.out, w.kij});
  const double output_chip = fprod({w.out, w.mb, w.ij});
  const double group_out_chip = L.out_elements / fprod({cf.mb, cf.out});
  const double extra_chip = L.extra_in_elements / fprod({cf.mb, cf.out});
  // In model parallelism each chip's memory holds 1/p of the features; the rest arrive by rotation.
  const double input_own = input_chip / p_model;
  switch (pass) {
    case Pass::fwd:
      o.read_a = input_own; o.split_a = split_of_input(f);
      o.read_b = kernel_chip; o.split_b = split_of_kernel(f);
      o.write_o = group_out_chip; o.split_o = split_of_output(f);
      break;
    case Pass::bwd:
      o.read_a = group_out_chip; o.split_a = split_of_output(f);
      o.read_b = kernel_chip; o.split_b = split_of_kernel(f);
      o.write_o = input_own; o.split_o = split_of_input(f);
      break;
    case Pass::upd:
      o.read_a = input_own; o.split_a = split_of_input(f);
      o.read_b = output_chip; o.split_b = split_of_output(f);
      o.write_o = kernel_chip; o.split_o = split_of_kernel(f);
      break;
  }
  if (!L.primary) {  // auxiliary-only group: streams its input and output, no kernel
    o.read_a = pass == Pass::upd ? 0 : group_out_chip;
    o.read_b = 0;
    o.write_o = pass == Pass::upd ? 0 : group_out_chip;
  }
  if (!flags.fetch_a) o.read_a = 0;
  if (!flags.fetch_b) o.read_b = 0;
  if (!flags.write_o) o.write_o = 0;
  o.extra = pass == Pass::fwd ? extra_chip : 0.0;
  const RotationSteps steps = rotation_steps(split, M, N);
  if (L.primary && (steps.x + steps.y) > 0) {
    o.chunk = input_own;  // FWD/UPD: input features; BWD: partial input errors
    o.rotation_steps = steps.x + steps.y;
  }
  return o;
}

double on_chip_link_bytes(const PassOperands& o, double e, int cores) {
  const double reads = on_chip_fetch_link_bytes(o.read_a * e, o.split_a, cores) +
                       on_chip_fetch_link_bytes(o.read_b * e, o.split_b, cores) +
                       on_chip_fetch_link_bytes(o.extra * e, o.split_a, cores);
  const double rotated_in = o.rotation_steps * (o.chunk * e);
  const double writes = on_chip_fetch_link_bytes(o.write_o * e, o.split_o, cores);
  return std::max(reads + on_chip_fetch_link_bytes(rotated_in, o.split_a, cores), writes);
}

void CoreReductions::add(const CoreReduction& r) {
  if (count == static_cast<int>(items.size()))
    throw Error("core_reductions: more than " + std::to_string(items.size()) + " core reductions in one pass");
  items[static_cast<std::size_t>(count++)] = r;
}

CoreReductions core_reductions(const DsmLayer& L, Pass pass, const Split5& cw, const Split5& f, double e) {
  CoreReductions r;
  const double ij_scale = static_cast<double>(L.ij_in) / static_cast<double>(L.ij);
  // The primary's partial sums: cores splitting the pass's reduction hold partial sums of one tile.
  double o_tile = 0;
  switch (pass) {
    case Pass::fwd: o_tile = fprod({cw.out, cw.mb, cw.ij}); break;
    case Pass::bwd: o_tile = fprod({cw.in, cw.mb, cw.ij}) * ij_scale; break;
    case Pass::upd: o_tile = fprod({cw.out, cw.in, cw.kij}); break;
  }
  if (L.primary && reduction_split(f, pass) > 1) r.add({o_tile * e, reduction_split(f, pass), 1});
  // Normalizations (Fig. 5 (ii), (iii)): the cores splitting the reduced dimension all-reduce their
  // partial statistics on the ring, a reduce-scatter and an all-gather (every core needs the
  // result). Softmax / layer norm: 1 or 2 values for each of the core's samples x positions, over
  // the cores splitting out; batch norm: 2 values for each of the core's features, over the cores
  // splitting mb x ij. (Across chips the statistics stay per chip: data parallelism normalizes per
  // chip's minibatch; a model-parallel softmax is not reduced.)
  for (const AuxOp& op : L.aux[static_cast<std::size_t>(pass)]) {
    if (op.reduction == AuxReduction::none) continue;
    const bool features = op.reduction == AuxReduction::over_features;
    const long long k = features ? f.out : f.mb * f.ij;
    const double groups = features ? fprod({cw.mb, cw.ij}) : static_cast<double>(cw.out);
    if (k > 1) r.add({groups * op.statistics * e, k, 2});
  }
  return r;
}

}  // namespace partsim::dsm
