#include "sim/planners/accpar/search.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/common/error.hpp"

namespace partsim::accpar {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::size_t pow3(std::size_t n) {
  std::size_t r = 1;
  for (std::size_t i = 0; i < n; ++i) r *= 3;
  return r;
}

int digit(std::size_t state, std::size_t position) {
  for (std::size_t i = 0; i < position; ++i) state /= 3;
  return static_cast<int>(state % 3);
}

// One step of the DP: the frontier after typing node k, and for each state over it the best
// (state over the previous frontier, type of k).
struct Step {
  std::vector<int> frontier;
  std::vector<std::size_t> prev_state;
  std::vector<int> type;
};

}  // namespace

std::vector<Type> search_types(const Problem& problem, const Allowed& allowed, const NodeCost& cost) {
  const int n = static_cast<int>(problem.nodes.size());
  if (static_cast<int>(allowed.size()) != n) throw Error("search_types: allowed has the wrong size");
  // Last consumer of every node.
  std::vector<int> last_use(static_cast<size_t>(n), -1);
  for (int v = 0; v < n; ++v)
    for (const auto& e : problem.nodes[static_cast<size_t>(v)].inputs) {
      if (e.from >= v) throw Error("search_types: nodes are not in topological order");
      last_use[static_cast<size_t>(e.from)] = std::max(last_use[static_cast<size_t>(e.from)], v);
    }

  std::vector<int> frontier;             // before node k
  std::vector<double> value{0.0};        // per state over `frontier`
  std::vector<Step> steps;
  steps.reserve(static_cast<size_t>(n));
  std::vector<Type> input_types;
  for (int k = 0; k < n; ++k) {
    const auto& node = problem.nodes[static_cast<size_t>(k)];
    // Positions of the inputs in the current frontier.
    std::vector<std::size_t> input_pos;
    for (const auto& e : node.inputs)
      input_pos.push_back(static_cast<size_t>(std::find(frontier.begin(), frontier.end(), e.from) - frontier.begin()));
    // Next frontier: current ones still used after k, plus k if used later.
    Step step;
    std::vector<int> keep_pos;  // position in the current frontier of each kept node (-1 = node k)
    for (size_t i = 0; i < frontier.size(); ++i)
      if (last_use[static_cast<size_t>(frontier[i])] > k) {
        step.frontier.push_back(frontier[i]);
        keep_pos.push_back(static_cast<int>(i));
      }
    if (last_use[static_cast<size_t>(k)] > k) {
      step.frontier.push_back(k);
      keep_pos.push_back(-1);
    }
    if (static_cast<int>(step.frontier.size()) > kMaxFrontier)
      throw Error("AccPar search: the workload graph is too wide at layer '" + node.name + "' (" +
                  std::to_string(step.frontier.size()) + " live tensors; at most " + std::to_string(kMaxFrontier) + ")");
    const std::size_t next_states = pow3(step.frontier.size());
    std::vector<double> next_value(next_states, kInf);
    step.prev_state.assign(next_states, 0);
    step.type.assign(next_states, 0);

    // Costs depend only on (type, input types): memoise per input-type combination.
    const bool memo = input_pos.size() <= 8;
    std::vector<double> cache(memo ? pow3(input_pos.size()) * 3 : 0, std::numeric_limits<double>::quiet_NaN());
    for (std::size_t s = 0; s < value.size(); ++s) {
      if (value[s] == kInf) continue;
      input_types.clear();
      std::size_t combo = 0, m = 1;
      for (auto p : input_pos) {
        const int d = digit(s, p);
        input_types.push_back(static_cast<Type>(d));
        combo += static_cast<size_t>(d) * m;
        m *= 3;
      }
      for (Type t : allowed[static_cast<size_t>(k)]) {
        double node_cost;
        if (memo) {
          double& slot = cache[combo * 3 + static_cast<size_t>(t)];
          if (std::isnan(slot)) slot = cost(k, t, input_types);
          node_cost = slot;
        } else {
          node_cost = cost(k, t, input_types);
        }
        const double c = value[s] + node_cost;
        std::size_t ns = 0, mult = 1;
        for (int kp : keep_pos) {
          const int d = kp < 0 ? static_cast<int>(t) : digit(s, static_cast<size_t>(kp));
          ns += static_cast<size_t>(d) * mult;
          mult *= 3;
        }
        if (c < next_value[ns]) {
          next_value[ns] = c;
          step.prev_state[ns] = s;
          step.type[ns] = static_cast<int>(t);
        }
      }
    }
    frontier = step.frontier;
    value = std::move(next_value);
    steps.push_back(std::move(step));
  }
  // Back-tracking from the best final state.
  std::vector<Type> types(static_cast<size_t>(n), Type::I);
  std::size_t state = static_cast<size_t>(std::min_element(value.begin(), value.end()) - value.begin());
  for (int k = n - 1; k >= 0; --k) {
    const auto& step = steps[static_cast<size_t>(k)];
    types[static_cast<size_t>(k)] = static_cast<Type>(step.type[state]);
    state = step.prev_state[state];
  }
  return types;
}

double typing_cost(const Problem& problem, const std::vector<Type>& types, const NodeCost& cost) {
  double total = 0;
  std::vector<Type> input_types;
  for (size_t v = 0; v < problem.nodes.size(); ++v) {
    input_types.clear();
    for (const auto& e : problem.nodes[v].inputs) input_types.push_back(types[static_cast<size_t>(e.from)]);
    total += cost(static_cast<int>(v), types[v], input_types);
  }
  return total;
}

std::vector<Type> brute_force_types(const Problem& problem, const Allowed& allowed, const NodeCost& cost) {
  const size_t n = problem.nodes.size();
  std::vector<size_t> choice(n, 0);
  std::vector<Type> types(n), best;
  double best_cost = kInf;
  while (true) {
    for (size_t v = 0; v < n; ++v) types[v] = allowed[v][choice[v]];
    const double c = typing_cost(problem, types, cost);
    if (c < best_cost) {
      best_cost = c;
      best = types;
    }
    size_t v = 0;
    while (v < n && ++choice[v] == allowed[v].size()) choice[v++] = 0;
    if (v == n) break;
  }
  return best;
}

}  // namespace partsim::accpar
