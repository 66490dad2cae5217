#pragma once
// One layer of a DNN workload: what the user (or a zoo builder) writes, the tensor shapes inferred
// along the graph, and the paper-neutral quantities the planners' cost models read (each planner
// family maps them to its paper's notation in its own notation view, sim/planners/*/notation.hpp).
//
// Contract:
// - A LayerSpec is the layer as written: name, kind, named inputs and the kind's attributes.
// - A Layer is a LayerSpec after Graph::finalize(): input and output shapes are known and
//   `q` (LayerQuantities) is filled for the graph's minibatch size.
// - Shapes are PER SAMPLE (batch excluded): channels x height x width. Image tensors use all three;
//   sequence tensors put the feature width in `c` and the sequence length (timesteps, tokens) in
//   `h`, with w = 1; token-id tensors are 1 x S x 1. Flat vectors are C x 1 x 1.
// - All counts in LayerQuantities are for the WHOLE minibatch (`batch` samples) unless a field says
//   "per sample". FLOP and MAC counts are doubles (they exceed 2^53 only for absurd inputs).
// - Tensor sizes are element counts; bytes = elements * bytes_per_element (tensor_bytes()).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace partsim::workloads {

enum class LayerKind {
  input,       // a graph input: attribute `shape`; no computation
  conv,        // 2-D convolution: out_channels, kernel, stride, padding, groups, bias
  fc,          // fully connected over the channel dim, applied at every h x w position
  matmul,      // activation x activation: in0 (K x M x G), in1 (N x K x G) -> (N x M x G): G independent
               // products (attention heads; G = 1 for a plain product); no weights
  pool,        // max/avg pooling: window, stride, padding; `global` pools the whole h x w
  activation,  // element-wise relu / sigmoid / tanh / gelu (/ elementwise: any other, ONNX import)
  batch_norm,  // per-channel normalisation over (B, h, w); 2*C parameters (gamma, beta)
  layer_norm,  // per-position normalisation over C; 2*C parameters
  softmax,     // over the channel dim at every position
  add,         // element-wise sum of 2+ inputs of equal shape (residual)
  concat,      // along channels; inputs agree in h and w
  flatten,     // C x H x W -> (C*H*W) x 1 x 1; no computation
  lstm,        // hidden, timesteps (= input h), bidirectional; one 4*hidden bias per direction
  embedding,   // vocab x dim table; input 1 x S x 1 token ids -> dim x S x 1
  attention,   // multi-head attention, heads; 1 input = self, 2 inputs = (query, key/value memory)
  reshape,     // the same elements in another per-sample shape (`shape`): reshape or transpose; no computation
  rms_norm,    // per-position RMS normalisation over C (Zhang & Sennrich 2019; Llama): C parameters (gain only)
  multiply,    // element-wise product of 2+ inputs of equal shape (the gate of a gated MLP such as SwiGLU)
  slice,       // the elements [begin, end) of its input along one axis (q, k, v cut out of one projection,
               // a sequence's first position); no computation
};

enum class PoolOp { max, avg };
/// The per-sample axis a `slice` cuts: channels (c), height (h) or width (w).
enum class ShapeAxis { channels, height, width };
// silu = x * sigmoid(x) (Swish-1); elementwise: any other one-input element-wise operation (ONNX
// import: Div, Erf, Clip, ...), costed like the others: one op per element forward, one backward.
enum class ActivationFn { relu, sigmoid, tanh, gelu, silu, elementwise };

/// "conv", "fc", ... (the names used in workload YAML files and in describe output).
std::string_view to_string(LayerKind kind);
std::string_view to_string(PoolOp op);
std::string_view to_string(ActivationFn fn);
std::string_view to_string(ShapeAxis axis);
/// All layer kind names, in declaration order (for "allowed: ..." messages).
const std::vector<std::string>& layer_kind_names();

/// A per-sample tensor shape: channels x height x width (see the file comment for sequences).
struct Shape {
  std::int64_t c = 1;
  std::int64_t h = 1;
  std::int64_t w = 1;

  std::int64_t elements() const { return c * h * w; }  // per sample
  std::int64_t spatial() const { return h * w; }       // h * w: positions per sample
  bool operator==(const Shape&) const = default;
};
/// "64x56x56".
std::string to_string(const Shape& shape);

/// Kind-specific attributes. Only the fields of the layer's kind are read; 0 means "not given"
/// for the optional checks (in_channels, timesteps, seq_len).
struct LayerAttributes {
  Shape shape;                       // input, reshape: per-sample shape
  std::int64_t out_channels = 0;     // conv: output channels; fc: output features
  std::int64_t in_channels = 0;      // conv/fc/lstm/batch_norm: expected input channels (0 = any)
  std::int64_t kernel_h = 1, kernel_w = 1;    // conv, pool: window (pool: 0 with global)
  std::int64_t stride_h = 1, stride_w = 1;    // conv, pool
  std::int64_t pad_h = 0, pad_w = 0;          // conv, pool: zero padding on each side
  std::int64_t groups = 1;           // conv: grouped convolution (depthwise = in_channels)
  bool bias = true;                  // conv/fc/attention: has bias vectors
  PoolOp pool = PoolOp::max;         // pool
  bool global = false;               // pool: window = the whole input h x w
  ActivationFn function = ActivationFn::relu;  // activation
  std::int64_t hidden = 0;           // lstm: hidden size per direction
  std::int64_t timesteps = 0;        // lstm: expected input sequence length (0 = take input h)
  bool bidirectional = false;        // lstm: output is 2*hidden (both directions concatenated)
  std::int64_t vocab = 0;            // embedding: rows of the table
  std::int64_t dim = 0;              // embedding: width of a row (output channels)
  std::int64_t heads = 1;            // attention: number of heads (must divide the model width)
  std::int64_t kv_heads = 0;         // attention: key/value heads (grouped-query attention; 0 = heads)
  std::int64_t seq_len = 0;          // attention: expected query sequence length (0 = any)
  ShapeAxis axis = ShapeAxis::channels;  // slice: the axis cut
  std::int64_t begin = 0, end = 0;   // slice: the elements [begin, end) kept along `axis`
};

/// The layer as written by the user or a zoo builder.
struct LayerSpec {
  std::string name;
  LayerKind kind = LayerKind::input;
  std::vector<std::string> inputs;   // names of the producing layers, in order
  LayerAttributes attr;
};

/// FLOP or MAC counts of the three training passes (AccPar §2: forward, backward, gradient;
/// DeepSpatialMatrix calls them FWD, BWD, UPD). UPD is the weight-gradient computation, not the
/// optimiser step.
struct PassCounts {
  double fwd = 0;
  double bwd = 0;
  double upd = 0;
  double total() const { return fwd + bwd + upd; }
  PassCounts& operator+=(const PassCounts& o) {
    fwd += o.fwd; bwd += o.bwd; upd += o.upd;
    return *this;
  }
};

/// Everything a cost model needs about one layer at minibatch size `batch`, in paper-neutral terms.
/// See docs/model.md "Workloads" for how each kind is counted. A family that reasons in its paper's
/// symbols derives them from these fields in its own notation view (sim/planners/*/notation.hpp).
struct LayerQuantities {
  // --- The layer as a product. A weighted layer multiplies an input of (batch x in_positions) rows
  // of in_features by weights of in_features x kernel_positions x out_features and yields
  // (batch x out_positions) rows of out_features. Layers without weights keep the same reading:
  // features are channels, positions are the h*w positions per sample.
  std::int64_t batch = 0;             // minibatch size, samples
  std::int64_t in_features = 0;       // features entering the product per position: input channels
                                      // (conv, fc, pool, norms, ...); LSTM input + hidden (each
                                      // timestep also reads the previous hidden state); matmul K;
                                      // embedding vocab (the rows of its table)
  std::int64_t out_features = 0;      // features leaving per position: output channels; LSTM
                                      // 4 * hidden * directions (the gate pre-activations)
  std::int64_t in_positions = 1;      // positions per sample of the input: h*w of its feature map;
                                      // LSTM 1 (one timestep at a time); attention the sequence S
  std::int64_t out_positions = 1;     // positions per sample of the output: h*w; LSTM 1; attention S
  std::int64_t kernel_positions = 1;  // positions a kernel covers: conv kernel_h*kernel_w; pool
                                      // window (global: the input's h*w); 1 otherwise (fc: 1)
  std::int64_t stride = 1;            // conv/pool stride, the larger of h and w; 1 otherwise
  std::int64_t timesteps = 1;         // LSTM: timesteps (the input's h); 1 otherwise
  double weights_without_bias = 0;    // weight elements, biases excluded: the product's weights
                                      // (conv, fc, lstm, attention), norm gamma/beta, embedding
                                      // table; 0 without weights. Differs from params by the biases

  // --- Work. FLOP counted as in AccPar Table 6: every multiply-accumulate product with P terms
  // costs 2P-1 FLOP per output element, i.e. 2*MACs - (output elements) per matrix product.
  bool primary = false;              // seed 003: conv/matmul-like layer run on the PE arrays
  PassCounts macs;                   // primary multiply-accumulates per pass
  PassCounts primary_flops;          // Table 6 FLOP of the primary products per pass
  PassCounts aux_flops;              // auxiliary ops (bias, activation, pool, norm, softmax, add)
  PassCounts flops() const {         // primary + auxiliary
    PassCounts t = primary_flops;
    t += aux_flops;
    return t;
  }

  // --- Storage.
  std::int64_t params = 0;           // trainable parameters (weights + biases + norm gamma/beta)
  double input_elements = 0;         // elements of all input tensors, whole minibatch
  double output_elements = 0;        // elements of the output tensor (the activation), minibatch
  double weight_elements = 0;        // = params (the gradient has the same size)
};

/// Bytes of `elements` values at `bytes_per_element` (4 for fp32, 2 for fp16/bf16).
inline double tensor_bytes(double elements, double bytes_per_element) { return elements * bytes_per_element; }

/// A layer after shape inference and derivation (Graph::finalize()).
struct Layer : LayerSpec {
  std::vector<Shape> input_shapes;   // one per input, in the order of `inputs`
  Shape output_shape;                // per sample
  LayerQuantities q;                 // at the graph's minibatch size
};

/// Shape inference for one layer. Throws InputError naming the layer and both shapes on a
/// mismatch ("layer 'conv2' (conv): expects 64 input channels but input 'pool1' is 3x28x28").
Shape infer_shape(const LayerSpec& spec, const std::vector<Shape>& inputs);

/// The derived quantities of a layer whose shapes are known, at minibatch size `batch`.
LayerQuantities derive_quantities(const LayerSpec& spec, const std::vector<Shape>& inputs,
                                  const Shape& output, std::int64_t batch);

}  // namespace partsim::workloads
