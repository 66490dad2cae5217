#include "sim/geometry/layer_geometry.hpp"

#include <algorithm>

#include "sim/common/integer_math.hpp"

namespace partsim::geometry {
namespace {

using plan::Range;
using workloads::LayerKind;

/// A loop range [lo, hi) of extent e onto an axis of size t.
Range scale(const Range& r, std::int64_t e, std::int64_t t) {
  if (e == t || e <= 0) return r;
  const auto lo = static_cast<std::int64_t>(static_cast<double>(r.lo) * static_cast<double>(t) / static_cast<double>(e));
  const double hi_exact = static_cast<double>(r.hi) * static_cast<double>(t) / static_cast<double>(e);
  auto hi = static_cast<std::int64_t>(hi_exact);
  if (static_cast<double>(hi) < hi_exact) ++hi;
  return {std::clamp<std::int64_t>(lo, 0, t), std::clamp<std::int64_t>(hi, 0, t)};
}

/// Output rows [lo, hi) of a window (kernel k, stride s, padding p) read input rows
/// [lo*s - p, (hi-1)*s - p + k), clipped to the input.
Range window(const Range& r, std::int64_t k, std::int64_t s, std::int64_t p, std::int64_t input) {
  if (r.size() == 0) return {0, 0};
  return {std::clamp<std::int64_t>(r.lo * s - p, 0, input), std::clamp<std::int64_t>((r.hi - 1) * s - p + k, 0, input)};
}

/// The channel range of a one-axis layer's box: both channel dimensions name the one axis.
Range channels(const plan::LoopBox& b) { return plan::intersect(b.out_channels, b.in_channels); }

double frac(const Range& r, std::int64_t n) { return n > 0 ? static_cast<double>(r.size()) / static_cast<double>(n) : 0; }

}  // namespace

double TensorBox::elements() const {
  return static_cast<double>(batch.size()) * static_cast<double>(channel.size()) * static_cast<double>(height.size()) *
         static_cast<double>(width.size());
}

TensorBox intersect(const TensorBox& a, const TensorBox& b) {
  return {plan::intersect(a.batch, b.batch), plan::intersect(a.channel, b.channel), plan::intersect(a.height, b.height),
          plan::intersect(a.width, b.width)};
}

bool has_two_channel_axes(const workloads::Layer& layer) {
  switch (layer.kind) {
    case LayerKind::conv:
    case LayerKind::fc:
    case LayerKind::lstm:
    case LayerKind::matmul:
    case LayerKind::attention:
    case LayerKind::embedding: return true;
    default: return false;
  }
}

plan::LoopExtent loop_extent(const workloads::Layer& layer, std::int64_t batch) {
  plan::LoopExtent e;
  e.batch = batch;
  e.out_channels = layer.output_shape.c;
  e.in_channels = layer.output_shape.c;
  if (has_two_channel_axes(layer))
    e.in_channels = layer.kind == LayerKind::embedding || layer.input_shapes.empty() ? 1 : layer.input_shapes[0].c;
  e.height = layer.output_shape.h;
  e.width = layer.output_shape.w;
  return e;
}

double work_fraction(const workloads::Layer& layer, const plan::LoopBox& b, const plan::LoopExtent& e) {
  if (has_two_channel_axes(layer)) return b.fraction(e);
  return frac(b.batch, e.batch) * frac(channels(b), e.out_channels) * frac(b.height, e.height) * frac(b.width, e.width);
}

double weight_fraction(const workloads::Layer& layer, const plan::LoopBox& b, const plan::LoopExtent& e) {
  if (layer.q.params <= 0) return 0;
  if (has_two_channel_axes(layer)) return frac(b.out_channels, e.out_channels) * frac(b.in_channels, e.in_channels);
  return frac(channels(b), e.out_channels);
}

std::vector<Range> weight_key(const workloads::Layer& layer, const plan::LoopBox& b) {
  if (has_two_channel_axes(layer)) return {b.out_channels, b.in_channels};
  return {channels(b)};
}

std::vector<Range> output_key(const plan::LoopBox& b) { return {b.batch, b.out_channels, b.height, b.width}; }

TensorBox output_box(const workloads::Layer& layer, const plan::LoopBox& b, const plan::LoopExtent& e,
                     std::int64_t batch) {
  const workloads::Shape& s = layer.output_shape;
  const Range c = has_two_channel_axes(layer) ? b.out_channels : channels(b);
  return {scale(b.batch, e.batch, batch), scale(c, e.out_channels, s.c), scale(b.height, e.height, s.h),
          scale(b.width, e.width, s.w)};
}

TensorBox input_box(const workloads::Layer& layer, std::size_t slot, const plan::LoopBox& b,
                    const plan::LoopExtent& e, std::int64_t batch) {
  const workloads::Shape& in = layer.input_shapes.at(slot);
  const auto& a = layer.attr;
  TensorBox t;
  t.batch = scale(b.batch, e.batch, batch);
  t.height = scale(b.height, e.height, in.h);
  t.width = scale(b.width, e.width, in.w);
  if (has_two_channel_axes(layer)) {
    t.channel = layer.kind == LayerKind::embedding ? Range{0, in.c} : scale(b.in_channels, e.in_channels, in.c);
  } else {
    t.channel = scale(channels(b), e.out_channels, in.c);
  }
  switch (layer.kind) {
    case LayerKind::conv:
      t.height = window(b.height, a.kernel_h, a.stride_h, a.pad_h, in.h);
      t.width = window(b.width, a.kernel_w, a.stride_w, a.pad_w, in.w);
      break;
    case LayerKind::pool:
      if (a.global) {
        t.height = {0, in.h};
        t.width = {0, in.w};
      } else {
        t.height = window(b.height, a.kernel_h, a.stride_h, a.pad_h, in.h);
        t.width = window(b.width, a.kernel_w, a.stride_w, a.pad_w, in.w);
      }
      break;
    case LayerKind::attention:
      t.height = {0, in.h};  // keys and values: the whole sequence
      break;
    case LayerKind::flatten: {
      // Output feature k = (c * H + h) * W + w: whole input channels, every position.
      const std::int64_t hw = std::max<std::int64_t>(1, in.h * in.w);
      const Range c = channels(b);
      t.channel = {std::min(in.c, c.lo / hw), std::min<std::int64_t>(in.c, ceil_div(c.hi, hw))};
      t.height = {0, in.h};
      t.width = {0, in.w};
      break;
    }
    case LayerKind::reshape:
      // Elements move between axes: a shard may need any part of the input, so it reads all of it
      // (exact for an unsplit reshape, an over-estimate when one is split).
      t.channel = {0, in.c};
      t.height = {0, in.h};
      t.width = {0, in.w};
      break;
    case LayerKind::slice: {
      // The output's range along the cut axis, shifted by `begin`; the other axes match the input's.
      const workloads::Shape& out = layer.output_shape;
      auto shifted = [&](const Range& r, std::int64_t extent, std::int64_t size) {
        const Range o = scale(r, extent, size);
        return Range{a.begin + o.lo, a.begin + o.hi};
      };
      if (a.axis == workloads::ShapeAxis::channels) t.channel = shifted(channels(b), e.out_channels, out.c);
      if (a.axis == workloads::ShapeAxis::height) t.height = shifted(b.height, e.height, out.h);
      if (a.axis == workloads::ShapeAxis::width) t.width = shifted(b.width, e.width, out.w);
      break;
    }
    case LayerKind::concat: {
      std::int64_t offset = 0;
      for (std::size_t k = 0; k < slot; ++k) offset += layer.input_shapes[k].c;
      const Range c = plan::intersect(channels(b), {offset, offset + in.c});
      t.channel = c.size() > 0 ? Range{c.lo - offset, c.hi - offset} : Range{0, 0};
      break;
    }
    default: break;
  }
  return t;
}

topology::OperatorClass operator_class(LayerKind kind) {
  using topology::OperatorClass;
  switch (kind) {
    case LayerKind::conv: return OperatorClass::conv;
    case LayerKind::fc:
    case LayerKind::matmul:
    case LayerKind::lstm:
    case LayerKind::attention: return OperatorClass::gemm;
    case LayerKind::batch_norm:
    case LayerKind::layer_norm:
    case LayerKind::rms_norm: return OperatorClass::normalization;
    case LayerKind::softmax: return OperatorClass::softmax;
    case LayerKind::embedding: return OperatorClass::embedding;
    default: return OperatorClass::elementwise;  // activation, add, multiply, pool, concat, reshapes
  }
}

double attention_core_share(const workloads::Layer& L, plan::Pass pass) {
  if (pass == plan::Pass::upd) return 0;  // weight gradients are the projections' only
  const auto& x = L.input_shapes.front();
  const double E = static_cast<double>(x.c);
  const double kv_heads = static_cast<double>(L.attr.kv_heads > 0 ? L.attr.kv_heads : L.attr.heads);
  const double E_kv = E / static_cast<double>(L.attr.heads) * kv_heads;
  const double Sq = static_cast<double>(x.h);
  const double Skv = static_cast<double>(L.input_shapes.size() == 2 ? L.input_shapes[1].h : x.h);
  // Multiply-accumulates per sample (workloads/layer.cpp): scores and context Sq Skv E each (backward:
  // the gradients of both operands of each, twice that); projections Sq E^2 (Q, O) and Skv E E_kv (K, V).
  const double core = 2 * Sq * Skv * E * (pass == plan::Pass::fwd ? 1 : 2);
  const double projections = 2 * Sq * E * E + 2 * Skv * E * E_kv;
  return core / (core + projections);
}

devices::ShardWork shard_work(const workloads::Layer& L, const plan::LoopBox& box, const plan::LoopExtent& e,
                              std::int64_t batch, plan::Pass pass, double bpe) {
  const double f = work_fraction(L, box, e);
  const auto pick = [pass](const workloads::PassCounts& p) {
    return pass == plan::Pass::fwd ? p.fwd : pass == plan::Pass::bwd ? p.bwd : p.upd;
  };
  devices::ShardWork w;
  w.primary_flops = pick(L.q.primary_flops) * f;
  w.aux_flops = pick(L.q.aux_flops) * f;
  double in = 0;
  for (std::size_t k = 0; k < L.input_shapes.size(); ++k) in += input_box(L, k, box, e, batch).elements();
  const double out = output_box(L, box, e, batch).elements();
  const double weights = L.q.weight_elements * weight_fraction(L, box, e);
  w.memory_bytes = (in + weights + out) * bpe;  // each pass touches one tensor of each of the three sizes
  w.on_arrays = L.q.primary;
  w.op = operator_class(L.kind);
  w.precision = bpe >= 4 ? topology::Precision::fp32 : bpe >= 2 ? topology::Precision::bf16 : topology::Precision::int8;
  if (L.kind == LayerKind::attention) {
    w.products = 4;  // the Q, K, V and output projections
    w.attention_core_flops = w.primary_flops * attention_core_share(L, pass);
  }
  w.loops = {box.in_channels.size(), box.out_channels.size(), box.height.size() * box.width.size(),
             std::max<std::int64_t>(1, L.q.kernel_positions), box.batch.size()};
  const bool conv = L.kind == LayerKind::conv;
  w.conv = {box.batch.size(), box.out_channels.size(), box.in_channels.size(), box.height.size(), box.width.size(),
            conv ? L.attr.kernel_h : 1, conv ? L.attr.kernel_w : 1, conv ? L.attr.stride_h : 1, conv ? L.attr.stride_w : 1};
  return w;
}

}  // namespace partsim::geometry
