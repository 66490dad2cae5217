#include "workloads/op_graphs.hpp"

#include "workloads/net_builder.hpp"

namespace partsim::workloads {

std::string bert_embeddings(NetBuilder& b, std::int64_t E) {
  constexpr std::int64_t V = 30522, S = 128, max_positions = 512, segments = 2;
  std::string words = b.embedding("word_embed", b.input("tokens", {1, S, 1}), V, E);
  std::string pos = b.embedding("position_embed", b.input("positions", {1, S, 1}), max_positions, E);
  std::string seg = b.embedding("segment_embed", b.input("segments", {1, S, 1}), segments, E);
  return b.layer_norm("embed_norm", b.add("embed_sum", {words, pos, seg}));
}

Graph bert_ops(const std::string& name, std::int64_t layers, std::int64_t E, std::int64_t heads, std::int64_t batch) {
  constexpr std::int64_t S = 128;
  if (heads <= 0 || E % heads != 0) throw InputError("bert_ops: heads must divide the width");
  const std::int64_t d = E / heads;
  NetBuilder b(name, "");
  std::string x = bert_embeddings(b, E);
  for (std::int64_t l = 1; l <= layers; ++l) {
    const std::string p = "layer" + std::to_string(l) + "_";
    const std::string q = b.reshape(p + "q_heads", b.fc(p + "q", x, E), {d, S, heads});
    const std::string k = b.reshape(p + "k_transpose", b.fc(p + "k", x, E), {S, d, heads});
    const std::string v = b.reshape(p + "v_heads", b.fc(p + "v", x, E), {d, S, heads});
    const std::string probs = b.softmax(p + "probs", b.matmul(p + "scores", {q, k}));
    const std::string context = b.reshape(p + "context_merge", b.matmul(p + "context", {probs, v}), {E, S, 1});
    const std::string a = b.fc(p + "attention_out", context, E);
    x = b.layer_norm(p + "attention_norm", b.add(p + "attention_res", {a, x}));
    std::string f = b.activation(p + "ffn_gelu", b.fc(p + "ffn1", x, 4 * E), ActivationFn::gelu);
    f = b.fc(p + "ffn2", f, E);
    x = b.layer_norm(p + "ffn_norm", b.add(p + "ffn_res", {f, x}));
  }
  return b.build(batch);
}

}  // namespace partsim::workloads
