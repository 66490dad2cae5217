// Double binary tree all-reduce (Sanders, Speck & Träff 2009; NCCL 2.4's trees): two binary trees over
// the members, each reducing half the payload up to its root and broadcasting it back down, in k
// pipelined chunks. Tree A is the in-order tree of the members' positions (root at the middle of each
// range); tree B is tree A shifted by one position, so that most of A's leaves are B's inner nodes and
// every member sends about one chunk per tree and step.
// Steps (both evaluators separate steps by a barrier, schedule.hpp): in the reduction a member at
// height h sends chunk j to its parent at step h + j; in the broadcast a member at depth d sends chunk j
// to its children at step d + j after the reduction. With H the trees' height (floor(log2 p)):
// 2 (H + k - 1) steps, each moving one chunk of S / (2k) per tree.
// k = ceil(S / 2 / chunk) for the platform's chunk (system.collectives.chunk; 0: k = 1), at most 64.

#include <algorithm>
#include <cmath>

#include "sim/collectives/algorithms/algorithms.hpp"

namespace partsim::collectives::algorithms {
namespace {

constexpr int kMaxChunks = 64;

struct Tree {
  std::vector<int> parent;    // by position; -1 for the root
  std::vector<int> height;    // longest path down to a leaf
  std::vector<int> depth;     // from the root
  std::vector<std::vector<int>> children;
};

/// The in-order tree of positions lo..hi: the middle is the root of the range.
int build_range(Tree& t, int lo, int hi, int parent, int depth) {
  if (lo > hi) return -1;
  const int root = (lo + hi) / 2;
  t.parent[root] = parent;
  t.depth[root] = depth;
  const int left = build_range(t, lo, root - 1, root, depth + 1);
  const int right = build_range(t, root + 1, hi, root, depth + 1);
  int h = 0;
  for (int c : {left, right})
    if (c >= 0) {
      t.children[root].push_back(c);
      h = std::max(h, t.height[c] + 1);
    }
  t.height[root] = h;
  return root;
}

Tree in_order_tree(int p) {
  Tree t{std::vector<int>(p, -1), std::vector<int>(p, 0), std::vector<int>(p, 0), std::vector<std::vector<int>>(p)};
  build_range(t, 0, p - 1, -1, 0);
  return t;
}

int chunks_of(double bytes, double chunk_bytes) {
  if (chunk_bytes <= 0) return 1;
  return static_cast<int>(std::clamp(std::ceil(bytes / 2 / chunk_bytes), 1.0, static_cast<double>(kMaxChunks)));
}

int tree_height(int p) { return p > 1 ? static_cast<int>(std::floor(std::log2(static_cast<double>(p)))) : 0; }

Schedule tree_schedule(const BuildInput& in) {
  const auto& m = in.who.devices;
  const int p = static_cast<int>(m.size());
  Schedule s;
  if (p < 2) return s;
  const Tree t = in_order_tree(p);
  const int k = chunks_of(in.bytes, in.settings.chunk_bytes);
  const double chunk = in.bytes / (2.0 * k);
  const int H = tree_height(p);
  // Member of tree `tree` at position `pos`: tree A is the positions themselves, tree B shifts by one.
  const auto member = [&](int tree, int pos) { return m[static_cast<std::size_t>((pos + tree) % p)]; };
  const int reduce_steps = H + k - 1;
  for (int step = 0; step < reduce_steps; ++step)
    for (int tree = 0; tree < 2; ++tree)
      for (int pos = 0; pos < p; ++pos) {
        const int j = step - t.height[pos];
        if (t.parent[pos] >= 0 && j >= 0 && j < k) s.add(member(tree, pos), member(tree, t.parent[pos]), chunk, step);
      }
  for (int step = 0; step < reduce_steps; ++step)
    for (int tree = 0; tree < 2; ++tree)
      for (int pos = 0; pos < p; ++pos) {
        const int j = step - t.depth[pos];
        if (j < 0 || j >= k) continue;
        for (int c : t.children[pos]) s.add(member(tree, pos), member(tree, c), chunk, reduce_steps + step);
      }
  return s;
}

double tree_formula(const std::string&, double bytes, const Fabric& f) {
  if (f.p < 2) return 0;
  const int k = chunks_of(bytes, f.chunk_bytes);
  return 2.0 * (tree_height(f.p) + k - 1) * (f.link.alpha + bytes / (k * f.link.bandwidth));
}

}  // namespace

Algorithm double_binary_tree() {
  return {"double_binary_tree",
          {"all_reduce"},
          "two complementary binary trees, each reducing and broadcasting S/2 in k pipelined chunks",
          "all_reduce: 2(H + k - 1)(a + S/(kB)), H = floor(log2 p), k = ceil(S / (2 chunk)) <= 64",
          tree_schedule, tree_formula, nullptr, false};
}

}  // namespace partsim::collectives::algorithms
