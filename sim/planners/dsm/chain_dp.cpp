// The dynamic programme of seed 003 §II-E over the chain of layer groups, with memory reuse on its
// edges (§III-B) decided jointly (chain_dp.hpp).

#include "sim/planners/dsm/chain_dp.hpp"

#include <algorithm>
#include <optional>
#include <utility>

namespace partsim::dsm::detail {

namespace {

/// The DySM factors tried (§III-C), capped by DsmOptions::max_dysm_factor.
constexpr std::array<int, 7> kDysmFactors = {1, 2, 4, 8, 16, 32, 64};

}  // namespace

NetworkSearch::NetworkSearch(const GroupChain& net, const DsmSystem& s, const DsmOptions& o)
    : net_(net), s_(s), o_(o) {
  capacity_ = s.chip.core.scratchpad_bytes - scratchpad_reserve(s);
  preload_.assign(net.groups.size(), false);
}

void NetworkSearch::set_activation_capacity(double bytes) {
  capacity_ = bytes;
  memo_.clear();
  matching_memo_.clear();
}

void NetworkSearch::set_preloaded(std::vector<bool> preload) {
  preload_ = std::move(preload);
  memo_.clear();
  matching_memo_.clear();
}

std::vector<ChipSplit> NetworkSearch::splits_for(const DsmLayer& L) const {
  if (!L.primary || s_.chips() == 1) return {ChipSplit::data};
  std::vector<ChipSplit> v = {ChipSplit::data, ChipSplit::model};
  if (o_.hybrid && s_.M > 1 && s_.N > 1) {
    v.push_back(ChipSplit::data_x_model_y);
    v.push_back(ChipSplit::model_x_data_y);
  }
  return v;
}

std::vector<int> NetworkSearch::dysm_for(const DsmLayer& L, ChipSplit split) const {
  std::vector<int> v = {1};
  if (!o_.dysm || !L.primary || L.lstm) return v;
  const int chip_mb = chip_factors(split, s_.M, s_.N).mb;
  for (int f : kDysmFactors)
    if (f > 1 && f <= o_.max_dysm_factor && ceil_div(L.mb, f) >= chip_mb) v.push_back(f);
  return v;
}

/// Bytes per core held when `group` takes its input from the scratchpad (§III-B): the producer's
/// output, its own output and the retained short-cut tensors, for one spatial minibatch.
double NetworkSearch::held_bytes(std::size_t group, int dysm) const {
  const auto& g = net_.groups[group];
  return reuse_held_bytes(net_.groups[group - 1].layer, g.layer, g.retained_elements, dysm, s_);
}

bool NetworkSearch::chain_edge(std::size_t group) const {
  return group > 0 && net_.groups[group].primary_producer == static_cast<std::ptrdiff_t>(group - 1);
}

bool NetworkSearch::reuse_possible(std::size_t group, int dysm) const {
  if (!o_.memreuse || !chain_edge(group)) return false;
  if (!net_.groups[group].layer.primary || !net_.groups[group - 1].layer.primary) return false;
  return held_bytes(group, dysm) <= capacity_;
}

/// One pass of `group` in state `st`: the best CoreD x ArrayD (with `producer_layout`, the best
/// whose layout matches the producer's for memory reuse), its flags and costs.
PassChoice NetworkSearch::pass_choice(std::size_t group, const State& st, bool reuse_out, Pass pass,
                                      const Split5* producer_layout) {
  const DsmLayer& L = net_.groups[group].layer;
  const DsmLayer Ls = with_minibatch(L, ceil_div(L.mb, st.dysm));
  const long long iterations = L.ts * st.dysm;
  const double budget = (s_.chip.core.scratchpad_bytes - scratchpad_reserve(s_)) -
                        (st.reuse_in ? held_bytes(group, st.dysm) : 0.0);
  // LSTM weight reuse across timesteps (§III-B); in inference it counts with the weight
  // optimizations (preloading), as in the paper's Fig. 11(d-f) bars.
  const bool allow_wr = o_.memreuse && L.lstm && (!inference() || o_.preload);
  PassFlags base = flags_for(pass, st.reuse_in, reuse_out, inference());
  if (pass == Pass::fwd && preload_[group]) base.fetch_b = false;  // weights preloaded (§III-B)
  const PassEval ev =
      best_pass(Ls, pass, st.split, iterations, base, allow_wr, budget, s_, factorizations_, producer_layout,
                st.in_place);
  PassChoice pc = choice_of(pass, ev, iterations);
  pc.weight_reuse = ev.weight_reuse || (pass == Pass::fwd && preload_[group]);
  pc.preloaded = pass == Pass::fwd && preload_[group];
  pc.memory_reuse = pass == Pass::fwd ? (st.reuse_in || (reuse_out && inference())) : reuse_out;
  if (pass == Pass::upd) pc.grad_reduction_s = gradient_time(L, st.split, s_);
  pc.total_s = ev.total + pc.grad_reduction_s;
  return pc;
}

/// Memo key of `group` in state `st` (with its output held on chip or not).
StateKey NetworkSearch::state_key(std::size_t group, const State& st, bool reuse_out) {
  return StateKey{group, st.split, st.dysm, st.reuse_in, reuse_out, st.in_place};
}

/// Every pass of `group` in state `st`, each with its best CoreD alone.
const StateCost& NetworkSearch::cost(std::size_t group, const State& st, bool reuse_out) {
  const StateKey key = state_key(group, st, reuse_out);
  auto it = memo_.find(key);
  if (it != memo_.end()) return it->second;
  StateCost sc;
  sc.total = 0;
  for (Pass pass : passes_of(net_.groups[group].layer, o_)) {
    sc.passes.push_back(pass_choice(group, st, reuse_out, pass));
    sc.total += sc.passes.back().total_s;
  }
  return memo_.emplace(key, std::move(sc)).first->second;
}

/// The passes of `group` in state `st` when its input is held on chip from `producer` (the
/// previous group's passes, laid out as chosen): per FWD and BWD pass, the cheaper of the best
/// CoreD alone plus the core-to-core relayout (§III-B, when the layouts differ) and the best CoreD
/// whose layout matches the producer's. CoreD is thus chosen with the neighbour's, along the
/// DP's path. total includes the relayouts. Without reuse: the passes alone.
StateCost NetworkSearch::with_producer(std::size_t group, const State& st, bool reuse_out,
                                       const StateCost* producer, bool match_producer) {
  StateCost sc = cost(group, st, reuse_out);
  if (!st.reuse_in || !producer) return sc;
  sc.total = 0;
  for (PassChoice& pc : sc.passes) {
    const PassChoice* pp = nullptr;
    for (const auto& x : producer->passes)
      if (x.pass == pc.pass) pp = &x;
    if (pc.pass != Pass::upd && pp && !reuse_layouts_match(pc.pass, pp->config.core, pc.config.core)) {
      const double relayout = onchip_relayout_time(net_.groups[group - 1].layer, s_);
      const PassChoice* matching =
          match_producer ? &matching_choice(group, st, reuse_out, pc.pass, pp->config.core) : nullptr;
      if (matching && matching->total_s < pc.total_s + relayout) {
        pc = *matching;
      } else {
        pc.onchip_relayout_s = relayout;
      }
    }
    sc.total += pc.total_s + pc.onchip_relayout_s;
  }
  return sc;
}

/// pass_choice restricted to the producer's layout, memoized (total kInf when none matches).
const PassChoice& NetworkSearch::matching_choice(std::size_t group, const State& st, bool reuse_out, Pass pass,
                                                 const Split5& layout) {
  const MatchKey key{state_key(group, st, reuse_out), pass, {layout.in, layout.out, layout.ij, layout.kij, layout.mb}};
  auto it = matching_memo_.find(key);
  if (it != matching_memo_.end()) return it->second;
  return matching_memo_.emplace(key, pass_choice(group, st, reuse_out, pass, &layout)).first->second;
}

double NetworkSearch::relayout_time(std::size_t producer, ChipSplit from, ChipSplit to) const {
  const auto& P = net_.groups[producer].layer;
  const double bytes = P.out_elements * static_cast<double>(P.ts) * s_.bytes_per_element;
  return group_time(relayout(bytes, from, to, s_), s_);
}

struct NetworkSearch::Node {
  State st;
  std::vector<ChipSplit> live;  // splits of the groups in live_[l], in order
  double value = kInf;
  int back = -1;
  /// The group's passes along the best path to this node (with_producer), without and with its
  /// output held on chip for the next group: [reuse_out].
  std::array<StateCost, 2> variant;
};

/// Groups before l whose outputs are read by a group after l (short-cuts, attention memory):
/// their split must be remembered by the DP to charge the relayout on those later edges.
void NetworkSearch::compute_live() {
  const std::size_t n = net_.groups.size();
  std::vector<std::size_t> last_use(n, 0);
  for (std::size_t c = 0; c < n; ++c)
    for (std::size_t p : net_.groups[c].producers) last_use[p] = std::max(last_use[p], c);
  live_.assign(n, {});
  for (std::size_t l = 0; l < n; ++l)
    for (std::size_t p = 0; p < l; ++p)
      if (last_use[p] > l) live_[l].push_back(p);
}

/// Relayout charged to group l for reading producer p laid out by `from` (FWD, and BWD for the
/// error going back in training).
double NetworkSearch::edge_cost(std::size_t l, std::size_t p, ChipSplit from, ChipSplit to) const {
  if (from == to) return 0;
  return relayout_passes(net_.groups[l].layer) * relayout_time(p, from, to);
}


/// The dynamic programme over the groups in topological order (seed 003 §II-E; issue: "not a
/// greedy per-layer pick"). State: the group's (split, DySM factor, input reuse) plus the splits
/// of the live earlier groups, so every cross-group edge's relayout is charged exactly.
DsmResult NetworkSearch::run_dp(bool match_producer) {
  const std::size_t n = net_.groups.size();
  compute_live();
  std::vector<std::vector<Node>> nodes(n);
  for (std::size_t l = 0; l < n; ++l) {
    const DsmLayer& L = net_.groups[l].layer;
    std::vector<State> states;
    for (ChipSplit sp : splits_for(L))
      for (int f : dysm_for(L, sp))
        for (int r = 1; r >= 0; --r) {  // reuse first: equal costs go to reuse (§III-B "aggressively")
          if (r == 1 && !reuse_possible(l, f)) continue;
          states.push_back(State{sp, f, r == 1, false});
          // The in-place layout matters only where a neighbour may hold a tensor on chip.
          const bool neighbour_reuse = r == 1 || (l + 1 < n && reuse_possible(l + 1, f));
          if (match_producer && L.primary && neighbour_reuse) states.push_back(State{sp, f, r == 1, true});
        }
    std::map<std::pair<std::size_t, std::vector<ChipSplit>>, std::size_t> index;
    // Keeps the cheaper path to (state, live splits); the variants follow the path kept.
    // `own` is the state's variant[0] when the caller has computed it (memory reuse), else null.
    auto relax = [&](std::size_t si, std::vector<ChipSplit> live, double v, int back, const StateCost* producer,
                     StateCost* own) {
      auto key = std::make_pair(si, live);
      auto it = index.find(key);
      Node* node = nullptr;
      if (it == index.end()) {
        index.emplace(key, nodes[l].size());
        nodes[l].push_back(Node{states[si], std::move(live), v, back, {}});
        node = &nodes[l].back();
      } else if (v < nodes[l][it->second].value) {
        node = &nodes[l][it->second];
        node->value = v;
        node->back = back;
      }
      if (!node) return;
      node->variant[0] = own ? std::move(*own) : with_producer(l, states[si], false, producer, match_producer);
      node->variant[1] = with_producer(l, states[si], true, producer, match_producer);
    };
    for (std::size_t si = 0; si < states.size(); ++si) {
      const State& st = states[si];
      const double alone = cost(l, st, false).total;
      if (l == 0) {
        relax(si, {}, alone, -1, nullptr, nullptr);
        continue;
      }
      for (std::size_t j = 0; j < nodes[l - 1].size(); ++j) {
        const Node& pn = nodes[l - 1][j];
        if (pn.value == kInf) continue;
        auto split_of = [&](std::size_t p) {
          if (p == l - 1) return pn.st.split;
          const auto& lv = live_[l - 1];
          const auto pos = static_cast<std::size_t>(std::find(lv.begin(), lv.end(), p) - lv.begin());
          return pn.live[pos];
        };
        double t = 0;
        const StateCost* producer = nullptr;
        std::optional<StateCost> own;  // with reuse: this group's passes meeting the producer's
        if (st.reuse_in) {
          if (pn.st.split != st.split || pn.st.dysm != st.dysm) continue;
          producer = &pn.variant[1];
          // The producer now keeps its output on chip; this group's CoreD meets its layout.
          t += pn.variant[1].total - pn.variant[0].total;
          own = with_producer(l, st, false, producer, match_producer);
        }
        for (std::size_t p : net_.groups[l].producers) {
          if (p >= l || (st.reuse_in && p + 1 == l)) continue;  // producers precede (group_chain.hpp)
          t += edge_cost(l, p, split_of(p), st.split);
        }
        std::vector<ChipSplit> live;
        for (std::size_t p : live_[l]) live.push_back(split_of(p));
        relax(si, std::move(live), pn.value + t + (own ? own->total : alone), static_cast<int>(j), producer,
              own ? &*own : nullptr);
      }
    }
  }
  DsmResult result;
  if (n == 0) return result;
  // Backtrack from the cheapest final node.
  std::vector<std::size_t> pick(n, 0);
  double bestv = kInf;
  for (std::size_t j = 0; j < nodes[n - 1].size(); ++j)
    if (nodes[n - 1][j].value < bestv) {
      bestv = nodes[n - 1][j].value;
      pick[n - 1] = j;
    }
  for (std::size_t l = n - 1; l > 0; --l) pick[l - 1] = static_cast<std::size_t>(nodes[l][pick[l]].back);

  result.layers.resize(n);
  for (std::size_t l = 0; l < n; ++l) {
    const State st = nodes[l][pick[l]].st;
    const bool reuse_out = l + 1 < n && nodes[l + 1][pick[l + 1]].st.reuse_in;
    LayerChoice& lc = result.layers[l];
    lc.group = l;
    lc.name = net_.groups[l].members.front();
    lc.split = st.split;
    lc.dysm_factor = st.dysm;
    lc.reuse_in = st.reuse_in;
    lc.reuse_out = reuse_out;
    lc.passes = nodes[l][pick[l]].variant[reuse_out ? 1 : 0].passes;
  }
  charge_edges(result);
  finish(result);
  return result;
}

/// Relayout on every cross-group edge from the chosen splits, on the consumer's FWD and BWD.
void NetworkSearch::charge_edges(DsmResult& r) const {
  for (std::size_t l = 0; l < r.layers.size(); ++l) {
    LayerChoice& lc = r.layers[l];
    for (auto& pc : lc.passes) pc.relayout_s = 0;
    for (std::size_t p : net_.groups[l].producers) {
      if (lc.reuse_in && p + 1 == l) continue;
      if (lc.pipe_group && r.layers[p].pipe_group == lc.pipe_group) continue;  // handed on per step
      const ChipSplit from = r.layers[p].split;
      if (from == lc.split) continue;
      const double t = relayout_time(p, from, lc.split);
      bool charged_bwd = false;
      for (auto& pc : lc.passes)
        if (pc.pass == Pass::fwd) pc.relayout_s += t;
        else if (pc.pass == Pass::bwd) { pc.relayout_s += t; charged_bwd = true; }
      // No BWD pass here (first layer) but training: the error still goes back.
      if (!charged_bwd && !inference() && relayout_passes(net_.groups[l].layer) > 1)
        for (auto& pc : lc.passes)
          if (pc.pass == Pass::fwd) pc.relayout_s += t;
    }
  }
}

double NetworkSearch::relayout_passes(const DsmLayer& L) const {
  return inference() ? 1.0 : (L.first ? 1.0 : 2.0);
}

void NetworkSearch::finish(DsmResult& r) const {
  r.iteration_s = 0;
  r.useful_macs = 0;
  for (auto& lc : r.layers) {
    lc.total_s = 0;
    lc.useful_macs = 0;
    for (auto& pc : lc.passes) {
      const double base = pc.pipelined_s >= 0
                              ? pc.pipelined_s
                              : pc.over_iterations(pc.first.total, pc.rest.total) + pc.grad_reduction_s;
      pc.total_s = base + pc.relayout_s + pc.onchip_relayout_s;
      lc.total_s += pc.total_s;
      lc.useful_macs += pc.over_iterations(pc.first.macs, pc.rest.macs);
    }
    r.iteration_s += lc.total_s;
    r.useful_macs += lc.useful_macs;
  }
  r.utilization = r.iteration_s > 0 ? r.useful_macs / (s_.peak_macs_per_s() * r.iteration_s) : 0;
}

}  // namespace partsim::dsm::detail
