#pragma once
// The per-layer, per-pass performance model of DeepSpatialMatrix (seed 003 §II-D):
//   TotCy = MAX(PriComp, OvlDt) + AuxComp + NonOvlDt
// over the ChipD / CoreD / ArrayD work division of §II-C (Fig. 4) and the transfers of Fig. 5.
//
// Contract: pure functions over plain numbers. A DsmLayer carries the five N parameters of §II-A
// (plus stride, timesteps) and the auxiliary work; evaluate_pass() gives the cost of ONE iteration
// (one timestep, one spatial minibatch) of one pass for one configuration, in seconds, with the
// Fig. 13 loss breakdown. Gradient reduction, relayout, DySM and timestep repetition are composed
// by layer_cost() (below) and the search (search.hpp).

#include <array>
#include <initializer_list>
#include <string>
#include <vector>

#include "sim/devices/pe_array.hpp"
#include "sim/planners/dsm/hardware.hpp"
#include "sim/planners/dsm/transfers.hpp"
#include "sim/planners/dsm/plan_fields.hpp"
#include "sim/plan/plan.hpp"

namespace partsim::dsm {

using plan::Pass;


enum class Dim { in, out, ij, kij, mb };
inline constexpr std::array<Dim, 5> kDims = {Dim::in, Dim::out, Dim::ij, Dim::kij, Dim::mb};
long long get(const Split5& s, Dim d);
void set(Split5& s, Dim d, long long v);
long long product(const Split5& s);
/// Product of counts as a double (element and MAC counts exceed 2^31 easily).
inline double fprod(std::initializer_list<long long> v) {
  double r = 1;
  for (long long x : v) r *= static_cast<double>(x);
  return r;
}
const char* to_string(Dim d);

/// What a normalization reduces over, so cores that split that dimension must combine partial
/// statistics (seed 003 Fig. 5, PartialSumAcc (ii) and (iii)).
enum class AuxReduction {
  none,
  over_features,  // softmax (exponent sum), layer norm (mean, variance): per sample and position
  over_samples,   // batch norm (mean, variance): per feature, over the minibatch and positions
};

/// One auxiliary computation on the SFPs (seed 003 §II-A): `elements` values (whole minibatch,
/// one timestep), `ops` SFP operations per value, `accesses` scratchpad reads+writes per value.
struct AuxOp {
  std::string name;
  double elements = 0;
  double ops = 1;
  double accesses = 2;
  AuxReduction reduction = AuxReduction::none;
  double statistics = 0;  // values reduced per reduced group: 1 (softmax) or 2 (mean and variance)
};

/// A primary layer (conv / matrix multiplication / LSTM timestep) with its auxiliary computations,
/// in seed 003 §II-A's parameters. Counts are per timestep and for the whole minibatch.
struct DsmLayer {
  std::string name;
  long long in = 1;       // N_in (LSTM: N_in + hidden)
  long long out = 1;      // N_out
  long long ij = 1;       // output positions per feature (N_ij / N_stride^2)
  long long ij_in = 1;    // N_ij: input positions per feature
  long long kij = 1;      // N_kij
  long long mb = 1;       // N_mb
  long long ts = 1;       // N_ts (LSTM timesteps)
  bool primary = true;    // false: an auxiliary-only group (e.g. an embedding lookup)
  bool lstm = false;
  bool bidirectional = false;
  /// LSTM directions. Those of a bidirectional layer run one after the other, each over all its
  /// timesteps (seed 003 §III-D maps a Bi-LSTM "across all the chips" and executes "each time step
  /// sequentially"; §V-A2's 44x needs each direction's weights held on their own, docs/model.md
  /// "Bidirectional LSTMs"): `out` is one direction's 4 x hidden, `ts` counts the steps of both,
  /// and each direction fetches its own weights at its first step. Weights in all: directions x
  /// kernel_elements().
  int directions = 1;
  bool first = false;     // the first primary layer: no BWD (no error is needed for the input)
  /// Elements of the tensor this group writes (after pooling etc.), whole minibatch, per timestep.
  double out_elements = 0;
  /// Extra input read by an auxiliary op (the short-cut operand of a residual add), per timestep.
  double extra_in_elements = 0;
  std::array<std::vector<AuxOp>, 3> aux;  // indexed by Pass

  double input_elements() const { return fprod({in, mb, ij_in}); }
  double kernel_elements() const { return fprod({in, out, kij}); }  // one direction's
  double all_kernel_elements() const { return kernel_elements() * directions; }
  double primary_out_elements() const { return fprod({out, mb, ij}); }
  /// Useful MACs of one pass and one timestep: N_in * N_out * N_kij * N_mb * N_ij(out).
  double macs() const { return fprod({in, out, kij, mb, ij}); }
};

/// CoreD and ArrayD as split FACTORS (the number of cores / arrays along each dimension); their
/// products equal the cores per chip and the arrays per core (§II-E balance rule).
struct CoreConfig {
  Split5 core;   // factors over cores
  Split5 array;  // factors over the PE arrays of a core
};

/// What one pass iteration moves between the cores and external memory (memory reuse, §III-B).
struct PassFlags {
  bool fetch_a = true;          // FetchInp of the streamed operand (FWD input, BWD error, UPD input)
  bool fetch_b = true;          // FetchKer (FWD/BWD kernel) / UPD's error operand
  bool write_o = true;          // WriteOut (FWD output, BWD input error, UPD gradient)
  double extra_memory_bytes = 0;  // e.g. DySM gradient accumulation reads
};

/// What memory reuse removes from a pass (§III-B). reuse_in: this layer's input (FWD) arrives in
/// the scratchpad and its input error (BWD) is left there for the producer; reuse_out: this layer's
/// output stays for the consumer (FWD, inference only: in training it is still written for UPD)
/// and the error the consumer leaves is read from the scratchpad (BWD, UPD). The search and the
/// lowering both read a plan's memory_reuse flags through this.
PassFlags flags_for(Pass pass, bool reuse_in, bool reuse_out, bool inference);

/// Work of one pass at each level (seed 003 Fig. 4), in the layer's N terms.
struct WorkSplit {
  Split5 chip;   // ChipD
  Split5 core;   // CoreD
  Split5 array;  // ArrayD
};
WorkSplit work_split(const DsmLayer& layer, ChipSplit split, const CoreConfig& config, int M, int N);
/// The GEMM view of a pass on the PE array (the device model, sim/devices/pe_array.hpp).
using devices::ArrayMapping;
ArrayMapping array_mapping(const Split5& array_work, Pass pass);

/// PriComp in cycles (seed 003 §II-D): devices::pricomp_cycles of the ArrayD work.
double pricomp_cycles(const Split5& array_work, Pass pass, const topology::CoreSpec& core);

/// AuxComp of one op on one core, in seconds: the device model's devices::sfu_seconds.
double aux_seconds(const AuxOp& op, double elements_per_core, const DsmSystem& system);

/// The cost of one iteration of one pass, in seconds, with every term of §II-D and Fig. 5.
struct PassCost {
  double pricomp = 0;       // PriComp
  double mac_busy = 0;      // useful MACs at peak (Fig. 13 "MAC busy")
  double aux = 0;           // AuxComp
  LinkLoads overlapped;     // FetchInp + FetchKer + WriteOut (+ rotation in FWD/UPD)
  double rotation = 0;      // RotateAlongX/Y time (overlapped in FWD/UPD, not in BWD)
  double ovl = 0;           // OvlDt: slowest link of the overlapped group
  double partial_sum = 0;   // PartialSumAcc (non-overlapped), of core_reductions()
  double non_ovl = 0;       // NonOvlDt of this iteration (partial sums, BWD rotation)
  double total = 0;         // TotCy in seconds
  double macs = 0;          // useful MACs of the iteration (whole system)
};

PassCost evaluate_pass(const DsmLayer& layer, Pass pass, ChipSplit split, const CoreConfig& config,
                       const PassFlags& flags, const DsmSystem& system);

/// Memory reuse hands a tensor over on chip (§III-B, "compatible with the way output is stored"):
/// true when the producer's CoreD factors leave it where the consumer's need it. FWD: the
/// producer's output (split over out x in x kij, mb, ij) is the consumer's input (in, mb, ij); BWD:
/// the consumer's input error (in x out x kij, mb, ij) is the producer's output error (out, mb, ij).
bool reuse_layouts_match(Pass pass, const Split5& producer_factors, const Split5& consumer_factors);

/// Core-to-core relayout when they do not match: an all-to-all of the producer's output share of
/// the chip over the cores on the bidirectional ring, seconds.
double onchip_relayout_time(const DsmLayer& producer, const DsmSystem& system);

/// Tile of a tensor held by one core (elements) for reuse checks: the chip's share divided over
/// the cores (every layout spreads a feature tensor evenly over all chips and cores).
double held_tile_elements(double tensor_elements, int dysm_factor, const DsmSystem& system);

}  // namespace partsim::dsm
