#pragma once
// DeepSpatialMatrix's search over a network (seed 003 §II-E): per group the states (ChipD, DySM
// factor, input reuse, in-place layout), each state's passes from the per-pass search
// (pass_search.hpp), memoized, and the dynamic programme over the chain of groups that decides
// relayout between neighbours and inter-layer memory reuse (§III-B) jointly. Internal to the search;
// search.hpp is the public header.
//
// Contract: run() is deterministic and returns a plan whose per-pass totals are final (relayouts
// charged, totals summed); the memo holds only values of this object's capacity and preloading, so
// changing either clears it.

#include <array>
#include <compare>
#include <cstddef>
#include <map>
#include <vector>

#include "sim/planners/dsm/pass_search.hpp"
#include "sim/planners/dsm/search.hpp"

namespace partsim::dsm::detail {

/// One DP state of a group.
struct State {
  ChipSplit split = ChipSplit::data;
  int dysm = 1;
  bool reuse_in = false;
  /// Every pass's CoreD splits only mb and ij (in = out = kij = 1): the layout a neighbour can
  /// meet without splitting its reduction, which the DP may pick for memory reuse.
  bool in_place = false;
};

/// Memo key of a group in a state, with its output held on chip for the next group or not.
struct StateKey {
  std::size_t group = 0;
  ChipSplit split = ChipSplit::data;
  int dysm = 1;
  bool reuse_in = false;
  bool reuse_out = false;
  bool in_place = false;
  auto operator<=>(const StateKey&) const = default;
};

/// Memo key of one pass restricted to a producer's CoreD layout (matching_choice).
struct MatchKey {
  StateKey state;
  Pass pass = Pass::fwd;
  std::array<long long, 5> layout{};  // the producer's CoreD, in Split5 field order
  auto operator<=>(const MatchKey&) const = default;
};

/// Every pass of a group in one state and their total (kInf: no configuration).
struct StateCost {
  double total = kInf;
  std::vector<PassChoice> passes;
};

/// The search object of one network on one system with one option set.
class NetworkSearch {
 public:
  NetworkSearch(const GroupChain& network, const DsmSystem& system, const DsmOptions& options);

  /// Scratchpad bytes per core open to held activations (default: scratchpad - reserve).
  void set_activation_capacity(double bytes);
  /// Groups whose FWD weights are preloaded (§III-B, inference).
  void set_preloaded(std::vector<bool> preload);
  double capacity() const { return capacity_; }

  const GroupChain& network() const { return net_; }
  const DsmSystem& system() const { return s_; }
  const DsmOptions& options() const { return o_; }
  FactorizationCache& factorizations() { return factorizations_; }
  bool inference() const { return o_.mode == plan::Mode::inference; }

  /// The ChipDs tried for a layer (hybrid ones with the option on a 2-D torus).
  std::vector<ChipSplit> splits_for(const DsmLayer& layer) const;
  /// The DySM factors tried for a layer in `split` (§III-C).
  std::vector<int> dysm_for(const DsmLayer& layer, ChipSplit split) const;

  /// The dynamic programme, run twice: with every state's CoreD chosen alone (a core-to-core
  /// relayout charged where a reuse edge's layouts differ), and with the consumer of a reuse edge
  /// choosing its CoreD to meet the producer's along the path (with_producer). The second is
  /// usually better but path-dependent, so it is not always: the cheaper plan is kept (ties: the
  /// first), so adding the second reading never makes a plan worse.
  std::array<DsmResult, 2> run_both() { return {run_dp(false), run_dp(true)}; }
  static const DsmResult& cheaper(const std::array<DsmResult, 2>& r) {
    return r[1].iteration_s < r[0].iteration_s ? r[1] : r[0];
  }
  DsmResult run() { return cheaper(run_both()); }

  /// Relayout on every cross-group edge from the chosen splits, on the consumer's FWD and BWD.
  void charge_edges(DsmResult& r) const;
  /// Every pass's, layer's and the iteration's totals and useful MACs, and the utilization.
  void finish(DsmResult& r) const;

 private:
  struct Node;

  double held_bytes(std::size_t group, int dysm) const;
  bool chain_edge(std::size_t group) const;
  bool reuse_possible(std::size_t group, int dysm) const;
  PassChoice pass_choice(std::size_t group, const State& st, bool reuse_out, Pass pass,
                         const Split5* producer_layout = nullptr);
  static StateKey state_key(std::size_t group, const State& st, bool reuse_out);
  const StateCost& cost(std::size_t group, const State& st, bool reuse_out);
  StateCost with_producer(std::size_t group, const State& st, bool reuse_out, const StateCost* producer,
                          bool match_producer);
  const PassChoice& matching_choice(std::size_t group, const State& st, bool reuse_out, Pass pass,
                                    const Split5& layout);
  double relayout_time(std::size_t producer, ChipSplit from, ChipSplit to) const;
  void compute_live();
  double edge_cost(std::size_t l, std::size_t p, ChipSplit from, ChipSplit to) const;
  double relayout_passes(const DsmLayer& layer) const;
  DsmResult run_dp(bool match_producer);

  const GroupChain& net_;
  DsmSystem s_;
  DsmOptions o_;
  double capacity_ = 0;
  std::vector<bool> preload_;
  FactorizationCache factorizations_;
  std::map<StateKey, StateCost> memo_;
  std::map<MatchKey, PassChoice> matching_memo_;
  std::vector<std::vector<std::size_t>> live_;
};

}  // namespace partsim::dsm::detail
