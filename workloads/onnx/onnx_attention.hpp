#pragma once
// The layers an ONNX graph was mapped to, before they become a Graph, and the one rewrite the
// layer granularity makes on them: multi-head attention blocks folded into `attention` layers.
//
// Contract: fold_attention() replaces a block
//   q = fc(x) [-> reshape/transpose/scale ...], k = fc(m) [-> ...], v = fc(m) [-> ...]
//   scores = matmul(q, k), probs = softmax(scores), context = matmul(probs, v)
//   [-> reshape/transpose ...] -> out = fc(context)
// by one `attention` layer over x (self-attention when m is x, else over [x, m]) named like the
// output projection, when it is exactly what the `attention` kind counts: four E x E projections
// with biases, a sequence input E x S x 1 and heads = the number of products of `scores`. Blocks
// that differ (no biases, other widths, inner tensors read elsewhere) stay at operation level.

#include <cstdint>
#include <vector>

#include "workloads/layer.hpp"

namespace partsim::workloads::onnx_import {

struct ImportedLayers {
  std::vector<LayerSpec> layers;                      // in ONNX node order (a topological order)
  std::vector<Shape> shapes;                          // each layer's output as ONNX inferred it
  std::vector<std::vector<std::int64_t>> onnx_dims;   // the same in ONNX dimensions (batch 1)
  std::vector<int> nodes;                             // the ONNX node index (-1 for graph inputs)
};

/// Folds every attention block it recognises; returns how many.
int fold_attention(ImportedLayers& imported);

}  // namespace partsim::workloads::onnx_import
