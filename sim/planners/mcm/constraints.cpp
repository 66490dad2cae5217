#include "sim/planners/mcm/constraints.hpp"

#include <algorithm>

#include "sim/common/error.hpp"
#include <cstdio>

namespace partsim::mcm {
namespace {

std::string node_text(const PlacementProblem& p, const Placement& f, int v) {
  return "'" + p.nodes[static_cast<std::size_t>(v)].name + "' (chip " + std::to_string(f[static_cast<std::size_t>(v)]) + ")";
}

std::string mib(double bytes) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f MiB", bytes / (1024.0 * 1024.0));
  return buffer;
}

/// Direct chip-graph edges a -> b (a != b): one witness tensor edge each (-1 = none).
std::vector<std::vector<int>> chip_edges(const PlacementProblem& p, const Placement& f) {
  const auto C = static_cast<std::size_t>(p.chips);
  std::vector<std::vector<int>> witness(C, std::vector<int>(C, -1));
  for (std::size_t e = 0; e < p.edges.size(); ++e) {
    const int a = f[static_cast<std::size_t>(p.edges[e].from)], b = f[static_cast<std::size_t>(p.edges[e].to)];
    if (a != b && witness[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)] < 0)
      witness[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)] = static_cast<int>(e);
  }
  return witness;
}

}  // namespace

std::string to_string(ConstraintKind kind) {
  switch (kind) {
    case ConstraintKind::acyclic_dataflow: return "acyclic dataflow (eq. 2)";
    case ConstraintKind::skipped_chip: return "no skipped chip (eq. 3)";
    case ConstraintKind::triangle_dependency: return "chip triangle dependency (eq. 4)";
    case ConstraintKind::memory: return "memory H(G, f)";
  }
  return "?";
}

void check_shape(const PlacementProblem& problem, const Placement& placement) {
  if (placement.size() != problem.nodes.size())
    throw InputError("placement of " + std::to_string(placement.size()) + " nodes for graph '" + problem.graph_name +
                     "' of " + std::to_string(problem.nodes.size()) + " nodes");
  for (std::size_t v = 0; v < placement.size(); ++v)
    if (placement[v] < 0 || placement[v] >= problem.chips)
      throw InputError("node '" + problem.nodes[v].name + "' is placed on chip " + std::to_string(placement[v]) +
                       ", outside 0.." + std::to_string(problem.chips - 1));
}

std::vector<std::vector<int>> chip_longest_paths(const PlacementProblem& problem, const Placement& placement) {
  const auto C = static_cast<std::size_t>(problem.chips);
  const auto direct = chip_edges(problem, placement);
  std::vector<std::vector<int>> longest(C, std::vector<int>(C, -1));
  // Chip-graph edges go from lower to higher chips once eq. 2 holds; edges against the order are
  // ignored here (they are eq. 2 violations), so chip index order is a topological order.
  for (std::size_t a = 0; a < C; ++a) {
    longest[a][a] = 0;
    for (std::size_t b = a + 1; b < C; ++b)
      for (std::size_t c = a; c < b; ++c)
        if (direct[c][b] >= 0 && longest[a][c] >= 0) longest[a][b] = std::max(longest[a][b], longest[a][c] + 1);
  }
  return longest;
}

std::vector<Violation> static_violations(const PlacementProblem& p, const Placement& f, std::size_t limit) {
  check_shape(p, f);
  std::vector<Violation> out;
  const auto full = [&] { return limit > 0 && out.size() >= limit; };
  // eq. 2
  for (const Edge& e : p.edges) {
    if (full()) return out;
    if (f[static_cast<std::size_t>(e.from)] > f[static_cast<std::size_t>(e.to)])
      out.push_back({ConstraintKind::acyclic_dataflow, "tensor " + node_text(p, f, e.from) + " -> " + node_text(p, f, e.to) +
                                                            " flows from a higher to a lower chip; ring links only carry data to higher chips"});
  }
  // eq. 3
  std::vector<int> count(static_cast<std::size_t>(p.chips), 0);
  for (int c : f) ++count[static_cast<std::size_t>(c)];
  const int highest = f.empty() ? -1 : *std::max_element(f.begin(), f.end());
  for (int d = 0; d < highest; ++d) {
    if (full()) return out;
    if (count[static_cast<std::size_t>(d)] == 0)
      out.push_back({ConstraintKind::skipped_chip, "chip " + std::to_string(d) + " has no node but chip " +
                                                       std::to_string(highest) + " is used"});
  }
  // eq. 4
  const auto direct = chip_edges(p, f);
  const auto longest = chip_longest_paths(p, f);
  for (int a = 0; a < p.chips; ++a)
    for (int b = a + 1; b < p.chips; ++b) {
      const int e = direct[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)];
      const int delta = longest[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)];
      if (e < 0 || delta <= 1) continue;
      if (full()) return out;
      // Name one intermediate chip of the longer path.
      int via = -1;
      for (int c = a + 1; c < b && via < 0; ++c)
        if (longest[static_cast<std::size_t>(a)][static_cast<std::size_t>(c)] >= 1 &&
            longest[static_cast<std::size_t>(c)][static_cast<std::size_t>(b)] >= 1)
          via = c;
      const Edge& edge = p.edges[static_cast<std::size_t>(e)];
      out.push_back({ConstraintKind::triangle_dependency,
                     "tensor " + node_text(p, f, edge.from) + " -> " + node_text(p, f, edge.to) + " is a direct dependency chip " +
                         std::to_string(a) + " -> " + std::to_string(b) + " but the chips are also connected through chip " +
                         std::to_string(via) + " (longest path " + std::to_string(delta) + " links, must be 1)"});
    }
  return out;
}

std::vector<ChipMemory> chip_memory(const PlacementProblem& p, const Placement& f) {
  check_shape(p, f);
  const auto C = static_cast<std::size_t>(p.chips);
  const auto N = p.nodes.size();
  std::vector<ChipMemory> memory(C);
  // Step of each node on its chip = its position in topological order (layers are sorted), so a
  // tensor's live interval on a chip is [first step, last step] of its uses there.
  // start/end per (tensor, chip): produced tensors start at production; received ones at the
  // first local consumer.
  std::vector<std::vector<double>> delta(C, std::vector<double>(N + 1, 0.0));  // +bytes at start, -bytes after end
  for (std::size_t u = 0; u < N; ++u) {
    const auto home = static_cast<std::size_t>(f[u]);
    memory[home].weights_bytes += p.nodes[u].weight_bytes;
    const double bytes = p.nodes[u].output_bytes;
    // Per chip: first and last step that touches this tensor.
    std::vector<std::pair<std::size_t, std::size_t>> span(C, {N, 0});
    span[home] = {u, u};
    for (int v : p.consumers[u]) {
      const auto c = static_cast<std::size_t>(f[static_cast<std::size_t>(v)]);
      span[c].first = std::min(span[c].first, static_cast<std::size_t>(v));
      span[c].second = std::max(span[c].second, static_cast<std::size_t>(v));
    }
    for (std::size_t c = 0; c < C; ++c) {
      if (span[c].first == N) continue;
      delta[c][span[c].first] += bytes;
      delta[c][span[c].second + 1] -= bytes;
    }
  }
  for (std::size_t c = 0; c < C; ++c) {
    double live = 0;
    for (std::size_t step = 0; step < N; ++step) {
      live += delta[c][step];
      if (static_cast<std::size_t>(f[step]) != c) continue;  // only the chip's own steps
      if (memory[c].peak_node.empty() || live > memory[c].peak_activation_bytes) {
        memory[c].peak_activation_bytes = live;
        memory[c].peak_node = p.nodes[step].name;
      }
    }
  }
  return memory;
}

std::vector<Violation> memory_violations(const PlacementProblem& p, const Placement& f) {
  std::vector<Violation> out;
  const auto memory = chip_memory(p, f);
  for (std::size_t c = 0; c < memory.size(); ++c) {
    const ChipMemory& m = memory[c];
    if (m.peak_bytes() <= p.sram_bytes) continue;
    out.push_back({ConstraintKind::memory, "chip " + std::to_string(c) + " needs " + mib(m.peak_bytes()) + " (weights " +
                                               mib(m.weights_bytes) + ", tensors " + mib(m.peak_activation_bytes) +
                                               " at '" + m.peak_node + "') but has " + mib(p.sram_bytes) + " SRAM"});
  }
  return out;
}

std::vector<Violation> violations(const PlacementProblem& p, const Placement& f) {
  std::vector<Violation> out = static_violations(p, f);
  for (Violation& v : memory_violations(p, f)) out.push_back(std::move(v));
  return out;
}

bool is_valid(const PlacementProblem& p, const Placement& f) {
  return static_violations(p, f, 1).empty() && memory_violations(p, f).empty();
}

void check_valid(const PlacementProblem& problem, const Placement& placement, const std::string& where) {
  try {
    check_shape(problem, placement);
  } catch (const InputError& e) {
    throw InputError(where + ": " + e.what());
  }
  const auto found = violations(problem, placement);
  if (!found.empty())
    throw InputError(where + ": the placement breaks " + to_string(found.front().kind) + ": " + found.front().message +
                     (found.size() > 1 ? " (and " + std::to_string(found.size() - 1) + " more)" : ""));
}

}  // namespace partsim::mcm
