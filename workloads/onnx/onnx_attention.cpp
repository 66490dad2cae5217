#include "workloads/onnx/onnx_attention.hpp"

#include <algorithm>
#include <set>
#include <string>
#include <unordered_map>

namespace partsim::workloads::onnx_import {
namespace {

constexpr int kNoLayer = -1;

class AttentionFolder {
 public:
  explicit AttentionFolder(ImportedLayers& imported) : im_(imported), removed_(imported.layers.size(), false) {
    for (size_t k = 0; k < im_.layers.size(); ++k) {
      index_[im_.layers[k].name] = static_cast<int>(k);
      for (const std::string& in : im_.layers[k].inputs) readers_[in].push_back(static_cast<int>(k));
    }
  }

  int run() {
    int folded = 0;
    for (size_t k = 0; k < im_.layers.size(); ++k)
      if (im_.layers[k].kind == LayerKind::softmax && fold_at(static_cast<int>(k))) ++folded;
    compact();
    return folded;
  }

 private:
  ImportedLayers& im_;
  std::vector<bool> removed_;
  std::unordered_map<std::string, int> index_;
  std::unordered_map<std::string, std::vector<int>> readers_;

  const LayerSpec& at(int k) const { return im_.layers[static_cast<size_t>(k)]; }
  const Shape& shape(int k) const { return im_.shapes[static_cast<size_t>(k)]; }
  int producer(const std::string& name) const {
    const auto it = index_.find(name);
    return it == index_.end() ? kNoLayer : it->second;
  }
  std::vector<int> readers(int k) const {
    const auto it = readers_.find(at(k).name);
    return it == readers_.end() ? std::vector<int>{} : it->second;
  }
  bool is(int k, LayerKind kind) const { return k != kNoLayer && at(k).kind == kind; }
  // Layers between a projection and the products: reshapes, transposes, the 1/sqrt(d) scale, and
  // the slices that cut q, k and v out of one fused projection (nn.MultiheadAttention, GPT-2's c_attn).
  bool is_plumbing(int k) const {
    return is(k, LayerKind::reshape) || is(k, LayerKind::slice) || is_elementwise(k);
  }
  // The scale and the causal mask (a Where over a constant mask) between the scores and the softmax.
  bool is_elementwise(int k) const {
    return is(k, LayerKind::activation) && at(k).attr.function == ActivationFn::elementwise;
  }

  // From the tensor `name` back over reshapes that only reorder positions (E x S x 1 <-> E x 1 x S:
  // nn.MultiheadAttention's batch-second transpose) to the sequence they reorder. Reshapes read only
  // by the block join it.
  std::string sequence_of(const std::string& name, std::set<int>& region) const {
    std::string x = name;
    for (int k = producer(x); is(k, LayerKind::reshape); k = producer(x)) {
      const Shape in = shape(producer(at(k).inputs[0]));
      if (in.c != shape(k).c || in.elements() != shape(k).elements() || shape(k).w == 1) break;
      const std::vector<int> r = readers(k);
      if (!std::all_of(r.begin(), r.end(), [&](int reader) { return region.count(reader) > 0; })) break;
      region.insert(k);
      x = at(k).inputs[0];
    }
    return x;
  }

  // From the tensor `name` back over plumbing to the fc that projects it (kNoLayer if there is none).
  int projection_of(const std::string& name, std::set<int>& region) const {
    int k = producer(name);
    while (is_plumbing(k)) {
      region.insert(k);
      k = producer(at(k).inputs[0]);
    }
    if (!is(k, LayerKind::fc)) return kNoLayer;
    region.insert(k);
    return k;
  }

  // The softmax's scope + "attention" ("/layers.0/Softmax" -> "/layers.0/attention") when that name is
  // free, else the output projection's name. Readers refer to the block by name: they are renamed.
  std::string block_name(int softmax, int out) const {
    const std::string& s = at(softmax).name;
    const auto slash = s.rfind('/');
    const std::string wanted = slash == std::string::npos ? "" : s.substr(0, slash + 1) + "attention";
    return wanted.empty() || index_.count(wanted) > 0 ? at(out).name : wanted;
  }

  bool fold_at(int softmax) {
    std::set<int> region = {softmax};
    int scores = producer(at(softmax).inputs[0]);
    while (is_elementwise(scores) && readers(scores).size() == 1) {
      region.insert(scores);
      scores = producer(at(scores).inputs[0]);
    }
    const std::vector<int> after = readers(softmax);
    if (!is(scores, LayerKind::matmul) || after.size() != 1 || !is(after[0], LayerKind::matmul) ||
        at(after[0]).inputs[0] != at(softmax).name)
      return false;
    const int context = after[0];
    region.insert({scores, context});
    const int q = projection_of(at(scores).inputs[0], region);
    const int k = projection_of(at(scores).inputs[1], region);
    const int v = projection_of(at(context).inputs[1], region);
    int out = context;
    for (;;) {
      const std::vector<int> next = readers(out);
      if (next.size() != 1) return false;
      out = next[0];
      if (is(out, LayerKind::fc)) break;
      if (!is(out, LayerKind::reshape)) return false;
      region.insert(out);
    }
    if (q == kNoLayer || k == kNoLayer || v == kNoLayer) return false;
    // Exactly what the `attention` kind counts: E x E projections with biases over E-wide sequences
    // (one fused 3E-wide projection counts the same weights and products as three).
    const bool fused = q == k && k == v;
    if (!fused && (q == k || k == v || q == v)) return false;
    const std::string x = sequence_of(at(q).inputs[0], region);
    const std::string memory = fused ? x : sequence_of(at(k).inputs[0], region);
    if ((!fused && sequence_of(at(v).inputs[0], region) != memory) || producer(x) == kNoLayer || producer(memory) == kNoLayer)
      return false;
    const Shape sx = shape(producer(x));
    const Shape sm = shape(producer(memory));
    const std::int64_t E = sx.c;
    const std::int64_t heads = shape(scores).w;
    if (sx.w != 1 || sm.w != 1 || sm.c != E || heads <= 0 || E % heads != 0 || !(shape(out) == sx)) return false;
    for (int p : fused ? std::vector<int>{q, out} : std::vector<int>{q, k, v, out})
      if (!at(p).attr.bias || at(p).attr.out_channels != (p == out || !fused ? E : 3 * E)) return false;
    // Reshapes after the output projection that return to the sequence's shape (the batch-second
    // transpose undone) join the block, which then ends at the last of them.
    int last = out;
    std::vector<int> tail;
    for (std::vector<int> next = readers(out); next.size() == 1 && is(next[0], LayerKind::reshape);
         next = readers(next[0])) {
      tail.push_back(next[0]);
      if (!(shape(next[0]) == sx)) continue;
      region.insert(last);
      region.insert(tail.begin(), tail.end() - 1);
      last = next[0];
      tail.clear();
    }
    // Nothing inside the block may be read from outside it.
    for (int member : region)
      for (int r : readers(member))
        if (region.count(r) == 0 && r != last) return false;

    LayerSpec attention;
    attention.name = block_name(softmax, out);
    attention.kind = LayerKind::attention;
    attention.inputs = x == memory ? std::vector<std::string>{x} : std::vector<std::string>{x, memory};
    attention.attr.heads = heads;
    for (int r : readers(last))
      for (std::string& in : im_.layers[static_cast<size_t>(r)].inputs)
        if (in == at(last).name) in = attention.name;
    index_[attention.name] = last;
    im_.layers[static_cast<size_t>(last)] = std::move(attention);
    for (int member : region) removed_[static_cast<size_t>(member)] = true;
    return true;
  }

  void compact() {
    ImportedLayers kept;
    for (size_t k = 0; k < im_.layers.size(); ++k) {
      if (removed_[k]) continue;
      kept.layers.push_back(std::move(im_.layers[k]));
      kept.shapes.push_back(im_.shapes[k]);
      kept.onnx_dims.push_back(std::move(im_.onnx_dims[k]));
      kept.nodes.push_back(im_.nodes[k]);
    }
    im_ = std::move(kept);
  }
};

}  // namespace

int fold_attention(ImportedLayers& imported) { return AttentionFolder(imported).run(); }

}  // namespace partsim::workloads::onnx_import
