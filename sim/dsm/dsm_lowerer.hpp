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
#include "sim/dsm/group_chain.hpp"
#include "sim/dsm/hardware.hpp"
#include "sim/dsm/layer_model.hpp"
#include "sim/dsm/plan_fields.hpp"
#include "sim/dsm/search.hpp"
#include "sim/lowering/lowering.hpp"

namespace partsim::lowering::dsm_detail {

using dsm::ChipSplit;
using dsm::CoreConfig;
using dsm::DsmLayer;
using dsm::DsmSystem;
using dsm::PassCost;
using dsm::PassFlags;
using plan::Pass;
using dsm::Split5;

/// One pass of one group as the planner costed it.
struct PassSetup {
  Pass pass = Pass::fwd;
  const dsm::DsmPassPlan* plan = nullptr;
  CoreConfig config;
  PassFlags first_flags;
  PassFlags rest_flags;
  PassCost first;
  PassCost rest;
  double first_reads = 0;  // bytes FetchInp + FetchKer (+ read-back) of one iteration, per chip
  double rest_reads = 0;
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
  bool reuse_in = false;
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

  /// Memory reuse (§III-B) as the search's state: reuse_in (this group's input held on chip) and
  /// reuse_out (its output held for the next group). In training FWD's flag is reuse_in and
  /// BWD/UPD's is reuse_out (chain_dp.cpp NetworkSearch::cost); in inference FWD's flag is reuse_in OR reuse_out,
  /// resolved with the neighbours (an edge is held on both of its sides).
  void decode_reuse(std::size_t g);

  /// The pass as the planner costed it, from the plan's own fields: the CoreD / ArrayD factors and
  /// the memory-reuse reading (preloaded weights, weights or gradient held across iterations). The
  /// work per core and per array the plan lists must follow from the factors.
  void resolve_pass(GroupSetup& gs, PassSetup& ps);

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

  /// One segment: k identical iterations of a pass (TotCy x k, seed 003 §II-D).
  std::vector<int> segment(const GroupSetup& gs, const PassSetup& ps, const PassCost& c, double reads, double k,
                           const std::vector<int>& after);

  /// The cores' PartialSumAcc (seed 003 Fig. 5). At core granularity on a ring chip, SimGrid flows:
  /// each group of `cores` consecutive cores reduce-scatters its tile on a ring, as one flow per
  /// neighbour pair carrying all of the ring's steps (rounds x (cores - 1) x tile / cores) and a
  /// delay for the per-step latencies the merge removes (lowering::step_runs' reading); the last
  /// member's flow back to the first crosses the group's cores - 1 hops the other way round. Groups
  /// use disjoint ring segments. Elsewhere: a delay of the model's time.
  std::vector<int> partial_sums(const GroupSetup& gs, const PassCost& c, double k, int layer, Pass pass,
                                const std::vector<int>& after);

  /// Gradient reduction and weight distribution (seed 003 §II-D, Fig. 5), pipelined over X and Y:
  /// ring all-reduce of G along X (reduce-scatter then all-gather) and of G / px along Y at the same
  /// time, with the memory (read partial gradient, write new weights) and on-chip parts.
  std::vector<int> gradient(const GroupSetup& gs, const PassSetup& ps, const std::vector<int>& after);

  /// Chip-to-chip relayout of producer p's output for group l (seed 003 §II-D RelayoutAlongX/Y):
  /// all-to-all of the chip's share along every axis whose split kind changes (X, then Y), with the
  /// memory (read the old layout, write the new) and on-chip parts, as one group.
  std::vector<int> relayout(std::size_t p, const GroupSetup& gs, Pass pass, const std::vector<int>& after);

  /// Core-to-core relayout when memory reuse hands a tensor over in a different core layout
  /// (layer_model.hpp reuse_layouts_match, onchip_relayout_time; chain_dp.cpp with_producer). At core
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
  std::vector<int> lower_pipe(std::size_t begin, std::size_t end, Pass pass, const std::vector<int>& after);

  std::vector<int> lower_pass(const GroupSetup& gs, Pass pass, const std::vector<int>& after);

  const Context& c_;
  DsmSystem s_;
  dsm::DsmOptions o_;
  dsm::GroupChain net_;
  bool core_level_ = false;
  /// Collectives are lowered on the chip-level graph at both granularities: at core granularity a
  /// chip's part of a ring step is one transfer between the chips' core-0 endpoints (node_of: the
  /// device is its core 0, where the external memory is), routed over the on-chip ring to the port
  /// core and on. Splitting every chip transfer into one per core pair (lower_to_nodes) was measured
  /// at 13-19 s and 20-30k activities/s for vgg16 b512 (issue 6 target: 3 s): 32 x the flows on
  /// every chip-to-chip link.
  topology::TopologyGraph chip_topology_;
  std::vector<dsm::DsmLayerFields> fields_;  // every plan layer's dsm fields, in plan order
  std::map<std::string, int> plan_index_;
  std::vector<GroupSetup> groups_;
  std::vector<int> chips_;
  program::Program program_;
};

}  // namespace partsim::lowering::dsm_detail
