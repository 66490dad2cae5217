#pragma once
// Internals of the dsm lowering (dsm_lowering.cpp's module comment describes it; lower_dsm in
// registration.hpp is its entry point): the per-group and per-pass set-up read from the plan and the
// DsmLowerer that builds the Program. Its member functions are defined by concern: reading the plan
// in dsm_lowering_setup.cpp, the transfer and collective building blocks in
// dsm_lowering_transfers.cpp, the segments, passes and pipelines in dsm_lowering.cpp.

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/collectives/collectives.hpp"
#include "sim/planners/dsm/group_chain.hpp"
#include "sim/planners/dsm/hardware.hpp"
#include "sim/planners/dsm/layer_model.hpp"
#include "sim/planners/dsm/pass_geometry.hpp"
#include "sim/planners/dsm/plan_fields.hpp"
#include "sim/planners/dsm/search.hpp"
#include "sim/lowering/lowering.hpp"
#include "sim/program/program.hpp"

namespace partsim::dsm::lowering_detail {

using lowering::Context;
using plan::Pass;

/// What one iteration (one timestep of one spatial minibatch) of a pass does on each chip, derived
/// from the plan's work split with the device model: never the planner's cost (DESIGN.md
/// principle 1). The lowering turns it into events; their times come from the PE-array and SFP
/// models (sim/devices/pe_array.hpp), the memory and on-chip links and the collectives.
struct IterationWork {
  double pricomp_s = 0;      // PriComp: devices::pricomp_cycles of the plan's ArrayD work / clock
  double aux_s = 0;          // AuxComp: devices::sfu_seconds of each auxiliary op's core share
  double read_bytes = 0;     // FetchInp + FetchKer (+ partial gradient read back), per chip
  double write_bytes = 0;    // WriteOut, per chip
  double on_chip_bytes = 0;  // the busiest on-chip ring link (a delay at chip granularity)
  CoreReductions reductions; // PartialSumAcc: what the cores reduce (layer_model.hpp core_reductions)
  bool operator==(const IterationWork&) const = default;
};

/// One pass of one group as the plan maps it.
struct PassSetup {
  Pass pass = Pass::fwd;
  const DsmPassPlan* plan = nullptr;
  CoreConfig config;
  IterationWork first;     // the first iteration (of each LSTM direction)
  IterationWork rest;      // every later one (weights held, partial gradient read back, §III-B)
  double grad_bytes = 0;   // UPD: weight gradient per chip
  double chunk_bytes = 0;  // rotated feature chunk per iteration, per chip
};

struct GroupSetup {
  std::size_t group = 0;
  int layer = -1;  // Program layer index (the plan layer of the group's primary layer)
  ChipSplit split = ChipSplit::data;
  int dysm = 1;
  DsmLayer Ls;     // the layer cut to its spatial minibatch
  long long iterations = 1;
  bool reuse_in = false;   // the plan's reuse_in / reuse_out (memory reuse, §III-B)
  bool reuse_out = false;
  std::vector<PassSetup> passes;  // plan order
  DsmSystem sys;                  // the torus it runs on (a block of whole rows when pipelined)
  std::vector<int> chips;         // its chips
  int first_row = 0;              // pipelined: first torus row of its block
  std::optional<int> pipe;        // timestep-pipelining group (§III-D)
};

class DsmLowerer {
 public:
  explicit DsmLowerer(const Context& c);

  program::Program run();

 private:
  // ---- reading the plan -------------------------------------------------------------------------

  std::string where(std::size_t g) const;

  void check_layers();

  GroupSetup setup_group(std::size_t g);

  const PassSetup* find(const GroupSetup& gs, Pass pass) const;

  /// The pass's work from the plan's own fields: the CoreD / ArrayD factors and work, the memory
  /// reuse the plan records (edges held, preloaded weights, weights or gradient held across
  /// iterations). The work per core and per array the plan lists must follow from the factors.
  void resolve_pass(GroupSetup& gs, PassSetup& ps);

  /// One iteration of the pass with the memory traffic `flags` leave (IterationWork).
  IterationWork work_of(const GroupSetup& gs, const PassSetup& ps, const PassFlags& flags) const;

  // ---- building the Program ---------------------------------------------------------------------

  std::vector<program::Endpoint> compute_endpoints(int d) const;

  /// A collective along one torus axis, `repeats` times in a row, with ring steps that repeat the
  /// same (src, dst) pairs merged into one transfer (module comment). Returns its last tasks.
  std::vector<int> axis_collective(const GroupSetup& gs, const std::string& name, const std::string& axis, double bytes,
                                   double repeats, int layer, Pass pass, const std::string& label,
                                   const std::vector<int>& after);

  /// The device schedule of a collective along one torus axis over the group's chips: the whole
  /// torus (collectives::build_schedule), or for a pipelined group its block of rows treated as a
  /// torus (§III-D, timestep_pipeline.cpp try_pipeline): the X rings are its rows; along Y a ring over the
  /// block's rows in every column, closing from the last row back to the first over the real
  /// torus's routes.
  collectives::Schedule axis_schedule(const GroupSetup& gs, const std::string& name, const std::string& axis,
                                      double bytes) const;

  /// Several device schedules run one after the other, merged as above.
  std::vector<int> add_merged(const collectives::Schedule& sched, double repeats, int layer, Pass pass,
                              const std::string& label, const std::vector<int>& after);

  /// Bytes between chip d's external memory and its cores. At chip granularity one delay of
  /// memory latency + bytes / the memory bandwidth (add_memory_traffic). At core granularity two
  /// transfers of half the bytes, between the memory (on core 0's ring stop) and the core a quarter
  /// of the way round each side of the ring: the model's reading of the on-chip load (a tensor spread
  /// over the cores and multicast loads each of the two ring links next to the memory port with half
  /// of it, docs/model.md "Data transfers") with two flows per chip instead of one per core.
  void memory(int d, double bytes, bool to_memory, int layer, Pass pass, const std::string& label,
              const std::vector<int>& after, std::vector<int>& done);

  /// A delay standing for on-chip traffic that has no link at chip granularity.
  void on_chip_delay(double seconds, int layer, Pass pass, const std::string& label, const std::vector<int>& after,
                     std::vector<int>& done);

  int join(int layer, Pass pass, const std::string& label, const std::vector<int>& after);

  /// Rotation of the feature chunk along the model axes (seed 003 §II-D, RotateAlongX/Y): per
  /// iteration r.x steps along X and r.y along Y, each a neighbour rotation of the chunk; k
  /// iterations at once.
  std::vector<int> rotation(const GroupSetup& gs, const PassSetup& ps, double k, int layer,
                            const std::vector<int>& after);

  /// One segment: k identical iterations of a pass (seed 003 §II-D's events, each k times as long).
  std::vector<int> segment(const GroupSetup& gs, const PassSetup& ps, const IterationWork& w, double k,
                           const std::vector<int>& after);

  /// The cores' PartialSumAcc (seed 003 Fig. 5). At core granularity on a ring chip, SimGrid flows:
  /// each group of `cores` consecutive cores reduce-scatters its tile on a ring, as one flow per
  /// neighbour pair carrying all of the ring's steps (rounds x (cores - 1) x tile / cores) and a
  /// delay for the per-step latencies the merge removes (lowering::step_runs' reading); the last
  /// member's flow back to the first crosses the group's cores - 1 hops the other way round. Groups
  /// use disjoint ring segments. Elsewhere: a delay of the ring reduce-scatter's closed form
  /// (sim/collectives formulas.hpp) on the on-chip ring.
  std::vector<int> partial_sums(const GroupSetup& gs, const CoreReductions& reductions, double k, int layer,
                                Pass pass, const std::vector<int>& after);

  /// Gradient reduction and weight distribution (seed 003 §II-D, Fig. 5), pipelined over X and Y:
  /// ring all-reduce of G along X (reduce-scatter then all-gather) and of G / px along Y at the same
  /// time, with the memory (read partial gradient, write new weights) and on-chip parts.
  std::vector<int> gradient(const GroupSetup& gs, const PassSetup& ps, const std::vector<int>& after);

  /// Chip-to-chip relayout of producer p's output for group l (seed 003 §II-D RelayoutAlongX/Y):
  /// all-to-all of the chip's share along every axis whose split kind changes (X, then Y), with the
  /// memory (read the old layout, write the new) and on-chip parts, as one group.
  std::vector<int> relayout(std::size_t p, const GroupSetup& gs, Pass pass, const std::vector<int>& after);

  /// One chip's share of `producer`'s output over all its timesteps, bytes: what a relayout moves.
  double chip_share_bytes(const DsmLayer& producer) const;

  /// Core-to-core relayout when memory reuse hands a tensor over in a different core layout
  /// (layer_model.hpp reuse_layouts_match; chain_dp.cpp with_producer). At core
  /// granularity on a ring chip, SimGrid flows carrying what the ring all-to-all puts on each
  /// directed ring link (every core to both neighbours: the same time uncontended, 2 x cores flows
  /// per chip instead of cores^2); elsewhere a delay.
  std::vector<int> onchip_relayout(const GroupSetup& gs, Pass pass, const std::vector<int>& after);

  /// Relayouts charged to group gs in `pass` (chain_dp.cpp charge_edges): every producer edge whose
  /// split differs, except the edge held on chip by memory reuse.
  std::vector<int> relayouts(const GroupSetup& gs, Pass pass, const std::vector<int>& after);

  /// All iterations of a pass: the first, then the later ones in one segment (or all in one when
  /// they are equal); a bidirectional LSTM does so once per direction, one after the other.
  std::vector<int> iterations(const GroupSetup& gs, const PassSetup& ps, const std::vector<int>& after);

  /// One pass of a pipe group (seed 003 §III-D, timestep_pipeline.cpp try_pipeline): every stage (layer) on its
  /// block of rows, all at once. Stage j starts after j cycles (the pipeline fills), runs its N_ts
  /// timesteps (segments as above), hands each timestep's output to the next stage over the M Y
  /// links between the blocks (not in UPD), and keeps the pace of the slowest stage: a stall delay
  /// makes it last N_ts cycles, a cycle being the slowest stage's time per timestep. The pass ends
  /// after (N_ts + G - 1) cycles; in UPD the stages' gradient reductions follow, concurrently.
  /// A stage's time per timestep is the closed form of its own events (stage_step_time).
  std::vector<int> lower_pipe(std::size_t begin, std::size_t end, Pass pass, const std::vector<int>& after);

  /// Stage g of a pipe group in `pass`: its iterations, then (when `next` names the next stage)
  /// each timestep's output handed on to it.
  std::vector<int> pipe_stage(std::size_t g, std::optional<std::size_t> next, Pass pass, const std::vector<int>& after);

  /// The stage's events (pipe_stage) timed alone by the closed form, uncontended, per timestep:
  /// built into a scratch Program, so the pace comes from the events, not from the planner.
  double stage_step_time(std::size_t g, std::optional<std::size_t> next, Pass pass);

  std::vector<int> lower_pass(const GroupSetup& gs, Pass pass, const std::vector<int>& after);

  plan::Mode mode() const { return c_.plan.workload.mode; }

  const Context& c_;
  DsmSystem s_;
  GroupChain net_;
  bool core_level_ = false;
  /// Collectives are lowered on the chip-level graph at both granularities: at core granularity a
  /// chip's part of a ring step is one transfer between the chips' core-0 endpoints (node_of: the
  /// device is its core 0, where the external memory is), routed over the on-chip ring to the port
  /// core and on. Splitting every chip transfer into one per core pair (lower_to_nodes) was measured
  /// at 13-19 s and 20-30k activities/s for vgg16 b512 (issue 6 target: 3 s): 32 x the flows on
  /// every chip-to-chip link.
  topology::TopologyGraph chip_topology_;
  std::vector<DsmLayerFields> fields_;  // every plan layer's dsm fields, in plan order
  std::map<std::string, int> plan_index_;
  std::vector<GroupSetup> groups_;
  std::vector<int> chips_;
  program::Program program_;
};

}  // namespace partsim::dsm::lowering_detail
