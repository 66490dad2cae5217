#pragma once
// Operation-level graphs (seed 002 §5: the placement problem is posed on a compiler's tensor graph,
// BERT with 2138 nodes, training graphs of tens to hundreds of nodes): every matrix product,
// softmax, layer norm, residual add and reshape is its own node with its tensor sizes, instead of
// one node per network layer.
//
// Contract: bert_ops() is the op-level twin of the zoo's layer-level BERT: the same parameters
// and the same multiply-accumulates, with the attention block spelt out as
//   q, k, v = fc(x)                        (E x S each, with bias)
//   q_heads = reshape(q, d x S x heads), k_transpose = reshape(k, S x d x heads),
//   v_heads = reshape(v, d x S x heads)     (d = E / heads)
//   scores = matmul(q_heads, k_transpose)   (S_kv x S_q x heads; d products per element)
//   probs = softmax(scores)                 (over the keys; the 1/sqrt(d) scale is folded in)
//   context = matmul(probs, v_heads)        (d x S x heads; S products per element)
//   context_merge = reshape(context, E x S x 1), out = fc(context_merge)
// then residual add, layer norm, the 4E GELU feed-forward (fc, activation, fc), add, layer norm:
// 18 nodes per encoder layer after 8 embedding nodes (3 inputs, 3 embeddings, add, layer norm).
// Sequence length 128.

#include <cstdint>
#include <string>

#include "workloads/graph.hpp"

namespace partsim::workloads {

class NetBuilder;

/// BERT's input embeddings (word, position, segment; summed and normalised) at sequence length 128,
/// width E: the 8 nodes both BERT builders start with. Returns the normalised sum.
std::string bert_embeddings(NetBuilder& b, std::int64_t E);

/// BERT encoder at operation granularity: `layers` blocks of width E with `heads` heads.
Graph bert_ops(const std::string& name, std::int64_t layers, std::int64_t E, std::int64_t heads, std::int64_t batch);

}  // namespace partsim::workloads
