#include "workloads/onnx/onnx_attention.hpp"

#include <algorithm>
#include <set>
#include <string>
#include <unordered_map>

namespace partsim::workloads::onnx_import {
namespace {

constexpr int kNone = -1;

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
    return it == index_.end() ? kNone : it->second;
  }
  std::vector<int> readers(int k) const {
    const auto it = readers_.find(at(k).name);
    return it == readers_.end() ? std::vector<int>{} : it->second;
  }
  bool is(int k, LayerKind kind) const { return k != kNone && at(k).kind == kind; }
  // Layers between a projection and the products: reshapes, transposes and the 1/sqrt(d) scale.
  bool is_plumbing(int k) const {
    return is(k, LayerKind::reshape) ||
           (is(k, LayerKind::activation) && at(k).attr.function == ActivationFn::elementwise);
  }

  // From the tensor `name` back over plumbing to the fc that projects it (kNone if there is none).
  int projection_of(const std::string& name, std::set<int>& region) const {
    int k = producer(name);
    while (is_plumbing(k)) {
      region.insert(k);
      k = producer(at(k).inputs[0]);
    }
    if (!is(k, LayerKind::fc)) return kNone;
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
    const int scores = producer(at(softmax).inputs[0]);
    const std::vector<int> after = readers(softmax);
    if (!is(scores, LayerKind::matmul) || after.size() != 1 || !is(after[0], LayerKind::matmul) ||
        at(after[0]).inputs[0] != at(softmax).name)
      return false;
    const int context = after[0];
    std::set<int> region = {scores, softmax, context};
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
    if (q == kNone || k == kNone || v == kNone) return false;
    // Exactly what the `attention` kind counts: E x E projections with biases over E-wide sequences.
    const std::string& x = at(q).inputs[0];
    const std::string& memory = at(k).inputs[0];
    if (at(v).inputs[0] != memory || producer(x) == kNone || producer(memory) == kNone) return false;
    const Shape sx = shape(producer(x));
    const Shape sm = shape(producer(memory));
    const std::int64_t E = sx.c;
    const std::int64_t heads = shape(scores).w;
    if (sx.w != 1 || sm.w != 1 || sm.c != E || heads <= 0 || E % heads != 0 || !(shape(out) == sx)) return false;
    for (int p : {q, k, v, out})
      if (!at(p).attr.bias || at(p).attr.out_channels != E) return false;
    // Nothing inside the block may be read from outside it.
    for (int member : region)
      for (int r : readers(member))
        if (region.count(r) == 0 && r != out) return false;

    LayerSpec attention;
    attention.name = block_name(softmax, out);
    attention.kind = LayerKind::attention;
    attention.inputs = x == memory ? std::vector<std::string>{x} : std::vector<std::string>{x, memory};
    attention.attr.heads = heads;
    for (int r : readers(out))
      for (std::string& in : im_.layers[static_cast<size_t>(r)].inputs)
        if (in == at(out).name) in = attention.name;
    index_[attention.name] = out;
    im_.layers[static_cast<size_t>(out)] = std::move(attention);
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
