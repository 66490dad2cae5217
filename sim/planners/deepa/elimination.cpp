#include "sim/planners/deepa/elimination.hpp"

#include <boost/graph/adjacency_list.hpp>

#include <algorithm>
#include <limits>
#include <map>
#include <string>
#include <utility>

#include "sim/common/error.hpp"

namespace partsim::deepa {
namespace {

/// The working multigraph: vertex i is node i of the cost graph; an edge names its table.
struct TableRef {
  int table = 0;
};
using WorkGraph = boost::adjacency_list<boost::listS, boost::vecS, boost::bidirectionalS, boost::no_property, TableRef>;
using Vertex = boost::graph_traits<WorkGraph>::vertex_descriptor;
using Edge = boost::graph_traits<WorkGraph>::edge_descriptor;

/// A node elimination, kept to be undone: w between u and v, and the tables of (u, w) and (w, v).
struct NodeElimination {
  int w = 0, u = 0, v = 0;
  int in_table = 0, out_table = 0;
};

class Eliminator {
 public:
  // `structural`: the tables are left empty and nothing is enumerated (check_enumeration): the
  // eliminations depend on the degrees alone, never on a cost.
  explicit Eliminator(const CostGraph& g, bool structural = false)
      : g_(g), structural_(structural), work_(g.node_cost.size()), alive_(g.node_cost.size(), true) {
    for (const auto& e : g.edges) {
      const int n = static_cast<int>(g.node_cost.size());
      if (e.from < 0 || e.from >= n || e.to < 0 || e.to >= n || e.from == e.to)
        throw Error("deepa: cost graph edge " + std::to_string(e.from) + " -> " + std::to_string(e.to) + " is invalid");
      if (e.xfer.rows != size(e.from) || e.xfer.cols != size(e.to))
        throw Error("deepa: cost graph edge " + std::to_string(e.from) + " -> " + std::to_string(e.to) +
                    " table is not K_from x K_to");
      boost::add_edge(static_cast<Vertex>(e.from), static_cast<Vertex>(e.to), TableRef{add_table(e.xfer)}, work_);
    }
  }

  SearchResult run(std::uint64_t max_enumerated) {
    SearchResult r = eliminate(max_enumerated);
    // Undo the node eliminations in reverse order (§4): each takes eq. 2's argmin.
    for (auto it = eliminated_.rbegin(); it != eliminated_.rend(); ++it)
      r.choice[static_cast<std::size_t>(it->w)] =
          best_configuration(*it, r.choice[static_cast<std::size_t>(it->u)], r.choice[static_cast<std::size_t>(it->v)]);
    r.cost = global_cost(g_, r.choice);
    return r;
  }

  /// The eliminations and the size check of the final graph, without tables (structural mode).
  void run_structure(std::uint64_t max_enumerated) { eliminate(max_enumerated); }

 private:
  SearchResult eliminate(std::uint64_t max_enumerated) {
    SearchResult r;
    for (bool changed = true; changed;) {
      changed = false;
      for (Vertex w = 0; w < boost::num_vertices(work_); ++w)
        if (eliminate_node(w)) {
          ++r.node_eliminations;
          changed = true;
        }
      for (Vertex u = 0; u < boost::num_vertices(work_); ++u)
        while (eliminate_parallel_edges(u)) {
          ++r.edge_eliminations;
          changed = true;
        }
    }
    enumerate_final(r, max_enumerated);
    return r;
  }

  int size(int v) const { return static_cast<int>(g_.node_cost[static_cast<std::size_t>(v)].size()); }
  double node(int v, int c) const { return g_.node_cost[static_cast<std::size_t>(v)][static_cast<std::size_t>(c)]; }
  int add_table(CostTable t) {
    tables_.push_back(std::move(t));
    return static_cast<int>(tables_.size()) - 1;
  }

  /// Eq. 2's argmin over c_w for the chosen (c_u, c_v), the same sums in the same order as the
  /// elimination (ties to the lower c_w).
  int best_configuration(const NodeElimination& e, int cu, int cv) const {
    const CostTable& t1 = tables_[static_cast<std::size_t>(e.in_table)];
    const CostTable& t2 = tables_[static_cast<std::size_t>(e.out_table)];
    double best = std::numeric_limits<double>::infinity();
    int arg = 0;
    for (int cw = 0; cw < size(e.w); ++cw) {
      const double c = (t1.at(cu, cw) + node(e.w, cw)) + t2.at(cw, cv);
      if (c < best) {
        best = c;
        arg = cw;
      }
    }
    return arg;
  }

  /// Eq. 2: w with a single in-edge (u, w) and a single out-edge (w, v).
  bool eliminate_node(Vertex w) {
    if (boost::in_degree(w, work_) != 1 || boost::out_degree(w, work_) != 1) return false;
    const Edge e1 = *boost::in_edges(w, work_).first;
    const Edge e2 = *boost::out_edges(w, work_).first;
    const int u = static_cast<int>(boost::source(e1, work_));
    const int v = static_cast<int>(boost::target(e2, work_));
    const int wi = static_cast<int>(w);
    const CostTable& t1 = tables_[static_cast<std::size_t>(work_[e1].table)];
    const CostTable& t2 = tables_[static_cast<std::size_t>(work_[e2].table)];
    const int ku = size(u), kw = size(wi), kv = size(v);
    CostTable merged{ku, kv, std::vector<double>(structural_ ? 0 : static_cast<std::size_t>(ku) * static_cast<std::size_t>(kv))};
    // Min-plus product, row by row: for each c_u, sweep c_w outermost so that t2's rows are read
    // contiguously and the inner loop is a vectorisable min. The argmin is not stored: undoing the
    // elimination recomputes it for the one (c_u, c_v) chosen (best_configuration()).
    for (int cu = 0; cu < (structural_ ? 0 : ku); ++cu) {
      double* best = &merged.cost[static_cast<std::size_t>(cu) * static_cast<std::size_t>(kv)];
      std::fill(best, best + kv, std::numeric_limits<double>::infinity());
      for (int cw = 0; cw < kw; ++cw) {
        const double via = t1.at(cu, cw) + node(wi, cw);
        const double* row = &t2.cost[static_cast<std::size_t>(cw) * static_cast<std::size_t>(kv)];
        for (std::size_t cv = 0; cv < static_cast<std::size_t>(kv); ++cv) {
          const double c = via + row[cv];
          best[cv] = c < best[cv] ? c : best[cv];
        }
      }
    }
    NodeElimination record{wi, u, v, work_[e1].table, work_[e2].table};
    boost::clear_vertex(w, work_);
    boost::add_edge(static_cast<Vertex>(u), static_cast<Vertex>(v), TableRef{add_table(std::move(merged))}, work_);
    eliminated_.push_back(std::move(record));
    alive_[w] = false;
    return true;
  }

  /// Eq. 3: two edges (u, v) become one. Returns whether one pair was merged.
  bool eliminate_parallel_edges(Vertex u) {
    std::map<Vertex, Edge> first;
    for (auto [it, end] = boost::out_edges(u, work_); it != end; ++it) {
      const Vertex v = boost::target(*it, work_);
      auto [pos, inserted] = first.emplace(v, *it);
      if (inserted) continue;
      const CostTable& a = tables_[static_cast<std::size_t>(work_[pos->second].table)];
      const CostTable& b = tables_[static_cast<std::size_t>(work_[*it].table)];
      CostTable sum{a.rows, a.cols, a.cost};
      for (std::size_t i = 0; i < sum.cost.size() && !structural_; ++i) sum.cost[i] += b.cost[i];
      const Edge e1 = pos->second, e2 = *it;
      boost::remove_edge(e1, work_);
      boost::remove_edge(e2, work_);
      boost::add_edge(u, v, TableRef{add_table(std::move(sum))}, work_);
      return true;
    }
    return false;
  }

  /// Every global configuration of the nodes left (isolated ones independently: they share no edge).
  void enumerate_final(SearchResult& r, std::uint64_t max_enumerated) {
    r.choice.assign(g_.node_cost.size(), 0);
    std::vector<int> order;  // connected nodes left
    for (Vertex v = 0; v < boost::num_vertices(work_); ++v) {
      if (!alive_[v]) continue;
      ++r.nodes_left;
      if (boost::in_degree(v, work_) + boost::out_degree(v, work_) == 0) {
        const int vi = static_cast<int>(v);
        for (int c = 1; c < size(vi) && !structural_; ++c)
          if (node(vi, c) < node(vi, r.choice[v])) r.choice[v] = c;
        r.enumerated += static_cast<std::uint64_t>(size(vi));
        continue;
      }
      order.push_back(static_cast<int>(v));
    }
    r.edges_left = static_cast<int>(boost::num_edges(work_));
    if (order.empty()) return;
    // Edges to nodes earlier in `order`, per position: (earlier position, table, this node is the target).
    std::vector<int> position(g_.node_cost.size(), -1);
    for (std::size_t p = 0; p < order.size(); ++p) position[static_cast<std::size_t>(order[p])] = static_cast<int>(p);
    struct Link {
      int other = 0;
      int table = 0;
      bool incoming = false;
    };
    std::vector<std::vector<Link>> links(order.size());
    for (auto [it, end] = boost::edges(work_); it != end; ++it) {
      const int a = position[boost::source(*it, work_)], b = position[boost::target(*it, work_)];
      if (a < b)
        links[static_cast<std::size_t>(b)].push_back({a, work_[*it].table, true});
      else
        links[static_cast<std::size_t>(a)].push_back({b, work_[*it].table, false});
    }
    double space = 1;
    for (int v : order) space *= static_cast<double>(size(v));
    if (space > static_cast<double>(max_enumerated))
      throw InputError("deepa: node and edge elimination left " + std::to_string(order.size()) + " connected nodes and " +
                       std::to_string(r.edges_left) + " edges, " + std::to_string(space) +
                       " global configurations to enumerate (limit " + std::to_string(max_enumerated) +
                       "; lower max_workers or restrict dims)");
    r.enumerated += static_cast<std::uint64_t>(space);
    if (structural_) return;
    std::vector<int> current(order.size(), 0), best_choice(order.size(), 0);
    double best = std::numeric_limits<double>::infinity();
    // Odometer over the final graph's configurations; cost recomputed per assignment (space is small).
    for (;;) {
      double cost = 0;
      for (std::size_t p = 0; p < order.size(); ++p) {
        cost += node(order[p], current[p]);
        for (const Link& l : links[p]) {
          const CostTable& t = tables_[static_cast<std::size_t>(l.table)];
          const int other = current[static_cast<std::size_t>(l.other)];
          cost += l.incoming ? t.at(other, current[p]) : t.at(current[p], other);
        }
      }
      if (cost < best) {
        best = cost;
        best_choice = current;
      }
      std::size_t p = 0;
      for (; p < order.size(); ++p) {
        if (++current[p] < size(order[p])) break;
        current[p] = 0;
      }
      if (p == order.size()) break;
    }
    for (std::size_t p = 0; p < order.size(); ++p) r.choice[static_cast<std::size_t>(order[p])] = best_choice[p];
  }

  const CostGraph& g_;
  const bool structural_;
  WorkGraph work_;
  std::vector<bool> alive_;
  std::vector<CostTable> tables_;
  std::vector<NodeElimination> eliminated_;
};

}  // namespace

SearchResult eliminate_and_search(const CostGraph& graph, std::uint64_t max_enumerated) {
  for (std::size_t v = 0; v < graph.node_cost.size(); ++v)
    if (graph.node_cost[v].empty()) throw Error("deepa: cost graph node " + std::to_string(v) + " has no configuration");
  return Eliminator(graph).run(max_enumerated);
}

void check_enumeration(const std::vector<int>& sizes, const std::vector<std::pair<int, int>>& edges,
                       std::uint64_t max_enumerated) {
  CostGraph structure;
  for (int k : sizes) {
    if (k < 1) throw Error("deepa: cost graph node with no configuration");
    structure.node_cost.emplace_back(static_cast<std::size_t>(k), 0.0);
  }
  for (const auto& [from, to] : edges)
    structure.edges.push_back({from, to, {sizes.at(static_cast<std::size_t>(from)), sizes.at(static_cast<std::size_t>(to)), {}}});
  Eliminator(structure, true).run_structure(max_enumerated);
}

double global_cost(const CostGraph& graph, const std::vector<int>& choice) {
  double cost = 0;
  for (std::size_t v = 0; v < graph.node_cost.size(); ++v) cost += graph.node_cost[v][static_cast<std::size_t>(choice[v])];
  for (const auto& e : graph.edges)
    cost += e.xfer.at(choice[static_cast<std::size_t>(e.from)], choice[static_cast<std::size_t>(e.to)]);
  return cost;
}

SearchResult brute_force(const CostGraph& graph) {
  SearchResult r;
  const std::size_t n = graph.node_cost.size();
  std::vector<int> current(n, 0);
  r.cost = std::numeric_limits<double>::infinity();
  r.nodes_left = static_cast<int>(n);
  r.edges_left = static_cast<int>(graph.edges.size());
  for (;;) {
    ++r.enumerated;
    const double c = global_cost(graph, current);
    if (c < r.cost) {
      r.cost = c;
      r.choice = current;
    }
    std::size_t p = 0;
    for (; p < n; ++p) {
      if (++current[p] < static_cast<int>(graph.node_cost[p].size())) break;
      current[p] = 0;
    }
    if (p == n) break;
  }
  return r;
}

}  // namespace partsim::deepa
