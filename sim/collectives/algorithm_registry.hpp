#pragma once
// The registry of collective algorithms (DESIGN.md "Devices, collectives and memory"): one entry per
// algorithm, each with the collectives it implements, its schedule builder (steps of point-to-point
// transfers on the real topology, schedule.hpp) and its alpha-beta closed form (the textbook time
// with one latency and one bandwidth per level, for planners that have no topology graph).
//
// Adding an algorithm is one file in sim/collectives/algorithms/ and one registration line in
// builtin_algorithms.cpp (tests/collectives/test_algorithms.cpp adds one from outside, as a plug-in).
//
// Terms used by every entry (docs/model.md "Collective algorithms"):
//  - S: bytes per participant, as in collectives.hpp (the buffer reduced, or the full gathered result);
//  - p participants in ring order; a hierarchical platform groups them into n locality domains
//    (nodes) of q members each (p = n q);
//  - alpha: s per message (route latency + the platform's endpoint overhead), B: bytes/s of payload
//    per port and direction (route bandwidth x protocol efficiency).
// The step rule (schedule.hpp: evaluate) of the schedule on the topology is the exact closed form the
// replay is compared with; the alpha-beta formula equals it where the formula's assumptions hold
// (uniform links, no shared link inside a step), which tests/collectives checks entry by entry.

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "sim/collectives/formulas.hpp"
#include "sim/collectives/schedule.hpp"
#include "topology/system_spec.hpp"
#include "topology/topology_graph.hpp"

namespace partsim::collectives {

/// The collectives an algorithm may implement (a subset of collective_list()).
inline const std::vector<std::string>& reducing_collectives() {
  static const std::vector<std::string> names = {"reduce_scatter", "all_gather", "all_reduce"};
  return names;
}

/// True for reduce_scatter, all_gather and all_reduce: the collectives the registry's algorithms run.
inline bool is_reducing(const std::string& collective) {
  const auto& names = reducing_collectives();
  return std::find(names.begin(), names.end(), collective) != names.end();
}

/// Who takes part in a collective and how they sit on the platform.
struct Participants {
  std::vector<int> devices;                // in ring order
  std::vector<int> torus_axes;             // on a torus with every device taking part: the axes used
  std::vector<std::vector<int>> domains;   // locality domains (nodes); empty: locality_domains() when needed
};

struct Fabric;

/// What a schedule builder is given.
struct BuildInput {
  const std::string& collective;
  double bytes = 0;  // S
  const Participants& who;
  const topology::TopologyGraph& graph;
  const topology::CollectiveSettings& settings;
  /// The participants' alpha-beta description with the chosen protocol (with_protocol(fabric_of()));
  /// given to the builders whose Algorithm::reads_fabric is set, else null.
  const Fabric* fabric = nullptr;
};

/// One level of links in the alpha-beta model.
struct LinkCost {
  double alpha = 0;      // s per message
  double bandwidth = 0;  // bytes/s per port and direction
};

/// What an alpha-beta formula is given: the participants' counts and links (fabric_of() reads them
/// off a topology; a planner may fill them from its own model).
struct Fabric {
  int p = 1;
  LinkCost link;                // between ring neighbours (flat algorithms)
  int domains = 1;              // n
  int domain_size = 1;          // q
  LinkCost intra;               // inside a domain (hierarchical)
  LinkCost inter;               // between the same member of two domains (hierarchical)
  std::vector<AxisRing> axes;   // the torus algorithm: one ring per axis
  int channels = 1;             // concurrent rings / trees the payload is split over
  double chunk_bytes = 0;       // pipelining chunk of trees (0: one chunk)
  bool domains_reduce = false;  // every domain sits on one switch that reduces (in_switch inside a node)
  /// A member's routes to its two ring neighbours leave by the same link (one port into a switch):
  /// a + and a - ring then share that port instead of using two links.
  bool ring_shares_port = false;
  double in_switch_efficiency = 1;  // system.collectives.in_switch_efficiency
};

struct Algorithm {
  std::string name;
  std::vector<std::string> collectives;  // what it implements
  std::string description;               // one line: what it does
  std::string formula_text;              // its alpha-beta closed form per collective, for --list-collectives
  std::function<Schedule(const BuildInput&)> build;                                    // a device schedule
  std::function<double(const std::string& collective, double bytes, const Fabric&)> formula;  // seconds
  /// Why the algorithm cannot run on these participants ("" when it can); unset: it runs anywhere.
  /// The builder throws InputError with this reason; the choice among several skips the algorithm.
  std::function<std::string(const Participants&, const topology::TopologyGraph&)> cannot_run;
  /// The builder sizes its schedule from the closed form (BuildInput::fabric is then given).
  bool reads_fabric = false;

  bool implements(const std::string& collective) const;
  /// cannot_run's reason, or "".
  std::string why_not(const Participants& who, const topology::TopologyGraph& graph) const;
};

class AlgorithmRegistry {
 public:
  /// Throws Error when the name is taken or an entry lacks a builder or a formula.
  void add(Algorithm algorithm);
  /// Throws UnknownNameError listing every algorithm.
  const Algorithm& find(const std::string& name) const;
  bool contains(const std::string& name) const;
  const std::vector<Algorithm>& list() const { return algorithms_; }

 private:
  std::vector<Algorithm> algorithms_;
};

/// The registry with every built-in algorithm (builtin_algorithms.cpp). Mutable so that a plug-in
/// (or a test) can add one.
AlgorithmRegistry& algorithm_registry();

/// The algorithms `name` stands for: the registered algorithm of that name, each of a comma-separated
/// list, or for "auto" every registered algorithm that implements `collective`. Throws
/// UnknownNameError (listing every algorithm) for a name that is not registered.
std::vector<std::string> named_algorithms(const std::string& name, const std::string& collective);

/// The algorithm and protocol a collective runs with.
struct Choice {
  const Algorithm* algorithm = nullptr;
  topology::CollectiveProtocol protocol;  // name "" when the platform lists no protocols
  /// The choice's closed form (formula_time) when several (algorithm, protocol) pairs were weighed;
  /// 0 when only one could run (nothing to weigh, and the fabric is not read): call formula_time.
  double formula_s = 0;
};

/// What a collective runs with. The algorithm: `requested` when given, else the platform's default
/// for the collective (system.collectives.algorithm: "all_reduce.x" before "all_reduce"), else the
/// built-in default: "torus" when every device of a torus takes part, "ring" otherwise. A name may be
/// a comma-separated list ("hierarchical,double_binary_tree") or "auto" (every registered algorithm
/// that implements the collective): of those that can run on the participants, the one whose closed
/// form is fastest for `bytes` runs, as NCCL's tuner picks among the algorithms NCCL_ALGO allows. The
/// protocol: of system.collectives.protocols, the fastest with that algorithm (one evaluation of every
/// pair; ties go to the earlier algorithm, then protocol). Throws InputError when a single named
/// algorithm does not implement the collective or cannot run here, or when none of a list can.
Choice choose(const std::string& collective, double bytes, const std::string& requested, const Participants& who,
              const topology::TopologyGraph& graph, const std::string& axis = "");

/// Groups the participants into locality domains: the members that reach each other without the
/// slowest links among them (a GPU cluster's nodes; one domain on a uniform fabric). Each domain keeps
/// the participants' order; domains are ordered by their first member.
std::vector<std::vector<int>> locality_domains(const std::vector<int>& devices, const topology::TopologyGraph& graph);

/// The alpha-beta description of the participants on the topology: alpha = the largest route latency
/// between ring neighbours + the platform's endpoint overhead, B = the smallest route bandwidth
/// between them x protocol efficiency; the same inside and between domains; the torus axes.
Fabric fabric_of(const Participants& who, const topology::TopologyGraph& graph);

/// The fabric as the protocol sees it: its step latency added to every alpha, its efficiency
/// multiplied into every bandwidth.
Fabric with_protocol(Fabric fabric, const topology::CollectiveProtocol& protocol);

/// The choice's closed form: the protocol's base latency + the algorithm's formula on `fabric`
/// (already with_protocol). 0 for an empty collective.
double formula_time(const Algorithm& algorithm, const topology::CollectiveProtocol& protocol,
                    const std::string& collective, double bytes, const Fabric& fabric);

/// Builds the schedule of `collective` with the choice's algorithm and applies the platform's
/// protocol efficiency times the protocol's (the wire carries bytes / efficiency), the endpoint
/// overhead plus the protocol's step latency (Schedule::step_overhead_s) and the protocol's base
/// latency (Schedule::start_overhead_s).
Schedule build_with(const Choice& choice, const std::string& collective, double bytes, const Participants& who,
                    const topology::TopologyGraph& graph);

/// The participants `devices` (in ring order) on `graph`: with their torus axes when they are every
/// device of a torus (the torus algorithm then applies).
Participants participants_of(const std::vector<int>& devices, const topology::TopologyGraph& graph);

/// True when one switch that declares in_switch_reduction links every member directly.
bool on_reducing_switch(const std::vector<int>& members, const topology::TopologyGraph& graph);

/// `collective` of `bytes` per device over `devices` by `requested` (or the platform's or built-in
/// default: choose), as a device schedule (build_with). What the lowerings and the
/// planners that price collectives on the topology (DeePa's update) share.
Schedule collective_schedule(const std::string& collective, const std::vector<int>& devices, double bytes,
                             const std::string& requested, const topology::TopologyGraph& graph);

// ---- helpers the builders share ------------------------------------------------------------------

/// Ring reduce-scatter or all-gather over each of `rings` at once, from step `step0`: (p - 1) steps in
/// which member i sends bytes / (p x dirs) to member i + 1 (and to i - 1 when bidirectional and p > 2).
/// Returns the steps used.
int ring_pass(Schedule& s, const std::vector<std::vector<int>>& rings, double bytes, bool bidirectional, int step0);

}  // namespace partsim::collectives
