#include "sim/planners/dsm/layer_model.hpp"

#include "sim/devices/pe_array.hpp"
#include "sim/planners/dsm/pass_geometry.hpp"

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

}  // namespace

WorkSplit work_split(const DsmLayer& layer, ChipSplit split, const CoreConfig& config, int M, int N) {
  WorkSplit w;
  w.chip = chip_work(layer, split, M, N);
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
  return devices::sfu_seconds(elements_per_core, op.ops, op.accesses, s.bytes_per_element, s.chip.core);
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

PassCost evaluate_pass(const DsmLayer& L, Pass pass, ChipSplit split, const CoreConfig& config,
                       const PassFlags& flags, const DsmSystem& s) {
  PassCost c;
  const double e = s.bytes_per_element;
  const int chips = s.chips();
  const int cores = s.cores();
  const WorkSplit w = work_split(L, split, config, s.M, s.N);
  const double freq = s.frequency();

  c.macs = L.macs();
  c.mac_busy = c.macs / s.peak_macs_per_s();
  if (L.primary) c.pricomp = pricomp_cycles(w.array, pass, s.chip.core) / freq;

  // FetchInp / FetchKer / WriteOut: double-buffered, multicast on chip (Fig. 5, §II-D).
  const PassOperands o = pass_operands(L, pass, split, config.core, flags, s.M, s.N);
  c.overlapped.memory = (o.read_a + o.read_b + o.write_o + o.extra) * e + flags.extra_memory_bytes;
  if (o.rotation_steps > 0) {
    const RotationSteps steps = rotation_steps(split, s.M, s.N);
    const double chunk = o.chunk * e;
    c.rotation = rotation_time(chunk, split, s);
    c.overlapped.x = pass != Pass::bwd ? steps.x * chunk : 0;
    c.overlapped.y = pass != Pass::bwd ? steps.y * chunk : 0;
  }
  c.overlapped.on_chip = on_chip_link_bytes(o, e, cores);
  const LinkTimes t = link_times(c.overlapped, s);
  c.ovl = std::max(t.memory, t.on_chip);
  if (pass != Pass::bwd) c.ovl = std::max(c.ovl, c.rotation);  // §II-D: overlapped in FWD, UPD

  // PartialSumAcc between cores (non-overlapped): the primary's, then the normalizations' (twice:
  // an all-reduce).
  const CoreReductions r = core_reductions(L, pass, w.core, config.core, e);
  for (int i = 0; i < r.count; ++i) {
    const CoreReduction& cr = r.items[static_cast<std::size_t>(i)];
    c.partial_sum += cr.rounds * partial_sum_time(cr.tile_bytes, cr.cores, s);
  }
  c.non_ovl = c.partial_sum + (pass == Pass::bwd ? c.rotation : 0.0);

  // AuxComp: SFPs work on the core's share; the arrays idle meanwhile (§II-D).
  for (const AuxOp& op : L.aux[static_cast<std::size_t>(pass)])
    c.aux += aux_seconds(op, op.elements / (static_cast<double>(chips) * cores), s);

  c.total = std::max(c.pricomp, c.ovl) + c.aux + c.non_ovl;
  return c;
}

}  // namespace partsim::dsm
