#include "sim/planners/accpar/accpar_planner.hpp"

#include <array>
#include <cmath>

#include "sim/planners/accpar/search.hpp"
#include "sim/common/error.hpp"

namespace partsim::accpar {
namespace {

Allowed allowed_types(const Problem& p, Strategy s) {
  Allowed allowed;
  for (const auto& n : p.nodes) {
    if (!n.weighted) {
      allowed.push_back(s == Strategy::dp ? std::vector<Type>{Type::I} : std::vector<Type>{Type::I, Type::II, Type::III});
      continue;
    }
    switch (s) {
      case Strategy::dp: allowed.push_back({Type::I}); break;
      case Strategy::owt: allowed.push_back({n.conv ? Type::I : Type::II}); break;
      case Strategy::hypar: allowed.push_back({Type::I, Type::II}); break;
      case Strategy::accpar: allowed.push_back({Type::I, Type::II, Type::III}); break;
    }
  }
  return allowed;
}

}  // namespace

Strategy strategy_from_name(const std::string& name) {
  if (name == "dp") return Strategy::dp;
  if (name == "owt") return Strategy::owt;
  if (name == "hypar") return Strategy::hypar;
  if (name == "accpar") return Strategy::accpar;
  throw UnknownNameError("AccPar strategy", name, "dp, owt, hypar, accpar");
}

std::string to_string(Strategy s) {
  switch (s) {
    case Strategy::dp: return "dp";
    case Strategy::owt: return "owt";
    case Strategy::hypar: return "hypar";
    case Strategy::accpar: return "accpar";
  }
  return "dp";
}

PlanResult plan_layers(const Problem& problem, const Hierarchy& hierarchy, Strategy strategy,
                       const PlanOptions& options) {
  const int depth = hierarchy.depth;
  const int searched = options.levels < 0 ? depth : options.levels;
  if (searched > depth)
    throw InputError("levels=" + std::to_string(searched) + ": the platform's hierarchy has only " +
                     std::to_string(depth) + " levels (" + std::to_string(hierarchy.groups[0].devices.size()) +
                     " devices)");
  const size_t n = problem.nodes.size();
  Typing typing(n, std::vector<LevelChoice>(static_cast<size_t>(depth)));
  TimeModel ev(problem, hierarchy, typing);
  const Allowed allowed = allowed_types(problem, strategy);

  for (int level = 0; level < depth; ++level) {
    const double equal = ev.device_share(level);
    // Eq. 10 for accpar. Per level (default): one alpha for every layer, balancing the two sides'
    // summed costs of the chosen types (§5.3), so adjacent layers share alpha as Table 5 assumes.
    // Per layer (ratio=layer): each layer's own eq. 10 for its type.
    auto level_alpha = [&](const std::vector<Type>& types) {
      double a = 0, b = 0;
      for (size_t v = 0; v < n; ++v) {
        const auto e = ev.eq10_terms(static_cast<int>(v), level, types[v]);
        a += e.cp_a + e.cm_a;
        b += e.cp_b + e.cm_b;
      }
      return alpha_eq10(a, 0, b, 0);
    };
    std::vector<std::array<double, 3>> alpha(n, {equal, equal, equal});
    auto set_alpha = [&](double value) {
      for (auto& a : alpha) a = {value, value, value};
    };
    if (strategy == Strategy::accpar) {
      if (options.per_layer_ratio) {
        // Carriers have no communication of their own: eq. 10 gives them c_a / (c_a + c_b).
        const double carrier = ev.compute_share(level);
        for (size_t v = 0; v < n; ++v)
          for (Type t : kAllTypes) {
            const auto e = ev.eq10_terms(static_cast<int>(v), level, t);
            alpha[v][static_cast<size_t>(t)] =
                problem.nodes[v].weighted ? alpha_eq10(e.cp_a, e.cm_a, e.cp_b, e.cm_b) : carrier;
          }
      } else {
        set_alpha(level_alpha(std::vector<Type>(n, Type::I)));
      }
    }
    auto ratio = [&](int v, Type t) { return alpha[static_cast<size_t>(v)][static_cast<size_t>(t)]; };
    auto assign = [&](const std::vector<Type>& types) {
      for (size_t v = 0; v < n; ++v)
        typing[v][static_cast<size_t>(level)] = {types[v], ratio(static_cast<int>(v), types[v])};
    };
    if (level >= searched) {
      assign(std::vector<Type>(n, Type::I));  // below the searched levels: data parallel
      continue;
    }
    std::vector<std::vector<TimeModel::State>> partials;
    if (strategy != Strategy::hypar)
      for (size_t v = 0; v < n; ++v) partials.push_back(ev.partials(static_cast<int>(v), level));
    const NodeCost cost = [&](int v, Type t, const std::vector<Type>& inputs) {
      Override o{level, LevelChoice{t, ratio(v, t)}, &inputs};
      // HyPar minimises communication volume; AccPar (and the fixed strategies) time (eq. 9).
      return strategy == Strategy::hypar ? ev.level_volume(v, level, o)
                                         : ev.layer_time_from(v, partials[static_cast<size_t>(v)], level, o).total_s;
    };
    std::vector<Type> types = search_types(problem, allowed, cost);
    if (strategy == Strategy::accpar && !options.per_layer_ratio) {
      // alpha depends on the types and the types on alpha: a few fixed-point rounds, keeping the
      // (alpha, types) pair with the lowest level cost. Homogeneous halves stop at once (0.5).
      double best_cost = typing_cost(problem, types, cost);
      double best_alpha = alpha[0][0];
      std::vector<Type> best_types = types;
      for (int round = 0; round < 4; ++round) {
        const double next = level_alpha(types);
        if (std::abs(next - alpha[0][0]) <= 1e-12) break;
        set_alpha(next);
        types = search_types(problem, allowed, cost);
        const double c = typing_cost(problem, types, cost);
        if (c < best_cost) {
          best_cost = c;
          best_alpha = next;
          best_types = types;
        }
      }
      set_alpha(best_alpha);
      types = best_types;
    }
    assign(types);
  }
  return evaluate_typing(problem, hierarchy, typing);
}

}  // namespace partsim::accpar
