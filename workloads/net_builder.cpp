#include "workloads/net_builder.hpp"

namespace partsim::workloads {
namespace {

LayerSpec make(const std::string& name, LayerKind kind, std::vector<std::string> inputs) {
  LayerSpec spec;
  spec.name = name;
  spec.kind = kind;
  spec.inputs = std::move(inputs);
  return spec;
}

}  // namespace

NetBuilder::NetBuilder(std::string name, std::string description) : graph_(std::move(name), std::move(description)) {}

std::string NetBuilder::add_layer(LayerSpec spec) {
  std::string name = spec.name;
  graph_.add(std::move(spec));
  return name;
}

Graph NetBuilder::build(std::int64_t batch) const {
  Graph graph = graph_;
  graph.finalize(batch);
  return graph;
}

std::string NetBuilder::input(const std::string& name, Shape shape) {
  LayerSpec spec = make(name, LayerKind::input, {});
  spec.attr.shape = shape;
  return add_layer(std::move(spec));
}

std::string NetBuilder::conv(const std::string& name, const std::string& from, std::int64_t out_channels,
                             std::int64_t kernel, std::int64_t stride, std::int64_t padding, bool bias,
                             std::int64_t groups) {
  LayerSpec spec = make(name, LayerKind::conv, {from});
  spec.attr.out_channels = out_channels;
  spec.attr.kernel_h = spec.attr.kernel_w = kernel;
  spec.attr.stride_h = spec.attr.stride_w = stride;
  spec.attr.pad_h = spec.attr.pad_w = padding;
  spec.attr.bias = bias;
  spec.attr.groups = groups;
  return add_layer(std::move(spec));
}

std::string NetBuilder::conv_rect(const std::string& name, const std::string& from, std::int64_t out_channels,
                                  std::int64_t kernel_h, std::int64_t kernel_w, std::int64_t pad_h,
                                  std::int64_t pad_w, bool bias) {
  LayerSpec spec = make(name, LayerKind::conv, {from});
  spec.attr.out_channels = out_channels;
  spec.attr.kernel_h = kernel_h;
  spec.attr.kernel_w = kernel_w;
  spec.attr.pad_h = pad_h;
  spec.attr.pad_w = pad_w;
  spec.attr.bias = bias;
  return add_layer(std::move(spec));
}

std::string NetBuilder::fc(const std::string& name, const std::string& from, std::int64_t out_features, bool bias) {
  LayerSpec spec = make(name, LayerKind::fc, {from});
  spec.attr.out_channels = out_features;
  spec.attr.bias = bias;
  return add_layer(std::move(spec));
}

std::string NetBuilder::pool(const std::string& name, const std::string& from, PoolOp op, std::int64_t window,
                             std::int64_t stride, std::int64_t padding) {
  LayerSpec spec = make(name, LayerKind::pool, {from});
  spec.attr.pool = op;
  spec.attr.kernel_h = spec.attr.kernel_w = window;
  spec.attr.stride_h = spec.attr.stride_w = stride;
  spec.attr.pad_h = spec.attr.pad_w = padding;
  return add_layer(std::move(spec));
}

std::string NetBuilder::global_pool(const std::string& name, const std::string& from, PoolOp op) {
  LayerSpec spec = make(name, LayerKind::pool, {from});
  spec.attr.pool = op;
  spec.attr.global = true;
  return add_layer(std::move(spec));
}

std::string NetBuilder::activation(const std::string& name, const std::string& from, ActivationFn fn) {
  LayerSpec spec = make(name, LayerKind::activation, {from});
  spec.attr.function = fn;
  return add_layer(std::move(spec));
}

std::string NetBuilder::batch_norm(const std::string& name, const std::string& from) {
  return add_layer(make(name, LayerKind::batch_norm, {from}));
}

std::string NetBuilder::layer_norm(const std::string& name, const std::string& from) {
  return add_layer(make(name, LayerKind::layer_norm, {from}));
}

std::string NetBuilder::rms_norm(const std::string& name, const std::string& from) {
  return add_layer(make(name, LayerKind::rms_norm, {from}));
}

std::string NetBuilder::matmul(const std::string& name, const std::vector<std::string>& from) {
  return add_layer(make(name, LayerKind::matmul, from));
}

std::string NetBuilder::reshape(const std::string& name, const std::string& from, Shape shape) {
  LayerSpec spec = make(name, LayerKind::reshape, {from});
  spec.attr.shape = shape;
  return add_layer(std::move(spec));
}

std::string NetBuilder::slice(const std::string& name, const std::string& from, ShapeAxis axis, std::int64_t begin,
                              std::int64_t end) {
  LayerSpec spec = make(name, LayerKind::slice, {from});
  spec.attr.axis = axis;
  spec.attr.begin = begin;
  spec.attr.end = end;
  return add_layer(std::move(spec));
}

std::string NetBuilder::softmax(const std::string& name, const std::string& from) {
  return add_layer(make(name, LayerKind::softmax, {from}));
}

std::string NetBuilder::add(const std::string& name, const std::vector<std::string>& from) {
  return add_layer(make(name, LayerKind::add, from));
}

std::string NetBuilder::multiply(const std::string& name, const std::vector<std::string>& from) {
  return add_layer(make(name, LayerKind::multiply, from));
}

std::string NetBuilder::concat(const std::string& name, const std::vector<std::string>& from) {
  return add_layer(make(name, LayerKind::concat, from));
}

std::string NetBuilder::flatten(const std::string& name, const std::string& from) {
  return add_layer(make(name, LayerKind::flatten, {from}));
}

std::string NetBuilder::lstm(const std::string& name, const std::string& from, std::int64_t hidden, bool bidirectional) {
  LayerSpec spec = make(name, LayerKind::lstm, {from});
  spec.attr.hidden = hidden;
  spec.attr.bidirectional = bidirectional;
  return add_layer(std::move(spec));
}

std::string NetBuilder::embedding(const std::string& name, const std::string& from, std::int64_t vocab, std::int64_t dim) {
  LayerSpec spec = make(name, LayerKind::embedding, {from});
  spec.attr.vocab = vocab;
  spec.attr.dim = dim;
  return add_layer(std::move(spec));
}

std::string NetBuilder::attention(const std::string& name, const std::vector<std::string>& from, std::int64_t heads,
                                  std::int64_t kv_heads, bool bias) {
  LayerSpec spec = make(name, LayerKind::attention, from);
  spec.attr.heads = heads;
  spec.attr.kv_heads = kv_heads;
  spec.attr.bias = bias;
  return add_layer(std::move(spec));
}

std::string NetBuilder::conv_bn_relu(const std::string& name, const std::string& from, std::int64_t out_channels,
                                     std::int64_t kernel, std::int64_t stride, std::int64_t padding) {
  std::string x = conv(name, from, out_channels, kernel, stride, padding, /*bias=*/false);
  x = batch_norm(name + "_bn", x);
  return activation(name + "_relu", x);
}

}  // namespace partsim::workloads
