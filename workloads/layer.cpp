#include "workloads/layer.hpp"

#include <algorithm>
#include <array>

#include "workloads/graph.hpp"

namespace partsim::workloads {
namespace {

constexpr std::array<std::string_view, 19> kKindNames = {
    "input",   "conv", "fc",   "matmul",    "pool",      "activation", "batch_norm", "layer_norm", "softmax", "add",
    "concat", "flatten", "lstm", "embedding", "attention", "reshape",    "rms_norm",   "multiply",   "slice"};

[[noreturn]] void fail(const LayerSpec& spec, const std::string& message) {
  throw LayerError(spec.name, std::string(to_string(spec.kind)) + ": " + message);
}

std::string input_text(const LayerSpec& spec, size_t slot, const Shape& shape) {
  std::string producer = slot < spec.inputs.size() ? spec.inputs[slot] : "?";
  return "input '" + producer + "' is " + to_string(shape);
}

void expect_inputs(const LayerSpec& spec, const std::vector<Shape>& in, size_t min, size_t max) {
  if (in.size() >= min && in.size() <= max) return;
  std::string want = min == max ? std::to_string(min) : max == SIZE_MAX ? "at least " + std::to_string(min)
                                                                        : std::to_string(min) + " or " + std::to_string(max);
  fail(spec, "takes " + want + " input" + (max == 1 ? "" : "s") + " but has " + std::to_string(in.size()));
}

// Output size of a sliding window: floor((n + 2p - k) / s) + 1 (no dilation, floor mode).
std::int64_t window_out(const LayerSpec& spec, std::int64_t n, std::int64_t k, std::int64_t s, std::int64_t p,
                        const Shape& in) {
  if (n + 2 * p < k)
    fail(spec, "window " + std::to_string(k) + " with padding " + std::to_string(p) + " does not fit input " +
                   to_string(in));
  return (n + 2 * p - k) / s + 1;
}

void check_channels(const LayerSpec& spec, std::int64_t expected, const Shape& in, const char* what) {
  if (expected > 0 && in.c != expected)
    fail(spec, "expects " + std::to_string(expected) + " " + what + " but " + input_text(spec, 0, in));
}

// Weight counts stay far inside int64 and exact in a double.
void check_weights(const LayerSpec& spec, double weights) {
  if (weights > 1e12) fail(spec, "has too many weights (more than 1e12)");
}

// One matrix product Y = X (x) W with `macs` multiply-accumulates, counted as in AccPar Table 6:
// each output element with P products costs 2P-1 FLOP, so a product costs 2*MACs - A(out).
// With weights: FWD computes Y, BWD computes dX (A(X) outputs), UPD computes dW (A(W) outputs).
void add_weight_product(LayerQuantities& q, double macs, double out_y, double out_x, double out_w) {
  q.macs.fwd += macs;
  q.macs.bwd += macs;
  q.macs.upd += macs;
  q.primary_flops.fwd += 2 * macs - out_y;
  q.primary_flops.bwd += 2 * macs - out_x;
  q.primary_flops.upd += 2 * macs - out_w;
}

// Y = X1 (x) X2, both activations: BWD computes dX1 and dX2 (two products), no UPD.
void add_activation_product(LayerQuantities& q, double macs, double out_y, double out_x1, double out_x2) {
  q.macs.fwd += macs;
  q.macs.bwd += 2 * macs;
  q.primary_flops.fwd += 2 * macs - out_y;
  q.primary_flops.bwd += (2 * macs - out_x1) + (2 * macs - out_x2);
}

}  // namespace

std::string_view to_string(LayerKind kind) { return kKindNames.at(static_cast<size_t>(kind)); }

std::string_view to_string(PoolOp op) { return op == PoolOp::max ? "max" : "avg"; }

std::string_view to_string(ActivationFn fn) {
  switch (fn) {
    case ActivationFn::relu: return "relu";
    case ActivationFn::sigmoid: return "sigmoid";
    case ActivationFn::tanh: return "tanh";
    case ActivationFn::gelu: return "gelu";
    case ActivationFn::silu: return "silu";
    case ActivationFn::elementwise: return "elementwise";
  }
  return "?";
}

std::string_view to_string(ShapeAxis axis) {
  switch (axis) {
    case ShapeAxis::channels: return "channels";
    case ShapeAxis::height: return "height";
    case ShapeAxis::width: return "width";
  }
  return "?";
}

const std::vector<std::string>& layer_kind_names() {
  static const std::vector<std::string> names(kKindNames.begin(), kKindNames.end());
  return names;
}

std::string to_string(const Shape& shape) {
  return std::to_string(shape.c) + "x" + std::to_string(shape.h) + "x" + std::to_string(shape.w);
}

Shape infer_shape(const LayerSpec& spec, const std::vector<Shape>& in) {
  const LayerAttributes& a = spec.attr;
  switch (spec.kind) {
    case LayerKind::input:
      expect_inputs(spec, in, 0, 0);
      if (a.shape.c <= 0 || a.shape.h <= 0 || a.shape.w <= 0) fail(spec, "shape must be positive, got " + to_string(a.shape));
      return a.shape;

    case LayerKind::conv: {
      expect_inputs(spec, in, 1, 1);
      const Shape& x = in[0];
      check_channels(spec, a.in_channels, x, "input channels");
      if (a.out_channels <= 0) fail(spec, "out_channels must be > 0");
      if (a.groups <= 0 || x.c % a.groups != 0 || a.out_channels % a.groups != 0)
        fail(spec, "groups " + std::to_string(a.groups) + " must divide input channels and out_channels " +
                       std::to_string(a.out_channels) + " but " + input_text(spec, 0, x));
      check_weights(spec, static_cast<double>(x.c / a.groups) * static_cast<double>(a.kernel_h * a.kernel_w) *
                              static_cast<double>(a.out_channels));
      return Shape{a.out_channels, window_out(spec, x.h, a.kernel_h, a.stride_h, a.pad_h, x),
                   window_out(spec, x.w, a.kernel_w, a.stride_w, a.pad_w, x)};
    }

    case LayerKind::fc: {
      expect_inputs(spec, in, 1, 1);
      check_channels(spec, a.in_channels, in[0], "input features");
      if (a.out_channels <= 0) fail(spec, "out_features must be > 0");
      check_weights(spec, static_cast<double>(in[0].c) * static_cast<double>(a.out_channels));
      return Shape{a.out_channels, in[0].h, in[0].w};
    }

    case LayerKind::matmul: {
      expect_inputs(spec, in, 2, 2);
      // in0: K x M x G (K features at M positions, G independent products), in1: N x K x G
      // ->  out N x M x G.
      if (in[0].w != in[1].w || in[0].c != in[1].h)
        fail(spec, "needs in0 K x M x G and in1 N x K x G but " + input_text(spec, 0, in[0]) + " and " +
                       input_text(spec, 1, in[1]));
      return Shape{in[1].c, in[0].h, in[0].w};
    }

    case LayerKind::pool: {
      expect_inputs(spec, in, 1, 1);
      const Shape& x = in[0];
      if (a.global) return Shape{x.c, 1, 1};
      return Shape{x.c, window_out(spec, x.h, a.kernel_h, a.stride_h, a.pad_h, x),
                   window_out(spec, x.w, a.kernel_w, a.stride_w, a.pad_w, x)};
    }

    case LayerKind::activation:
    case LayerKind::softmax:
    case LayerKind::layer_norm:
    case LayerKind::rms_norm:
      expect_inputs(spec, in, 1, 1);
      return in[0];

    case LayerKind::batch_norm:
      expect_inputs(spec, in, 1, 1);
      check_channels(spec, a.in_channels, in[0], "channels");
      return in[0];

    case LayerKind::add:
    case LayerKind::multiply:
      expect_inputs(spec, in, 2, SIZE_MAX);
      for (size_t i = 1; i < in.size(); ++i)
        if (!(in[i] == in[0]))
          fail(spec, "inputs must have equal shapes but " + input_text(spec, 0, in[0]) + " and " +
                         input_text(spec, i, in[i]));
      return in[0];

    case LayerKind::concat: {
      expect_inputs(spec, in, 2, SIZE_MAX);
      Shape out = in[0];
      for (size_t i = 1; i < in.size(); ++i) {
        if (in[i].h != in[0].h || in[i].w != in[0].w)
          fail(spec, "inputs must agree in height and width but " + input_text(spec, 0, in[0]) + " and " +
                         input_text(spec, i, in[i]));
        out.c += in[i].c;
      }
      return out;
    }

    case LayerKind::flatten:
      expect_inputs(spec, in, 1, 1);
      return Shape{in[0].elements(), 1, 1};

    case LayerKind::lstm: {
      expect_inputs(spec, in, 1, 1);
      const Shape& x = in[0];
      if (a.hidden <= 0) fail(spec, "hidden must be > 0");
      if (x.w != 1) fail(spec, "needs a sequence features x timesteps x 1 but " + input_text(spec, 0, x));
      check_channels(spec, a.in_channels, x, "input features");
      if (a.timesteps > 0 && x.h != a.timesteps)
        fail(spec, "expects " + std::to_string(a.timesteps) + " timesteps but " + input_text(spec, 0, x));
      return Shape{a.hidden * (a.bidirectional ? 2 : 1), x.h, 1};
    }

    case LayerKind::embedding: {
      expect_inputs(spec, in, 1, 1);
      if (a.vocab <= 0 || a.dim <= 0) fail(spec, "vocab and dim must be > 0");
      if (in[0].c != 1 || in[0].w != 1)
        fail(spec, "needs token ids 1 x S x 1 but " + input_text(spec, 0, in[0]));
      return Shape{a.dim, in[0].h, 1};
    }

    case LayerKind::attention: {
      expect_inputs(spec, in, 1, 2);
      const Shape& query = in[0];
      if (query.w != 1) fail(spec, "needs a sequence E x S x 1 but " + input_text(spec, 0, query));
      if (a.heads <= 0 || query.c % a.heads != 0)
        fail(spec, "heads " + std::to_string(a.heads) + " must divide the model width but " +
                       input_text(spec, 0, query));
      if (a.kv_heads < 0 || (a.kv_heads > 0 && a.heads % a.kv_heads != 0))
        fail(spec, "kv_heads " + std::to_string(a.kv_heads) + " must divide heads " + std::to_string(a.heads));
      if (a.seq_len > 0 && query.h != a.seq_len)
        fail(spec, "expects sequence length " + std::to_string(a.seq_len) + " but " + input_text(spec, 0, query));
      if (in.size() == 2 && (in[1].c != query.c || in[1].w != 1))
        fail(spec, "memory must have the query's width but " + input_text(spec, 0, query) + " and " +
                       input_text(spec, 1, in[1]));
      return query;
    }

    case LayerKind::reshape:
      expect_inputs(spec, in, 1, 1);
      if (a.shape.c <= 0 || a.shape.h <= 0 || a.shape.w <= 0) fail(spec, "shape must be positive, got " + to_string(a.shape));
      if (a.shape.elements() != in[0].elements())
        fail(spec, "shape " + to_string(a.shape) + " must hold as many elements as " + input_text(spec, 0, in[0]));
      return a.shape;

    case LayerKind::slice: {
      expect_inputs(spec, in, 1, 1);
      Shape out = in[0];
      std::int64_t& size = a.axis == ShapeAxis::channels ? out.c : a.axis == ShapeAxis::height ? out.h : out.w;
      if (a.begin < 0 || a.end <= a.begin || a.end > size)
        fail(spec, "[begin, end) = [" + std::to_string(a.begin) + ", " + std::to_string(a.end) + ") must be a non-empty " +
                       "range inside the input's " + std::to_string(size) + " " + std::string(to_string(a.axis)) + " (" +
                       input_text(spec, 0, in[0]) + ")");
      size = a.end - a.begin;
      return out;
    }
  }
  fail(spec, "unknown layer kind");
}

LayerQuantities derive_quantities(const LayerSpec& spec, const std::vector<Shape>& in, const Shape& out,
                                  std::int64_t batch) {
  const LayerAttributes& a = spec.attr;
  LayerQuantities q;
  const double B = static_cast<double>(batch);
  q.batch = batch;
  for (const Shape& s : in) q.input_elements += B * static_cast<double>(s.elements());
  q.output_elements = B * static_cast<double>(out.elements());
  // Defaults: features are the channels of the first input and of the output, no kernel.
  const Shape x = in.empty() ? out : in[0];
  q.in_features = x.c;
  q.out_features = out.c;
  q.in_positions = x.spatial();
  q.out_positions = out.spatial();
  const double Y = q.output_elements;  // elements of the output tensor, whole minibatch
  const double X = q.input_elements;   // elements of all input tensors, whole minibatch

  switch (spec.kind) {
    case LayerKind::input:
    case LayerKind::flatten:
    case LayerKind::concat:
    case LayerKind::reshape:
    case LayerKind::slice:
      break;  // no computation: data movement only

    case LayerKind::conv:
    case LayerKind::fc: {
      const bool conv = spec.kind == LayerKind::conv;
      const std::int64_t groups = conv ? a.groups : 1;
      q.kernel_positions = conv ? a.kernel_h * a.kernel_w : 1;
      q.stride = conv ? std::max(a.stride_h, a.stride_w) : 1;
      q.primary = true;
      // Weights (in_features/groups) x kernel_positions x out_features: seed 000 §4.3.
      const std::int64_t weights = (x.c / groups) * q.kernel_positions * out.c;
      q.weights_without_bias = static_cast<double>(weights);
      q.params = weights + (a.bias ? out.c : 0);
      // P = (in_features/groups) * kernel_positions products per output element (seed 000 §4.3).
      const double macs = Y * static_cast<double>((x.c / groups) * q.kernel_positions);
      add_weight_product(q, macs, Y, X, q.weights_without_bias);
      if (a.bias) {  // bias addition and its gradient (sum over B, h, w) are auxiliary (seed 003)
        q.aux_flops.fwd += Y;
        q.aux_flops.upd += Y;
      }
      break;
    }

    case LayerKind::matmul: {
      // in0 K x M x G, in1 N x K x G -> N x M x G, per sample: every output element is K products.
      const double K = static_cast<double>(in[0].c);
      q.primary = true;
      q.in_features = in[0].c;
      const double macs = Y * K;
      add_activation_product(q, macs, Y, B * static_cast<double>(in[0].elements()),
                             B * static_cast<double>(in[1].elements()));
      break;
    }

    case LayerKind::pool: {
      const std::int64_t window = a.global ? x.spatial() : a.kernel_h * a.kernel_w;
      q.kernel_positions = window;
      q.stride = a.global ? 1 : std::max(a.stride_h, a.stride_w);
      // One op (compare or add) per window element per output; the backward pass routes (max) or
      // spreads (avg) each output gradient over its window: the same count.
      q.aux_flops.fwd = Y * static_cast<double>(window);
      q.aux_flops.bwd = Y * static_cast<double>(window);
      break;
    }

    case LayerKind::activation:
      q.aux_flops.fwd = Y;  // f(x): one op per element (whatever the function)
      q.aux_flops.bwd = Y;  // E_l = E_{l+1} (.) f'(F_l): one multiply per element (seed 000 §3.1)
      break;

    case LayerKind::batch_norm:
    case LayerKind::layer_norm:
      q.params = 2 * x.c;  // gamma and beta per channel (running statistics are not trained)
      q.weights_without_bias = static_cast<double>(q.params);
      // Nominal counts: forward = mean, variance, normalise, scale, shift (5 ops/element);
      // backward 8 ops/element; gamma and beta gradients 2 ops/element.
      q.aux_flops.fwd = 5 * Y;
      q.aux_flops.bwd = 8 * Y;
      q.aux_flops.upd = 2 * Y;
      break;

    case LayerKind::rms_norm:
      q.params = x.c;  // the gain per channel (no shift, no mean)
      q.weights_without_bias = static_cast<double>(q.params);
      // Nominal counts: forward = square, mean, rsqrt-scale, gain (4 ops/element); backward 6
      // ops/element (layer_norm's 8 less the mean terms); gain gradient 2 ops/element.
      q.aux_flops.fwd = 4 * Y;
      q.aux_flops.bwd = 6 * Y;
      q.aux_flops.upd = 2 * Y;
      break;

    case LayerKind::multiply:
      // Forward: one multiply per element per extra input; backward: each input's gradient is dY
      // times the product of the other inputs, (n-1) multiplies per element for each of n inputs.
      q.aux_flops.fwd = Y * static_cast<double>(in.size() - 1);
      q.aux_flops.bwd = Y * static_cast<double>(in.size() * (in.size() - 1));
      break;

    case LayerKind::softmax:
      q.aux_flops.fwd = 3 * Y;  // exp, sum, divide
      q.aux_flops.bwd = 4 * Y;  // dx = y * (dy - sum(dy * y)): mul, add, sub, mul
      break;

    case LayerKind::add:
      q.aux_flops.fwd = Y * static_cast<double>(in.size() - 1);  // the gradient passes through
      break;

    case LayerKind::lstm: {
      const std::int64_t H = a.hidden;
      const std::int64_t dirs = a.bidirectional ? 2 : 1;
      const std::int64_t T = x.h;
      // seed 003 §II-A: each timestep takes the previous layer's output and the previous
      // timestep's hidden state, so the gate product is (inputs + hidden) x 4*hidden per direction.
      q.in_features = x.c + H;
      q.out_features = 4 * H * dirs;
      q.timesteps = T;
      q.in_positions = q.out_positions = 1;
      q.primary = true;
      const std::int64_t weights = dirs * (x.c + H) * 4 * H;
      q.weights_without_bias = static_cast<double>(weights);
      q.params = weights + dirs * 4 * H;  // one bias of 4*hidden per direction
      const double rows = B * static_cast<double>(T);  // (B*T) x (inputs+H) times (inputs+H) x 4H
      const double gates = rows * static_cast<double>(dirs * 4 * H);
      const double macs = gates * static_cast<double>(x.c + H);
      add_weight_product(q, macs, gates, rows * static_cast<double>(dirs * (x.c + H)), q.weights_without_bias);
      // Auxiliary per hidden unit and timestep: 4 bias adds, 3 sigmoids, 2 tanh, c = f*c + i*g
      // (3 ops), h = o*tanh(c) (1 op): 13 ops; backward the same; bias gradient 4 adds.
      const double cells = rows * static_cast<double>(dirs * H);
      q.aux_flops.fwd = 13 * cells;
      q.aux_flops.bwd = 13 * cells;
      q.aux_flops.upd = 4 * cells;
      break;
    }

    case LayerKind::embedding:
      q.params = a.vocab * a.dim;
      q.weights_without_bias = static_cast<double>(q.params);
      q.in_features = a.vocab;
      // A table lookup (FWD) moves data and computes nothing; there is no input gradient for
      // token ids; UPD scatter-adds each output gradient row into the table: one add per element.
      q.aux_flops.upd = Y;
      break;

    case LayerKind::attention: {
      const std::int64_t E = x.c;
      // Grouped-query attention (Ainslie et al. 2023): kv_heads key/value heads shared by groups
      // of query heads, so K and V are E_kv = E * kv_heads / heads wide (E_kv = E without it).
      const std::int64_t kv_heads = a.kv_heads > 0 ? a.kv_heads : a.heads;
      const std::int64_t E_kv = E / a.heads * kv_heads;
      const double Sq = static_cast<double>(x.h);
      const double Skv = static_cast<double>(in.size() == 2 ? in[1].h : x.h);
      const double Ed = static_cast<double>(E);
      const double Ekv = static_cast<double>(E_kv);
      const double heads = static_cast<double>(a.heads);
      q.primary = true;
      q.in_positions = q.out_positions = x.h;
      // W_Q, W_O (E x E), W_K, W_V (E x E_kv) and, with bias, their biases.
      q.params = 2 * E * E + 2 * E * E_kv + (a.bias ? 2 * E + 2 * E_kv : 0);
      q.weights_without_bias = 2 * Ed * Ed + 2 * Ed * Ekv;
      const double xq = B * Sq * Ed;    // elements of a query-side E-wide tensor
      const double xkv = B * Skv * Ed;  // elements of the memory (E wide)
      const double kv = B * Skv * Ekv;  // elements of K or of V (E_kv wide)
      // Projections Q = X W_Q (query side), K, V (memory side), output O = C W_O.
      add_weight_product(q, xq * Ed, xq, xq, Ed * Ed);
      add_weight_product(q, xkv * Ekv, kv, xkv, Ed * Ekv);
      add_weight_product(q, xkv * Ekv, kv, xkv, Ed * Ekv);
      add_weight_product(q, xq * Ed, xq, xq, Ed * Ed);
      // Scores S = Q K^T per head: B*heads*Sq*Skv outputs of E/heads products; context C = P V.
      const double scores = B * heads * Sq * Skv;
      add_activation_product(q, scores * Ed / heads, scores, xq, kv);
      add_activation_product(q, B * Sq * Skv * Ed, xq, scores, kv);
      // Auxiliary: with bias, 4 bias adds (xq + 2 kv + xq); 1/sqrt(d) scaling and softmax (1 + 3
      // ops per score); backward: scaling and softmax (1 + 4); UPD: the 4 bias gradients.
      const double bias_elements = a.bias ? 2 * xq + 2 * kv : 0;
      q.aux_flops.fwd = bias_elements + 4 * scores;
      q.aux_flops.bwd = 5 * scores;
      q.aux_flops.upd = bias_elements;
      break;
    }
  }
  q.weight_elements = static_cast<double>(q.params);
  return q;
}

}  // namespace partsim::workloads
