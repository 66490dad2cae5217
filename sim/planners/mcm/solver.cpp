#include "sim/planners/mcm/solver.hpp"

#include <gecode/int.hh>

#include <algorithm>

namespace partsim::mcm {
namespace {

using namespace Gecode;

/// Per edge (u, v), the nodes w on another path u -> w -> ... -> v (at most 64 per edge; longer
/// lists are left out, which only weakens propagation).
Bypassed bypassed_nodes(const PlacementProblem& p) {
  constexpr std::size_t kMaxBypassed = 64;
  const auto N = static_cast<std::size_t>(p.size());
  const std::size_t words = (N + 63) / 64;
  // Descendants as bitsets; producers precede consumers, so one backward sweep.
  std::vector<std::vector<std::uint64_t>> below(N, std::vector<std::uint64_t>(words, 0));
  for (std::size_t u = N; u-- > 0;)
    for (int v : p.consumers[u]) {
      const auto vv = static_cast<std::size_t>(v);
      below[u][vv / 64] |= std::uint64_t{1} << (vv % 64);
      for (std::size_t k = 0; k < words; ++k) below[u][k] |= below[vv][k];
    }
  const auto reaches = [&](std::size_t a, std::size_t b) { return ((below[a][b / 64] >> (b % 64)) & 1) != 0; };
  Bypassed out(p.edges.size());
  for (std::size_t k = 0; k < p.edges.size(); ++k) {
    const auto u = static_cast<std::size_t>(p.edges[k].from), v = static_cast<std::size_t>(p.edges[k].to);
    std::vector<int> between;
    for (std::size_t w = u + 1; w < v && between.size() <= kMaxBypassed; ++w)
      if (reaches(u, w) && reaches(w, v)) between.push_back(static_cast<int>(w));
    if (between.size() <= kMaxBypassed) out[k] = std::move(between);
  }
  return out;
}

/// eq. 4 as a Gecode propagator (see solver.hpp). Reads the problem's edges through a pointer:
/// the problem outlives every space of its solver.
// Gecode's NaryPropagator keeps the view array `x` (subscribing, copying, disposing).
class TriangleDependency : public NaryPropagator<Int::IntView, Int::PC_INT_VAL> {
 public:
  TriangleDependency(Home home, ViewArray<Int::IntView>& y, const PlacementProblem* problem, const Bypassed* bypassed)
      : NaryPropagator(home, y), problem_(problem), bypassed_(bypassed) {}
  TriangleDependency(Space& home, TriangleDependency& other)
      : NaryPropagator(home, other), problem_(other.problem_), bypassed_(other.bypassed_) {}
  static ExecStatus post(Home home, ViewArray<Int::IntView>& y, const PlacementProblem* problem, const Bypassed* bypassed) {
    (void)new (home) TriangleDependency(home, y, problem, bypassed);
    return ES_OK;
  }
  Propagator* copy(Space& home) override { return new (home) TriangleDependency(home, *this); }
  PropCost cost(const Space&, const ModEventDelta&) const override { return PropCost::quadratic(PropCost::HI, x.size()); }
  // The base returns its own size; the space recycles what this one takes.
  std::size_t dispose(Space& home) override {
    (void)NaryPropagator::dispose(home);
    return sizeof(*this);
  }

  ExecStatus propagate(Space& home, const ModEventDelta&) override {
    const int C = problem_->chips;
    const auto at = [C](int a, int b) { return static_cast<std::size_t>(a * C + b); };
    std::vector<char> direct(static_cast<std::size_t>(C * C), 0);
    for (const Edge& e : problem_->edges) {
      if (!x[e.from].assigned() || !x[e.to].assigned()) continue;
      const int a = x[e.from].val(), b = x[e.to].val();
      if (a < b) direct[at(a, b)] = 1;  // a > b is eq. 2's to fail
    }
    // Longest chip-graph path a -> b; chip order is topological.
    std::vector<int> longest(static_cast<std::size_t>(C * C), -1);
    for (int a = 0; a < C; ++a) {
      longest[at(a, a)] = 0;
      for (int b = a + 1; b < C; ++b)
        for (int c = a; c < b; ++c)
          if (direct[at(c, b)] && longest[at(a, c)] >= 0) longest[at(a, b)] = std::max(longest[at(a, b)], longest[at(a, c)] + 1);
    }
    for (int a = 0; a < C; ++a)
      for (int b = a + 1; b < C; ++b)
        if (direct[at(a, b)] && longest[at(a, b)] >= 2) return ES_FAILED;
    bool pruned = false;
    // A node on another path of a placed edge u -> v sits on y_u or y_v (else y_u -> y_w -> y_v
    // would be a longer chip path than the direct dependency).
    for (std::size_t k = 0; k < problem_->edges.size(); ++k) {
      const Edge& e = problem_->edges[k];
      if ((*bypassed_)[k].empty() || !x[e.from].assigned() || !x[e.to].assigned()) continue;
      const int a = x[e.from].val(), b = x[e.to].val();
      for (int w : (*bypassed_)[k])
        for (int c = a + 1; c < b; ++c)
          if (x[w].in(c)) {
            GECODE_ME_CHECK(x[w].nq(home, c));
            pruned = true;
          }
    }
    for (const Edge& e : problem_->edges) {
      Int::IntView from = x[e.from], to = x[e.to];
      if (from.assigned() && !to.assigned()) {
        const int a = from.val();
        for (int b = a + 1; b < C; ++b)
          if (longest[at(a, b)] >= 2 && to.in(b)) {
            GECODE_ME_CHECK(to.nq(home, b));
            pruned = true;
          }
      } else if (!from.assigned() && to.assigned()) {
        const int b = to.val();
        for (int a = 0; a < b; ++a)
          if (longest[at(a, b)] >= 2 && from.in(a)) {
            GECODE_ME_CHECK(from.nq(home, a));
            pruned = true;
          }
      }
    }
    // A prune may have assigned a variable: run again (the check above must see it) before
    // declaring the propagator subsumed.
    if (pruned) return ES_NOFIX;
    return x.assigned() ? home.ES_SUBSUMED(*this) : ES_FIX;
  }

 private:
  const PlacementProblem* problem_;
  const Bypassed* bypassed_;
};

/// eq. 3 (the chips used are 0..max(y)) as our own propagator. Gecode's nvalues (distinct values
/// = max + 1) did this before, but Gecode 6.2's nvalues reads node fields its view-value graph never
/// wrote when it prunes (valgrind: uninitialised reads in its prune), so what it pruned depended on
/// what earlier spaces had left in recycled memory, and long RL runs were not reproducible.
/// Used chips 0..c need c + 1 distinct nodes, one per chip, each holding its chip: a matching of
/// chips to nodes. On the domains' bounds (a relaxation, so sound) the greedy interval matching
/// finds K, the largest chip such that 0..K can all be matched (chips in ascending order, each
/// takes the free node covering it whose upper bound is smallest, optimal for intervals). With M =
/// the largest lower bound (some chip >= M is used): K < M fails, and no node can take a chip above
/// K. Then on the domains: a chip in 0..M no domain holds fails, a chip only one node can take is
/// that node's (unit propagation).
class NoSkippedChip : public NaryPropagator<Int::IntView, Int::PC_INT_DOM> {
 public:
  NoSkippedChip(Home home, ViewArray<Int::IntView>& y) : NaryPropagator(home, y) {}
  NoSkippedChip(Space& home, NoSkippedChip& other) : NaryPropagator(home, other) {}
  static ExecStatus post(Home home, ViewArray<Int::IntView>& y) {
    (void)new (home) NoSkippedChip(home, y);
    return ES_OK;
  }
  Propagator* copy(Space& home) override { return new (home) NoSkippedChip(home, *this); }
  PropCost cost(const Space&, const ModEventDelta&) const override { return PropCost::linear(PropCost::HI, x.size()); }
  // The base returns its own size; the space recycles what this one takes.
  std::size_t dispose(Space& home) override {
    (void)NaryPropagator::dispose(home);
    return sizeof(*this);
  }
  ExecStatus propagate(Space& home, const ModEventDelta&) override {
    int highest_min = 0, highest_max = 0;
    for (int v = 0; v < x.size(); ++v) {
      highest_min = std::max(highest_min, x[v].min());
      highest_max = std::max(highest_max, x[v].max());
    }
    // Nodes by lower bound; a heap of the upper bounds of those that cover the current chip.
    std::vector<std::pair<int, int>> by_min;
    by_min.reserve(static_cast<std::size_t>(x.size()));
    for (int v = 0; v < x.size(); ++v) by_min.push_back({x[v].min(), x[v].max()});
    std::sort(by_min.begin(), by_min.end());
    std::vector<int> open;  // min-heap of upper bounds
    const auto later = [](int a, int b) { return a > b; };
    std::size_t next = 0;
    int matched_up_to = -1;  // K
    for (int chip = 0; chip <= highest_max; ++chip) {
      while (next < by_min.size() && by_min[next].first <= chip) {
        open.push_back(by_min[next++].second);
        std::push_heap(open.begin(), open.end(), later);
      }
      while (!open.empty() && open.front() < chip) {  // can no longer cover any chip from here on
        std::pop_heap(open.begin(), open.end(), later);
        open.pop_back();
      }
      if (open.empty()) break;  // chip has no node left to use it
      std::pop_heap(open.begin(), open.end(), later);
      open.pop_back();
      matched_up_to = chip;
    }
    if (matched_up_to < highest_min) return ES_FAILED;
    bool pruned = false;
    if (matched_up_to < highest_max)
      for (int v = 0; v < x.size(); ++v)
        if (x[v].max() > matched_up_to) {
          GECODE_ME_CHECK(x[v].lq(home, matched_up_to));
          pruned = true;
        }
    // On the domains themselves: every chip 0..M needs a node whose domain holds it; a chip only
    // one node can take is that node's (unit propagation).
    for (int chip = 0; chip <= highest_min; ++chip) {
      int supporters = 0, last = -1;
      for (int v = 0; v < x.size() && supporters < 2; ++v)
        if (x[v].in(chip)) {
          ++supporters;
          last = v;
        }
      if (supporters == 0) return ES_FAILED;
      if (supporters == 1 && !x[last].assigned()) {
        GECODE_ME_CHECK(x[last].eq(home, chip));
        pruned = true;
      }
    }
    if (pruned) return ES_NOFIX;
    return x.assigned() ? home.ES_SUBSUMED(*this) : ES_FIX;
  }

};

}  // namespace

class PlacementSpace : public Space {
 public:
  IntVarArray y;

  PlacementSpace(const PlacementProblem& p, const Bypassed* bypassed, bool weights_fit)
      : y(*this, p.size(), 0, p.chips - 1) {
    for (const Edge& e : p.edges) rel(*this, y[e.from], IRT_LQ, y[e.to]);  // eq. 2
    IntVarArgs all(y);
    ViewArray<Int::IntView> views(*this, all);
    if (!failed()) (void)NoSkippedChip::post(*this, views);  // eq. 3
    if (!failed()) (void)TriangleDependency::post(*this, views, &p, bypassed);  // eq. 4
    if (weights_fit) {
      const auto kib = [](double bytes) { return static_cast<int>(std::min(bytes / 1024.0, 2.0e9)); };
      IntVarArgs load(*this, p.chips, 0, kib(p.sram_bytes));
      IntArgs sizes(p.size());
      for (int v = 0; v < p.size(); ++v) sizes[v] = kib(p.nodes[static_cast<std::size_t>(v)].weight_bytes);
      binpacking(*this, load, y, sizes);
    }
  }
  PlacementSpace(PlacementSpace& other) : Space(other) { y.update(*this, other.y); }

  Space* copy() override { return new PlacementSpace(*this); }
};

namespace {

std::unique_ptr<PlacementSpace> clone_of(PlacementSpace& space) {
  return std::unique_ptr<PlacementSpace>(static_cast<PlacementSpace*>(space.clone()));
}

std::string infeasible_text(const PlacementProblem& p, bool weights_fit) {
  return "no placement of graph '" + p.graph_name + "' (" + std::to_string(p.size()) + " nodes) on " +
         std::to_string(p.chips) + " chips satisfies eq. 2-4" + (weights_fit ? " with every chip's weights in its SRAM" : "");
}

}  // namespace

PlacementSolver::PlacementSolver(const PlacementProblem& problem, SolverOptions options)
    : problem_(problem), options_(options) {
  if (problem.size() < 1) throw InputError("graph '" + problem.graph_name + "' has no node to place");
  bypassed_ = bypassed_nodes(problem);
  root_ = std::make_unique<PlacementSpace>(problem, &bypassed_, options.weights_fit);
  if (root_->status() == SS_FAILED) throw InfeasibleError(infeasible_text(problem, options.weights_fit));
  stack_.push_back(clone_of(*root_));
}

PlacementSolver::~PlacementSolver() = default;

void PlacementSolver::reset() {
  // The undo posts exclusions on the state it returns to, so a solve changes stack_[0]: start
  // the next solve from a fresh copy of the root.
  stack_.clear();
  stack_.push_back(clone_of(*root_));
  decisions_.clear();
  domains_.clear();
  failures_ = 0;
}

void PlacementSolver::begin_solve() {
  reset();
  total_failures_ = 0;
  restarts_ = 0;
}

std::vector<int> PlacementSolver::get_domain(int u) const {
  std::vector<int> out;
  for (IntVarValues v(stack_.back()->y[u]); v(); ++v) out.push_back(v.val());
  return out;
}

int PlacementSolver::set_domain(int u, const std::vector<int>& domain) {
  std::vector<int> values;
  for (int c : domain)
    if (c >= 0 && c < problem_.chips) values.push_back(c);
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  auto next = clone_of(*stack_.back());
  dom(*next, next->y[u], IntSet(IntArgs(values)));
  if (next->status() != SS_FAILED) {
    stack_.push_back(std::move(next));
    decisions_.push_back(u);
    domains_.push_back(std::move(values));
    return decisions();
  }
  // Undo: exclude the values at the current state; while that fails, undo the decision before.
  for (;;) {
    ++failures_;
    if (++total_failures_ > options_.max_failures)
      throw SolverLimitError("constraint solver: more than " + std::to_string(options_.max_failures) +
                             " backtracks placing graph '" + problem_.graph_name + "' (" + std::to_string(restarts_) +
                             " restarts)");
    if (failures_ > options_.restart_failures) {
      ++restarts_;
      throw SolverRestart{};
    }
    PlacementSpace& top = *stack_.back();
    for (int c : values) rel(top, top.y[u], IRT_NQ, c);
    if (top.status() != SS_FAILED) return decisions();
    if (decisions_.empty()) throw InfeasibleError(infeasible_text(problem_, options_.weights_fit));
    stack_.pop_back();
    u = decisions_.back();
    values = std::move(domains_.back());
    decisions_.pop_back();
    domains_.pop_back();
  }
}

bool PlacementSolver::assigned() const { return stack_.back()->y.assigned(); }

Placement PlacementSolver::placement() const {
  Placement f(static_cast<std::size_t>(problem_.size()));
  for (int v = 0; v < problem_.size(); ++v) {
    if (!stack_.back()->y[v].assigned()) throw Error("PlacementSolver::placement: node not assigned");
    f[static_cast<std::size_t>(v)] = stack_.back()->y[v].val();
  }
  return f;
}

std::vector<int> random_order(int nodes, std::mt19937_64& rng) {
  std::vector<int> order(static_cast<std::size_t>(nodes));
  for (int i = 0; i < nodes; ++i) order[static_cast<std::size_t>(i)] = i;
  for (int i = nodes - 1; i > 0; --i)  // Fisher-Yates
    std::swap(order[static_cast<std::size_t>(i)], order[rng() % static_cast<std::uint64_t>(i + 1)]);
  return order;
}

std::size_t draw_index(const std::vector<double>& weights, std::mt19937_64& rng) {
  double total = 0;
  for (double w : weights) total += std::max(0.0, w);
  const double unit = static_cast<double>(rng() >> 11) * 0x1.0p-53;  // [0, 1)
  if (total <= 0) return static_cast<std::size_t>(unit * static_cast<double>(weights.size()));
  double target = unit * total;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    target -= std::max(0.0, weights[i]);
    if (target < 0) return i;
  }
  for (std::size_t i = weights.size(); i-- > 0;)
    if (weights[i] > 0) return i;
  return 0;
}

namespace {

/// Runs `attempt(order)` until it finishes without a restart; later attempts get random orders.
template <typename Attempt>
Placement with_restarts(PlacementSolver& solver, std::vector<int> order, std::mt19937_64& rng, Attempt attempt) {
  solver.begin_solve();
  for (;;) {
    try {
      return attempt(order);
    } catch (const SolverRestart&) {
      solver.reset();
      order = random_order(static_cast<int>(order.size()), rng);
    }
  }
}

Placement sample_attempt(PlacementSolver& solver, const std::vector<int>& order, const Distribution& p,
                         std::mt19937_64& rng) {
  const auto N = static_cast<int>(order.size());
  int i = 0;
  while (i < N) {  // Algorithm 1
    const int u = order[static_cast<std::size_t>(i)];
    const std::vector<int> domain = solver.get_domain(u);
    std::vector<double> weights;
    for (int c : domain)
      weights.push_back(p.empty() || p[static_cast<std::size_t>(u)].empty() ? 1.0 : p[static_cast<std::size_t>(u)][static_cast<std::size_t>(c)]);
    const int y = domain[draw_index(weights, rng)];
    i = solver.set_domain(u, {y});
  }
  return solver.placement();
}

Placement fix_attempt(PlacementSolver& solver, const std::vector<int>& order, const Placement& candidate,
                      std::mt19937_64& rng) {
  const auto N = static_cast<int>(order.size());
  int i = 0;
  while (i < 2 * N) {  // Algorithm 2
    const int u = order[static_cast<std::size_t>(i % N)];
    const std::vector<int> domain = solver.get_domain(u);
    if (i < N) {
      const int y = candidate[static_cast<std::size_t>(u)];
      if (std::find(domain.begin(), domain.end(), y) != domain.end())
        i = solver.set_domain(u, {y});
      else
        i = solver.set_domain(u, domain);
    } else {
      const int y = domain[draw_index(std::vector<double>(domain.size(), 1.0), rng)];
      i = solver.set_domain(u, {y});
    }
  }
  return solver.placement();
}

}  // namespace

Placement solve_sample(PlacementSolver& solver, const std::vector<int>& order, const Distribution& p,
                       std::mt19937_64& rng) {
  return with_restarts(solver, order, rng,
                       [&](const std::vector<int>& o) { return sample_attempt(solver, o, p, rng); });
}

Placement solve_fix(PlacementSolver& solver, const std::vector<int>& order, const Placement& candidate,
                    std::mt19937_64& rng) {
  return with_restarts(solver, order, rng,
                       [&](const std::vector<int>& o) { return fix_attempt(solver, o, candidate, rng); });
}

}  // namespace partsim::mcm
