#pragma once
// A small helper for writing layer graphs in code (the zoo, tests): every method adds one layer
// and returns its name, so a network reads like its paper's figure.
//
// Contract: names must be unique within a builder; build() finalizes the graph at `batch` and
// throws whatever Graph::finalize() throws.

#include <cstdint>
#include <string>
#include <vector>

#include "workloads/graph.hpp"

namespace partsim::workloads {

class NetBuilder {
 public:
  NetBuilder(std::string name, std::string description);

  std::string input(const std::string& name, Shape shape);
  /// Square kernel conv; `bias` = false for convs followed by batch-norm.
  std::string conv(const std::string& name, const std::string& from, std::int64_t out_channels, std::int64_t kernel,
                   std::int64_t stride = 1, std::int64_t padding = 0, bool bias = true, std::int64_t groups = 1);
  /// Rectangular kernel (Inception's 1x7 / 7x1), stride 1.
  std::string conv_rect(const std::string& name, const std::string& from, std::int64_t out_channels,
                        std::int64_t kernel_h, std::int64_t kernel_w, std::int64_t pad_h, std::int64_t pad_w,
                        bool bias = true);
  std::string fc(const std::string& name, const std::string& from, std::int64_t out_features, bool bias = true);
  std::string pool(const std::string& name, const std::string& from, PoolOp op, std::int64_t window,
                   std::int64_t stride, std::int64_t padding = 0);
  std::string global_pool(const std::string& name, const std::string& from, PoolOp op);
  std::string activation(const std::string& name, const std::string& from, ActivationFn fn = ActivationFn::relu);
  std::string batch_norm(const std::string& name, const std::string& from);
  std::string layer_norm(const std::string& name, const std::string& from);
  std::string rms_norm(const std::string& name, const std::string& from);
  std::string softmax(const std::string& name, const std::string& from);
  std::string add(const std::string& name, const std::vector<std::string>& from);
  /// Element-wise product (the gate of a gated MLP).
  std::string multiply(const std::string& name, const std::vector<std::string>& from);
  std::string concat(const std::string& name, const std::vector<std::string>& from);
  std::string flatten(const std::string& name, const std::string& from);
  std::string lstm(const std::string& name, const std::string& from, std::int64_t hidden, bool bidirectional = false);
  std::string embedding(const std::string& name, const std::string& from, std::int64_t vocab, std::int64_t dim);
  /// from = {x} for self-attention, {query, memory} for attention over a memory; kv_heads < heads
  /// is grouped-query attention (0 = heads); bias = false for projections without biases.
  std::string attention(const std::string& name, const std::vector<std::string>& from, std::int64_t heads,
                        std::int64_t kv_heads = 0, bool bias = true);
  /// Activation x activation product: from = {in0 (K x M x G), in1 (N x K x G)} -> N x M x G.
  std::string matmul(const std::string& name, const std::vector<std::string>& from);
  /// The same elements in another per-sample shape (a reshape or transpose).
  std::string reshape(const std::string& name, const std::string& from, Shape shape);
  /// The elements [begin, end) of `from` along `axis`.
  std::string slice(const std::string& name, const std::string& from, ShapeAxis axis, std::int64_t begin,
                    std::int64_t end);
  /// conv (no bias) -> batch_norm -> relu, named name, name_bn, name_relu; returns the relu.
  std::string conv_bn_relu(const std::string& name, const std::string& from, std::int64_t out_channels,
                           std::int64_t kernel, std::int64_t stride = 1, std::int64_t padding = 0);

  /// Any layer.
  std::string add_layer(LayerSpec spec);
  /// The finalized graph at minibatch size `batch`.
  Graph build(std::int64_t batch) const;

 private:
  Graph graph_;
};

}  // namespace partsim::workloads
