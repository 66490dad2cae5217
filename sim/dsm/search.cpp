#include "sim/dsm/search.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>

#include "sim/common/error.hpp"

namespace partsim::dsm {

// ---- options ------------------------------------------------------------------------------------

DsmOptions parse_dsm_options(const std::vector<std::string>& words) {
  DsmOptions o;
  for (const std::string& list : words) {
    std::stringstream ss(list);
    std::string w;
    while (std::getline(ss, w, ',')) {
      if (w.empty()) continue;
      if (w == "hybrid") o.hybrid = true;
      else if (w == "memreuse") o.memreuse = true;
      else if (w == "dysm") o.dysm = true;
      else if (w == "tpipe") o.tpipe = true;
      else if (w == "all") o.hybrid = o.memreuse = o.dysm = o.tpipe = true;
      else if (w == "none") o.hybrid = o.memreuse = o.dysm = o.tpipe = false;
      else throw UnknownNameError("dsm optimization", w, "hybrid, memreuse, dysm, tpipe, all, none");
    }
  }
  return o;
}

std::vector<std::string> option_words(const DsmOptions& o) {
  std::vector<std::string> v;
  if (o.hybrid) v.push_back("hybrid");
  if (o.memreuse) v.push_back("memreuse");
  if (o.dysm) v.push_back("dysm");
  if (o.tpipe) v.push_back("tpipe");
  if (v.empty()) v.push_back("none");
  return v;
}

// ---- enumeration --------------------------------------------------------------------------------

const std::vector<Split5>& factorizations(int n) {
  static std::map<int, std::vector<Split5>> cache;
  auto it = cache.find(n);
  if (it != cache.end()) return it->second;
  std::vector<Split5> out;
  std::vector<long long> divisors;
  for (long long d = 1; d <= n; ++d)
    if (n % d == 0) divisors.push_back(d);
  // Order: in, out, ij, kij, mb (Split5 field order), each ascending.
  for (long long a : divisors)
    for (long long b : divisors) {
      if ((n / a) % b != 0 || a * b > n) continue;
      for (long long c : divisors) {
        if (a * b * c > n || n % (a * b * c) != 0) continue;
        for (long long d : divisors) {
          if (a * b * c * d > n || n % (a * b * c * d) != 0) continue;
          out.push_back(Split5{a, b, c, d, n / (a * b * c * d)});
        }
      }
    }
  return cache.emplace(n, std::move(out)).first->second;
}

// ---- scratchpad budget (§III-B, §III-C) ----------------------------------------------------------

double scratchpad_reserve(const DsmSystem& s) {
  const auto& c = s.chip.core;
  return 4.0 * c.array.rows * c.array.cols * c.pe.simd_lanes * s.bytes_per_element;
}

double reuse_held_bytes(const DsmLayer& prev, const DsmLayer& cur, double retained_elements, int dysm,
                        const DsmSystem& s) {
  const double steps = static_cast<double>(cur.ts);
  const double elements = prev.out_elements * static_cast<double>(prev.ts) + cur.out_elements * steps +
                          retained_elements * steps;
  return held_tile_elements(elements, dysm, s) * s.bytes_per_element;
}

// ---- breakdown ----------------------------------------------------------------------------------

std::map<std::string, double> PassChoice::breakdown() const {
  const double n_rest = static_cast<double>(iterations - 1);
  auto both = [&](auto f) { return f(first) + n_rest * f(rest); };
  double mac_busy = both([](const PassCost& c) { return c.mac_busy; });
  double pri = both([](const PassCost& c) { return c.pricomp; });
  double hidden = both([](const PassCost& c) { return std::max(0.0, c.ovl - c.pricomp); });
  double aux = both([](const PassCost& c) { return c.aux; });
  double partial = both([](const PassCost& c) { return c.partial_sum; });
  double non_ovl = both([](const PassCost& c) { return c.non_ovl; });
  non_ovl += grad_reduction_s + relayout_s + onchip_relayout_s;
  double underuse = std::max(0.0, pri - mac_busy);
  const double sum = mac_busy + underuse + hidden + non_ovl + aux;
  // Pipelined layers (§III-D) report their share of the group's time: scale the terms to it.
  const double scale = sum > 0 ? total_s / sum : 1.0;
  return {{"mac_busy_s", mac_busy * scale},
          {"array_underuse_s", underuse * scale},
          {"overlap_not_hidden_s", hidden * scale},
          {"non_overlapped_s", non_ovl * scale},
          {"auxiliary_s", aux * scale},
          {"partial_sum_s", partial * scale},
          {"gradient_reduction_s", grad_reduction_s * scale},
          {"relayout_s", (relayout_s + onchip_relayout_s) * scale}};
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr std::array<ChipSplit, 4> kSplits = {ChipSplit::data, ChipSplit::model, ChipSplit::data_x_model_y,
                                              ChipSplit::model_x_data_y};
constexpr std::array<int, 7> kDysmFactors = {1, 2, 4, 8, 16, 32, 64};

long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

/// The passes of a layer in execution order: with memory reuse UPD runs before BWD (§III-B
/// "BWD/UPD sequence"), so the error the next layer left in the scratchpad serves both.
std::vector<Pass> passes_of(const DsmLayer& L, const DsmOptions& o) {
  if (o.mode == plan::Mode::inference) return {Pass::fwd};
  if (L.first) return {Pass::fwd, Pass::upd};  // nothing needs the error of a graph input
  if (o.memreuse) return {Pass::fwd, Pass::upd, Pass::bwd};
  return {Pass::fwd, Pass::bwd, Pass::upd};
}

bool splits_reduction(const Split5& f, Pass pass) {
  switch (pass) {
    case Pass::fwd: return f.in > 1 || f.kij > 1;
    case Pass::bwd: return f.out > 1 || f.kij > 1;
    case Pass::upd: return f.mb > 1 || f.ij > 1;
  }
  return false;
}

struct PassEval {
  CoreConfig config;
  PassCost first;
  PassCost rest;
  bool weight_reuse = false;
  double total = kInf;
};

/// A pass's choice as the search found it: its best configuration, costs and weight reuse.
PassChoice choice_of(Pass pass, const PassEval& ev, long long iterations) {
  PassChoice pc;
  pc.pass = pass;
  pc.config = ev.config;
  pc.first = ev.first;
  pc.rest = ev.rest;
  pc.iterations = iterations;
  pc.weight_reuse = ev.weight_reuse;
  pc.weights_held = ev.weight_reuse;
  return pc;
}

/// Best CoreD x ArrayD for one pass of a layer already cut to its spatial minibatch; with
/// `producer_layout`, only CoreDs whose layout matches it for memory reuse (reuse_layouts_match).
PassEval best_pass(const DsmLayer& L, Pass pass, ChipSplit split, long long iterations, const PassFlags& base,
                   bool allow_weight_reuse, double weight_budget, const DsmSystem& s,
                   const Split5* producer_layout = nullptr, bool in_place = false) {
  PassEval best;
  const auto& core_f = factorizations(s.cores());
  const auto& array_f = factorizations(std::max(1, s.chip.core.arrays));
  const ChipFactors cf = chip_factors(split, s.M, s.N);
  const Split5 chipd{L.in, ceil_div(L.out, cf.out), L.ij, L.kij, ceil_div(L.mb, cf.mb)};
  const double kernel_chip = fprod({chipd.in, chipd.out, chipd.kij});
  const double e = s.bytes_per_element;
  // §II-E: balanced configurations first (no dimension split finer than its work); if none
  // exists, all of them (the least imbalance wins on cost).
  for (int round = 0; round < 2; ++round) {
    for (const Split5& c : core_f) {
      bool fits = true;
      for (Dim d : kDims) fits = fits && get(c, d) <= get(chipd, d);
      if (round == 0 && !fits) continue;
      if (!L.primary && !(c.in == 1 && c.out == 1 && c.kij == 1 && c.ij == 1)) continue;
      if (producer_layout && !reuse_layouts_match(pass, *producer_layout, c)) continue;
      if (in_place && (c.in != 1 || c.out != 1 || c.kij != 1)) continue;
      for (const Split5& a : array_f) {
        if (s.chip.core.arrays > 1 && splits_reduction(a, pass)) continue;
        const CoreConfig config{c, a};
        PassEval ev;
        ev.config = config;
        ev.first = evaluate_pass(L, pass, split, config, base, s);
        ev.rest = ev.first;
        if (iterations > 1 && L.primary) {
          PassFlags rf = base;
          const double tile = kernel_chip / static_cast<double>(c.out * c.in * c.kij) * e;
          ev.weight_reuse = allow_weight_reuse && tile <= weight_budget;
          if (pass != Pass::upd) {
            if (ev.weight_reuse) rf.fetch_b = false;  // weights held across timesteps
          } else if (ev.weight_reuse) {
            rf.write_o = false;  // gradient accumulated on chip, written once
          } else {
            rf.extra_memory_bytes += kernel_chip * e;  // read back the partial gradient
          }
          ev.rest = evaluate_pass(L, pass, split, config, rf, s);
        }
        ev.total = ev.first.total + static_cast<double>(iterations - 1) * ev.rest.total;
        if (ev.total < best.total) best = ev;
      }
    }
    if (best.total < kInf) break;
  }
  return best;
}

double gradient_time(const DsmLayer& L, ChipSplit split, const DsmSystem& s) {
  if (!L.primary) return 0;
  const ChipFactors cf = chip_factors(split, s.M, s.N);
  const double grad = fprod({L.in, ceil_div(L.out, cf.out), L.kij}) * s.bytes_per_element;
  return group_time(gradient_reduction(grad, split, s).loads, s);
}

struct State {
  ChipSplit split = ChipSplit::data;
  int dysm = 1;
  bool reuse_in = false;
  /// Every pass's CoreD splits only mb and ij (in = out = kij = 1): the layout a neighbour can
  /// meet without splitting its reduction, which the DP may pick for memory reuse.
  bool in_place = false;
};

struct StateCost {
  double total = kInf;
  std::vector<PassChoice> passes;
};

class Planner {
 public:
  Planner(const DsmNetwork& net, const DsmSystem& s, const DsmOptions& o) : net_(net), s_(s), o_(o) {
    capacity_ = s.chip.core.scratchpad_bytes - scratchpad_reserve(s);
    preload_.assign(net.groups.size(), false);
  }

  void set_activation_capacity(double bytes) {
    capacity_ = bytes;
    memo_.clear();
    matching_memo_.clear();
  }
  void set_preloaded(std::vector<bool> preload) {
    preload_ = std::move(preload);
    memo_.clear();
    matching_memo_.clear();
  }
  double capacity() const { return capacity_; }

  bool inference() const { return o_.mode == plan::Mode::inference; }

  std::vector<ChipSplit> splits_for(const DsmLayer& L) const {
    if (!L.primary || s_.chips() == 1) return {ChipSplit::data};
    std::vector<ChipSplit> v = {ChipSplit::data, ChipSplit::model};
    if (o_.hybrid && s_.M > 1 && s_.N > 1) {
      v.push_back(ChipSplit::data_x_model_y);
      v.push_back(ChipSplit::model_x_data_y);
    }
    return v;
  }

  std::vector<int> dysm_for(const DsmLayer& L, ChipSplit split) const {
    std::vector<int> v = {1};
    if (!o_.dysm || !L.primary || L.lstm) return v;
    const int chip_mb = chip_factors(split, s_.M, s_.N).mb;
    for (int f : kDysmFactors)
      if (f > 1 && f <= o_.max_dysm_factor && ceil_div(L.mb, f) >= chip_mb) v.push_back(f);
    return v;
  }

  /// Bytes per core held when `group` takes its input from the scratchpad (§III-B): the producer's
  /// output, its own output and the retained short-cut tensors, for one spatial minibatch.
  double held_bytes(std::size_t group, int dysm) const {
    const auto& g = net_.groups[group];
    return reuse_held_bytes(net_.groups[group - 1].layer, g.layer, g.retained_elements, dysm, s_);
  }

  bool chain_edge(std::size_t group) const {
    return group > 0 && net_.groups[group].primary_producer == static_cast<std::ptrdiff_t>(group - 1);
  }

  bool reuse_possible(std::size_t group, int dysm) const {
    if (!o_.memreuse || !chain_edge(group)) return false;
    if (!net_.groups[group].layer.primary || !net_.groups[group - 1].layer.primary) return false;
    return held_bytes(group, dysm) <= capacity_;
  }

  /// One pass of `group` in state `st`: the best CoreD x ArrayD (with `producer_layout`, the best
  /// whose layout matches the producer's for memory reuse), its flags and costs.
  PassChoice pass_choice(std::size_t group, const State& st, bool reuse_out, Pass pass,
                         const Split5* producer_layout = nullptr) const {
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
        best_pass(Ls, pass, st.split, iterations, base, allow_wr, budget, s_, producer_layout, st.in_place);
    PassChoice pc = choice_of(pass, ev, iterations);
    pc.weight_reuse = ev.weight_reuse || (pass == Pass::fwd && preload_[group]);
    pc.preloaded = pass == Pass::fwd && preload_[group];
    pc.memory_reuse = pass == Pass::fwd ? (st.reuse_in || (reuse_out && inference())) : reuse_out;
    if (pass == Pass::upd) pc.grad_reduction_s = gradient_time(L, st.split, s_);
    pc.total_s = ev.total + pc.grad_reduction_s;
    return pc;
  }

  /// Memo key of `group` in state `st` (with its output held on chip or not).
  static std::string state_key(std::size_t group, const State& st, bool reuse_out) {
    return std::to_string(group) + "/" + to_string(st.split) + "/" + std::to_string(st.dysm) + "/" +
           (st.reuse_in ? "1" : "0") + (reuse_out ? "1" : "0") + (st.in_place ? "i" : "");
  }

  /// Every pass of `group` in state `st`, each with its best CoreD alone.
  const StateCost& cost(std::size_t group, const State& st, bool reuse_out) {
    const std::string key = state_key(group, st, reuse_out);
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
  StateCost with_producer(std::size_t group, const State& st, bool reuse_out, const StateCost* producer,
                          bool match_producer) {
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
  const PassChoice& matching_choice(std::size_t group, const State& st, bool reuse_out, Pass pass,
                                    const Split5& layout) {
    std::string key = state_key(group, st, reuse_out) + "/" + plan::to_string(pass);
    for (Dim d : kDims) key += "/" + std::to_string(get(layout, d));
    auto it = matching_memo_.find(key);
    if (it != matching_memo_.end()) return it->second;
    return matching_memo_.emplace(key, pass_choice(group, st, reuse_out, pass, &layout)).first->second;
  }

  double relayout_time(std::size_t producer, ChipSplit from, ChipSplit to) const {
    const auto& P = net_.groups[producer].layer;
    const double bytes = P.out_elements * static_cast<double>(P.ts) * s_.bytes_per_element;
    return group_time(relayout(bytes, from, to, s_), s_);
  }

  struct Node {
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
  void compute_live() {
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
  double edge_cost(std::size_t l, std::size_t p, ChipSplit from, ChipSplit to) const {
    if (from == to) return 0;
    return relayout_passes(net_.groups[l].layer) * relayout_time(p, from, to);
  }

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

  /// The dynamic programme over the groups in topological order (seed 003 §II-E; issue: "not a
  /// greedy per-layer pick"). State: the group's (split, DySM factor, input reuse) plus the splits
  /// of the live earlier groups, so every cross-group edge's relayout is charged exactly.
  DsmResult run_dp(bool match_producer) {
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
            if (p >= l || (st.reuse_in && p + 1 == l)) continue;  // producers precede (network.hpp)
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
      lc.passes = nodes[l][pick[l]].variant[reuse_out ? 1 : 0].passes;
    }
    charge_edges(result);
    finish(result);
    return result;
  }

  /// Relayout on every cross-group edge from the chosen splits, on the consumer's FWD and BWD.
  void charge_edges(DsmResult& r) const {
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

  double relayout_passes(const DsmLayer& L) const {
    return inference() ? 1.0 : (L.first ? 1.0 : 2.0);
  }

  void finish(DsmResult& r) const {
    r.iteration_s = 0;
    r.useful_macs = 0;
    for (auto& lc : r.layers) {
      lc.total_s = 0;
      lc.useful_macs = 0;
      for (auto& pc : lc.passes) {
        const double base = pc.pipelined_s >= 0
                                ? pc.pipelined_s
                                : pc.first.total + static_cast<double>(pc.iterations - 1) * pc.rest.total +
                                      pc.grad_reduction_s;
        pc.total_s = base + pc.relayout_s + pc.onchip_relayout_s;
        lc.total_s += pc.total_s;
        lc.useful_macs += pc.first.macs + static_cast<double>(pc.iterations - 1) * pc.rest.macs;
      }
      r.iteration_s += lc.total_s;
      r.useful_macs += lc.useful_macs;
    }
    r.utilization = r.iteration_s > 0 ? r.useful_macs / (s_.peak_macs_per_s() * r.iteration_s) : 0;
  }

  // ---- §III-D timestep pipelining ------------------------------------------------------------

  void pipeline(DsmResult& r) {
    const std::size_t n = net_.groups.size();
    int next_id = 0;
    std::size_t l = 0;
    while (l < n) {
      auto pipelinable = [&](std::size_t i) {
        const auto& L = net_.groups[i].layer;
        return L.primary && L.lstm && !L.bidirectional && L.ts > 1;
      };
      if (!pipelinable(l)) {
        ++l;
        continue;
      }
      std::size_t end = l + 1;
      while (end < n && pipelinable(end) && net_.groups[end].primary_producer == static_cast<std::ptrdiff_t>(end - 1) &&
             end - l < static_cast<std::size_t>(s_.N))
        ++end;
      if (end - l >= 2 && try_pipeline(r, l, end, next_id)) ++next_id;
      l = end;
    }
    charge_edges(r);
    finish(r);
  }

  bool try_pipeline(DsmResult& r, std::size_t begin, std::size_t end, int id) {
    const std::size_t G = end - begin;
    // Chips by OPS (§III-D): whole rows of the torus, proportional to each layer's MACs.
    std::vector<double> macs(G);
    double total_macs = 0;
    for (std::size_t j = 0; j < G; ++j) total_macs += macs[j] = net_.groups[begin + j].layer.macs();
    std::vector<int> rows(G, 1);
    int left = s_.N - static_cast<int>(G);
    std::vector<double> want(G);
    for (std::size_t j = 0; j < G; ++j) want[j] = macs[j] / total_macs * s_.N - 1.0;
    while (left > 0) {
      std::size_t k = 0;
      for (std::size_t j = 1; j < G; ++j)
        if (want[j] - rows[j] > want[k] - rows[k]) k = j;
      ++rows[k];
      --left;
    }
    // Per stage and pass: time per timestep on its sub-torus, plus handing its output on.
    const long long ts = net_.groups[begin].layer.ts;
    std::vector<std::vector<PassChoice>> stage(G);
    std::vector<ChipSplit> splits(G);
    std::vector<double> grad(G, 0);
    for (std::size_t j = 0; j < G; ++j) {
      const DsmLayer& L = net_.groups[begin + j].layer;
      const DsmSystem sub = sub_torus(s_, rows[j]);
      double best = kInf;
      Planner local(net_, sub, o_);
      for (ChipSplit sp : local.splits_for(L)) {
        std::vector<PassChoice> pcs;
        double sum = 0;
        for (Pass pass : passes_of(L, o_)) {
          const PassFlags base = flags_for(pass, false, false, inference());
          const PassEval ev = best_pass(L, pass, sp, ts, base, o_.memreuse, capacity_, sub);
          PassChoice pc = choice_of(pass, ev, ts);
          const double hand_on = (j + 1 < G && pass != Pass::upd)
                                     ? L.out_elements * s_.bytes_per_element / (s_.M * s_.bw_y) + s_.lat_y
                                     : 0.0;
          pc.total_s = ev.total / static_cast<double>(ts) + hand_on;  // per timestep for now
          if (pass == Pass::upd) pc.grad_reduction_s = gradient_time(L, sp, sub);
          sum += pc.total_s;
          pcs.push_back(pc);
        }
        if (sum < best) {
          best = sum;
          stage[j] = pcs;
          splits[j] = sp;
        }
      }
      for (const auto& pc : stage[j]) grad[j] += pc.grad_reduction_s;
    }
    // Pipelined time: (ts + G - 1) steps of the slowest stage per pass; gradient reductions of the
    // stages run concurrently on disjoint chips.
    const std::size_t passes = stage[0].size();
    double group_total = 0;
    std::vector<double> pass_time(passes, 0);
    for (std::size_t p = 0; p < passes; ++p) {
      double slow = 0;
      for (std::size_t j = 0; j < G; ++j) slow = std::max(slow, stage[j][p].total_s);
      pass_time[p] = static_cast<double>(ts + static_cast<long long>(G) - 1) * slow;
      group_total += pass_time[p];
    }
    const double grad_max = *std::max_element(grad.begin(), grad.end());
    group_total += grad_max;
    double current = 0;
    for (std::size_t j = begin; j < end; ++j) current += r.layers[j].total_s;
    if (group_total >= current) return false;
    int row0 = 0;
    for (std::size_t j = 0; j < G; ++j) {
      LayerChoice& lc = r.layers[begin + j];
      lc.split = splits[j];
      lc.dysm_factor = 1;
      lc.reuse_in = false;
      lc.pipe_group = id;
      lc.chips.clear();
      for (int y = row0; y < row0 + rows[j]; ++y)
        for (int x = 0; x < s_.M; ++x) lc.chips.push_back(x + s_.M * y);
      row0 += rows[j];
      lc.passes = stage[j];
    }
    // Each layer reports its share of every pass (by its stage time) and of the reductions.
    for (std::size_t p = 0; p < passes; ++p) {
      double sum = 0;
      for (std::size_t j = 0; j < G; ++j) sum += stage[j][p].total_s;
      for (std::size_t j = 0; j < G; ++j) {
        PassChoice& pc = r.layers[begin + j].passes[p];
        const double share = sum > 0 ? stage[j][p].total_s / sum : 1.0 / static_cast<double>(G);
        pc.pipelined_s = pass_time[p] * share;
        if (pc.pass == Pass::upd) {
          double gsum = 0;
          for (double g : grad) gsum += g;
          const double gshare = gsum > 0 ? grad[j] / gsum : 0.0;
          pc.pipelined_s += grad_max * gshare;
        }
      }
    }
    return true;
  }

 private:
  const DsmNetwork& net_;
  DsmSystem s_;
  DsmOptions o_;
  double capacity_ = 0;
  std::vector<bool> preload_;
  std::map<std::string, StateCost> memo_;
  std::map<std::string, PassChoice> matching_memo_;
  std::vector<std::vector<std::size_t>> live_;
};

/// §III-B weight preloading for inference: rank the layers of `ranking` by the time their weight
/// fetch costs per byte of scratchpad, and sweep the fraction of the scratchpad given to preloaded
/// weights (the rest stays for activation reuse); `best` becomes the fastest plan found.
void sweep_weight_preload(const DsmResult& ranking, const DsmNetwork& network, const DsmSystem& system,
                          const DsmOptions& options, double usable, DsmResult& best) {
  struct Candidate {
    std::size_t group;
    double bytes;
    double gain_per_byte;
  };
  std::vector<Candidate> cands;
  for (const auto& lc : ranking.layers) {
    const DsmLayer& L = network.groups[lc.group].layer;
    if (!L.primary || lc.passes.empty()) continue;
    const PassChoice& pc = lc.passes.front();
    const ChipFactors cf = chip_factors(lc.split, system.M, system.N);
    const Split5& f = pc.config.core;
    // Replicated per CoreD: every core holds the kernel part its work needs.
    const double tile = fprod({L.in, ceil_div(L.out, cf.out), L.kij}) / static_cast<double>(f.in * f.out * f.kij) *
                        system.bytes_per_element;
    PassFlags flags;
    flags.fetch_a = !lc.reuse_in;
    PassFlags without = flags;
    without.fetch_b = false;
    const DsmLayer Ls = with_minibatch(L, ceil_div(L.mb, lc.dysm_factor));
    const double gain = evaluate_pass(Ls, Pass::fwd, lc.split, pc.config, flags, system).total -
                        evaluate_pass(Ls, Pass::fwd, lc.split, pc.config, without, system).total;
    if (gain > 0 && tile > 0 && tile <= usable) cands.push_back({lc.group, tile, gain / tile});
  }
  std::stable_sort(cands.begin(), cands.end(),
                   [](const Candidate& a, const Candidate& b) { return a.gain_per_byte > b.gain_per_byte; });
  for (int eighth = 1; eighth <= 8; ++eighth) {
    const double budget = usable * eighth / 8.0;
    std::vector<bool> preload(network.groups.size(), false);
    double used = 0;
    for (const auto& c : cands)
      if (used + c.bytes <= budget) {
        preload[c.group] = true;
        used += c.bytes;
      }
    if (used == 0) continue;
    Planner trial(network, system, options);
    trial.set_preloaded(preload);
    trial.set_activation_capacity(usable - used);
    DsmResult r = trial.run();
    if (r.iteration_s < best.iteration_s) best = std::move(r);
  }
}

}  // namespace

DsmResult search_network(const DsmNetwork& network, const DsmSystem& system, const DsmOptions& options) {
  Planner planner(network, system, options);
  // Both readings of CoreD on reuse edges (Planner::run); weight preloading below ranks layers by
  // each one's plan.
  const std::array<DsmResult, 2> readings = planner.run_both();
  DsmResult best = Planner::cheaper(readings);
  if (options.tpipe && options.mode == plan::Mode::training) planner.pipeline(best);

  // §III-B weight preloading for inference (sweep_weight_preload), from each reading's ranking.
  if (options.memreuse && options.preload && options.mode == plan::Mode::inference)
    for (const DsmResult& reading : readings)
      sweep_weight_preload(reading, network, system, options, planner.capacity(), best);
  return best;
}

std::vector<ExplainRow> explain_layer(const DsmNetwork& network, std::size_t group, Pass pass,
                                      const DsmSystem& system, const DsmOptions& options, int top) {
  std::vector<ExplainRow> rows;
  const DsmLayer& L = network.groups.at(group).layer;
  Planner planner(network, system, options);
  for (ChipSplit sp : planner.splits_for(L))
    for (int f : planner.dysm_for(L, sp)) {
      const DsmLayer Ls = with_minibatch(L, ceil_div(L.mb, f));
      const long long iterations = L.ts * f;
      const double grad = pass == Pass::upd ? gradient_time(L, sp, system) : 0.0;
      for (const Split5& c : factorizations(system.cores())) {
        bool fits = true;
        const ChipFactors cf = chip_factors(sp, system.M, system.N);
        const Split5 chipd{Ls.in, ceil_div(Ls.out, cf.out), Ls.ij, Ls.kij, ceil_div(Ls.mb, cf.mb)};
        for (Dim d : kDims) fits = fits && get(c, d) <= get(chipd, d);
        if (!fits) continue;
        const CoreConfig config{c, Split5{}};
        const PassCost pc = evaluate_pass(Ls, pass, sp, config, flags_for(pass, false, false, false), system);
        rows.push_back(ExplainRow{sp, f, config, pc, iterations, grad,
                                  pc.total * static_cast<double>(iterations) + grad});
      }
    }
  std::stable_sort(rows.begin(), rows.end(), [](const ExplainRow& a, const ExplainRow& b) { return a.total_s < b.total_s; });
  // The best CoreD of every (ChipD, DySM) pair first, so the table shows the alternatives that
  // differ in kind; then the runners-up.
  std::vector<ExplainRow> shown, rest;
  std::vector<std::pair<ChipSplit, int>> seen;
  for (const auto& row : rows) {
    const auto key = std::make_pair(row.split, row.dysm_factor);
    if (std::find(seen.begin(), seen.end(), key) == seen.end()) {
      seen.push_back(key);
      shown.push_back(row);
    } else {
      rest.push_back(row);
    }
  }
  shown.insert(shown.end(), rest.begin(), rest.end());
  if (static_cast<int>(shown.size()) > top) shown.resize(static_cast<std::size_t>(top));
  return shown;
}

}  // namespace partsim::dsm
