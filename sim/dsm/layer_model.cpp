#include "sim/dsm/layer_model.hpp"

#include "sim/common/error.hpp"
#include "sim/common/integer_math.hpp"

#include <algorithm>

namespace partsim::dsm {

long long get(const Split5& s, Dim d) {
  switch (d) {
    case Dim::in: return s.in;
    case Dim::out: return s.out;
    case Dim::ij: return s.ij;
    case Dim::kij: return s.kij;
    case Dim::mb: return s.mb;
  }
  return 1;
}

void set(Split5& s, Dim d, long long v) {
  switch (d) {
    case Dim::in: s.in = v; break;
    case Dim::out: s.out = v; break;
    case Dim::ij: s.ij = v; break;
    case Dim::kij: s.kij = v; break;
    case Dim::mb: s.mb = v; break;
  }
}

long long product(const Split5& s) { return s.in * s.out * s.ij * s.kij * s.mb; }

const char* to_string(Dim d) {
  switch (d) {
    case Dim::in: return "in";
    case Dim::out: return "out";
    case Dim::ij: return "ij";
    case Dim::kij: return "kij";
    case Dim::mb: return "mb";
  }
  return "?";
}

namespace {

Split5 divide(const Split5& work, const Split5& factors) {
  Split5 r;
  for (Dim d : kDims) set(r, d, ceil_div(get(work, d), get(factors, d)));
  return r;
}

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

WorkSplit work_split(const DsmLayer& layer, ChipSplit split, const CoreConfig& config, int M, int N) {
  const ChipFactors f = chip_factors(split, M, N);
  WorkSplit w;
  w.chip = {layer.in, ceil_div(layer.out, f.out), layer.ij, layer.kij, ceil_div(layer.mb, f.mb)};
  w.core = divide(w.chip, config.core);
  w.array = divide(w.core, config.array);
  return w;
}

namespace {
devices::ArrayWork array_work_of(const Split5& a) { return {a.in, a.out, a.ij, a.kij, a.mb}; }
}  // namespace

ArrayMapping array_mapping(const Split5& a, Pass pass) { return devices::array_mapping(array_work_of(a), pass); }

double pricomp_cycles(const Split5& array_work, Pass pass, const topology::CoreSpec& core) {
  return devices::pricomp_cycles(array_work_of(array_work), pass, core);
}

double aux_seconds(const AuxOp& op, double elements_per_core, const DsmSystem& s) {
  const auto& core = s.chip.core;
  const double sfp = op.ops * elements_per_core / (static_cast<double>(core.sfus) * core.sfu_lanes * core.frequency_hz);
  const double spad = core.scratchpad_bandwidth > 0
                          ? op.accesses * elements_per_core * s.bytes_per_element / core.scratchpad_bandwidth
                          : 0.0;
  return std::max(sfp, spad);
}

double held_tile_elements(double tensor_elements, int dysm_factor, const DsmSystem& s) {
  return tensor_elements / (static_cast<double>(s.chips()) * s.cores() * std::max(1, dysm_factor));
}

PassFlags flags_for(Pass pass, bool reuse_in, bool reuse_out, bool inference) {
  PassFlags f;
  switch (pass) {
    case Pass::fwd:
      f.fetch_a = !reuse_in;
      f.write_o = !(reuse_out && inference);
      break;
    case Pass::bwd:
      f.fetch_a = !reuse_out;
      f.write_o = !reuse_in;
      break;
    case Pass::upd:
      f.fetch_b = !reuse_out;
      break;
  }
  return f;
}

bool reuse_layouts_match(Pass pass, const Split5& p, const Split5& c) {
  if (pass == Pass::fwd) return p.out * p.in * p.kij == c.in && p.mb == c.mb && p.ij == c.ij;
  return c.in * c.out * c.kij == p.out && p.mb == c.mb && p.ij == c.ij;
}

double onchip_relayout_time(const DsmLayer& producer, const DsmSystem& s) {
  const double per_chip = producer.out_elements * static_cast<double>(producer.ts) * s.bytes_per_element / s.chips();
  return ring_all_to_all_link_bytes(per_chip, s.cores(), true) / s.chip.core_to_core_bandwidth;
}

void PassCost::add_core_reduction(const CoreReduction& r) {
  if (core_reduction_count == static_cast<int>(core_reductions.size()))
    throw Error("PassCost: more than " + std::to_string(core_reductions.size()) + " core reductions in one pass");
  core_reductions[static_cast<std::size_t>(core_reduction_count++)] = r;
}

PassCost evaluate_pass(const DsmLayer& L, Pass pass, ChipSplit split, const CoreConfig& config,
                       const PassFlags& flags, const DsmSystem& s) {
  PassCost c;
  const double e = s.bytes_per_element;
  const int chips = s.chips();
  const int cores = s.cores();
  const ChipFactors cf = chip_factors(split, s.M, s.N);
  const double p_model = static_cast<double>(cf.out);  // chips sharing the features by rotation
  const WorkSplit w = work_split(L, split, config, s.M, s.N);
  const double freq = s.frequency();

  c.macs = L.macs();
  c.mac_busy = c.macs / s.peak_macs_per_s();
  if (L.primary) c.pricomp = pricomp_cycles(w.array, pass, s.chip.core) / freq;

  // ---- Chip-level tensors (elements). Group output = what is written after pooling etc.
  const double ij_scale = static_cast<double>(L.ij_in) / static_cast<double>(L.ij);
  const double input_chip = fprod({w.chip.in, w.chip.mb, w.chip.ij}) * ij_scale;
  const double kernel_chip = fprod({w.chip.in, w.chip.out, w.chip.kij});
  const double output_chip = fprod({w.chip.out, w.chip.mb, w.chip.ij});
  const double group_out_chip = L.out_elements / fprod({cf.mb, cf.out});
  const double extra_chip = L.extra_in_elements / fprod({cf.mb, cf.out});
  // In model parallelism each chip's memory holds 1/p of the features; the rest arrive by rotation.
  const double input_own = input_chip / p_model;

  double read_a = 0, read_b = 0, write_o = 0;
  long long split_a = 1, split_b = 1, split_o = 1;
  const Split5& f = config.core;
  switch (pass) {
    case Pass::fwd:
      read_a = input_own; split_a = split_of_input(f);
      read_b = kernel_chip; split_b = split_of_kernel(f);
      write_o = group_out_chip; split_o = split_of_output(f);
      break;
    case Pass::bwd:
      read_a = group_out_chip; split_a = split_of_output(f);
      read_b = kernel_chip; split_b = split_of_kernel(f);
      write_o = input_own; split_o = split_of_input(f);
      break;
    case Pass::upd:
      read_a = input_own; split_a = split_of_input(f);
      read_b = output_chip; split_b = split_of_output(f);
      write_o = kernel_chip; split_o = split_of_kernel(f);
      break;
  }
  if (!L.primary) {  // auxiliary-only group: streams its input and output, no kernel
    read_a = pass == Pass::upd ? 0 : group_out_chip;
    read_b = 0;
    write_o = pass == Pass::upd ? 0 : group_out_chip;
  }
  if (!flags.fetch_a) read_a = 0;
  if (!flags.fetch_b) read_b = 0;
  if (!flags.write_o) write_o = 0;
  const double extra = pass == Pass::fwd ? extra_chip : 0.0;

  // FetchInp / FetchKer / WriteOut: double-buffered, multicast on chip (Fig. 5, §II-D).
  c.overlapped.memory = (read_a + read_b + write_o + extra) * e + flags.extra_memory_bytes;
  const double reads = on_chip_fetch_link_bytes(read_a * e, split_a, cores) +
                       on_chip_fetch_link_bytes(read_b * e, split_b, cores) +
                       on_chip_fetch_link_bytes(extra * e, split_a, cores);
  double rotated_in = 0;
  const RotationSteps steps = rotation_steps(split, s.M, s.N);
  if (L.primary && (steps.x + steps.y) > 0) {
    const double chunk = input_own * e;  // FWD/UPD: input features; BWD: partial input errors
    c.rotation = rotation_time(chunk, split, s);
    c.overlapped.x = pass != Pass::bwd ? steps.x * chunk : 0;
    c.overlapped.y = pass != Pass::bwd ? steps.y * chunk : 0;
    rotated_in = (steps.x + steps.y) * chunk;
  }
  const double writes = on_chip_fetch_link_bytes(write_o * e, split_o, cores);
  c.overlapped.on_chip = std::max(reads + on_chip_fetch_link_bytes(rotated_in, split_a, cores), writes);
  const LinkTimes t = link_times(c.overlapped, s);
  c.ovl = std::max(t.memory, t.on_chip);
  if (pass != Pass::bwd) c.ovl = std::max(c.ovl, c.rotation);  // §II-D: overlapped in FWD, UPD

  // PartialSumAcc between cores (non-overlapped).
  if (L.primary) {
    const Split5& cw = w.core;
    double o_tile = 0;
    switch (pass) {
      case Pass::fwd: o_tile = fprod({cw.out, cw.mb, cw.ij}); break;
      case Pass::bwd: o_tile = fprod({cw.in, cw.mb, cw.ij}) * ij_scale; break;
      case Pass::upd: o_tile = fprod({cw.out, cw.in, cw.kij}); break;
    }
    c.partial_sum = partial_sum_time(o_tile * e, reduction_split(f, pass), s);
    if (reduction_split(f, pass) > 1) c.add_core_reduction({o_tile * e, reduction_split(f, pass), 1});
  }
  // PartialSumAcc of normalizations (Fig. 5 (ii), (iii)): the cores splitting the reduced dimension
  // all-reduce their partial statistics on the ring, a reduce-scatter and an all-gather (every core
  // needs the result): twice partial_sum_time. Softmax / layer norm: 1 or 2 values for each of the
  // core's samples x positions, over the cores splitting out; batch norm: 2 values for each of the
  // core's features, over the cores splitting mb x ij. (Across chips the statistics stay per chip:
  // data parallelism normalizes per chip's minibatch; a model-parallel softmax is not reduced.)
  for (const AuxOp& op : L.aux[static_cast<std::size_t>(pass)]) {
    if (op.reduction == AuxReduction::none) continue;
    const Split5& cw = w.core;
    const bool features = op.reduction == AuxReduction::over_features;
    const long long k = features ? f.out : f.mb * f.ij;
    const double groups = features ? fprod({cw.mb, cw.ij}) : static_cast<double>(cw.out);
    c.partial_sum += 2 * partial_sum_time(groups * op.statistics * e, k, s);
    if (k > 1) c.add_core_reduction({groups * op.statistics * e, k, 2});
  }
  c.non_ovl = c.partial_sum + (pass == Pass::bwd ? c.rotation : 0.0);

  // AuxComp: SFPs work on the core's share; the arrays idle meanwhile (§II-D).
  for (const AuxOp& op : L.aux[static_cast<std::size_t>(pass)])
    c.aux += aux_seconds(op, op.elements / (static_cast<double>(chips) * cores), s);

  c.total = std::max(c.pricomp, c.ovl) + c.aux + c.non_ovl;
  return c;
}

}  // namespace partsim::dsm
