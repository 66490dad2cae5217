#pragma once
// AccPar's cost model (seed 000 §4) as small pure functions over plain numbers.
//
// Contract: a layer is seen as F_{l+1} = F_l x W_l (§3.1), with convolutions folded as in §4.3:
// F_l is (B, D_i, [S_in]), W_l is (D_i, [K], D_o), F_{l+1} is (B, D_o, [S_out]), where S_in/S_out
// are the 2-D feature-map sizes (h*w) and K the 2-D kernel size (kh*kw); FC layers have S = K = 1.
// Tensor sizes A(.) are element counts (eq. 7's A(T)); bytes = elements * bytes per element.
// Every function is side-specific where the paper is: "side a" is the accelerator (group) whose
// partition ratio is alpha, "side b" the one with beta = 1 - alpha.

#include <array>

#include "sim/plan/mode.hpp"

namespace partsim::accpar {

/// AccPar's three basic partition types (seed 000 §4): I splits the batch B, II the input
/// dimension D_i, III the output dimension D_o.
enum class Type { I, II, III };
inline constexpr std::array<Type, 3> kAllTypes{Type::I, Type::II, Type::III};

using plan::Mode;  // training | inference (Table 6 counts backward and update only in training)
enum class Side { a, b };  // a holds ratio alpha, b holds beta = 1 - alpha

/// The dimensions of one (sub-)layer. Doubles: a sub-layer of a hierarchical partition holds
/// fractional shares of B, D_i or D_o (seed 000 §5.1).
struct LayerDims {
  double B = 1;      // minibatch
  double D_i = 1;    // input channels / features
  double D_o = 1;    // output channels / features
  double S_in = 1;   // 2-D input feature-map size h*w (§4.3)
  double S_out = 1;  // 2-D output feature-map size h*w
  double K = 1;      // 2-D kernel size kh*kw (§4.3)

  double A_F_in() const { return B * D_i * S_in; }    // A(F_l) = A(E_l)
  double A_F_out() const { return B * D_o * S_out; }  // A(F_{l+1}) = A(E_{l+1})
  double A_W() const { return D_i * K * D_o; }        // A(W_l) = A(dW_l), §4.1 example
};

/// FLOPs of the three multiplications (seed 000 Table 6), with the 2-D feature/kernel sizes of
/// §4.3 folded into the number of products P of each output element (2P - 1 FLOP each):
///   forward  F_{l+1} = F_l x W_l:      A(F_{l+1}) * (2 * D_i * K - 1)
///   backward E_l = E_{l+1} x W_l^T:    A(E_l)     * (2 * D_o * K - 1)   [stride 1; in general
///                                      2 * (forward products) - A(E_l), see docs/model.md]
///   gradient dW_l = F_l^T x E_{l+1}:   A(W_l)     * (2 * B * S_out - 1)
/// For FC layers (S = K = 1) these are exactly Table 6.
struct PhaseFlops {
  double forward = 0;
  double backward = 0;
  double gradient = 0;
  double total() const { return forward + backward + gradient; }
};
PhaseFlops table6_flops(const LayerDims& d);
/// The phases a mode runs: training all three, inference the forward phase only.
double mode_flops(const PhaseFlops& f, Mode mode);

/// Intra-layer communication of a type (seed 000 Table 4), in elements, for either side: the
/// partial sums of the one phase that needs them (I: dW_l in the gradient phase, II: F_{l+1} in the
/// forward phase, III: E_l in the backward phase). Independent of alpha (Table 4's note).
/// Inference has no gradient or backward phase, so only Type-II communicates.
double intra_layer_elements(Type t, const LayerDims& d, Mode mode);

/// Where a tensor lives between two layers. Table 5 is built from these (see docs/model.md):
/// batch = split along B with the ratio, channel = split along the channel dimension with the
/// ratio, full = every side holds all of it.
enum class Layout { batch, channel, full };
Layout output_layout(Type t);        // F_{l+1} as layer l of type t produces it (I batch, II full, III channel)
Layout needed_input_layout(Type t);  // F_l as layer l of type t needs it (I batch, II channel, III full)
Layout error_needed_layout(Type t);  // E_{l+1} as layer l needs it in backward (= output_layout)
Layout error_output_layout(Type t);  // E_l as layer l produces it (= needed_input_layout)

/// Fraction of a tensor of size A that `side` must fetch from the other side to turn layout
/// `from` into layout `to`: 0 if it already holds what it needs, the other side's share when it
/// needs all of it, and alpha*beta when a batch split becomes a channel split or back.
double conversion_fraction(Layout from, Layout to, double alpha, Side side);

/// Inter-layer communication (seed 000 Table 5) for a transition from layer l of type `from` to
/// layer l+1 of type `to`, in elements fetched by `side`, for a tensor F_{l+1} (= E_{l+1}) of
/// `elements`. Training: forward conversion of F plus backward conversion of E; inference: F only.
/// Side a (ratio alpha) gets Table 5 as printed; side b gets it with alpha and beta swapped.
double inter_layer_elements(Type from, Type to, double elements, double alpha, Side side, Mode mode);

/// Eq. 7: E_cm = A(T) / b, with A(T) in elements converted to bytes. Seconds.
double e_cm(double elements, double bytes_per_element, double bandwidth_bytes_per_s);
/// Eq. 8: E_cp = alpha * C / c. Seconds.
double e_cp(double alpha, double flops, double flops_per_s);

/// Eq. 10: the alpha that solves alpha * (E_cp(p_a) + E_cm(p_a)) = beta * (E_cp(p_b) + E_cm(p_b)),
/// where E_cp(p) and E_cm(p) are the costs of the WHOLE (unsplit) work on each side:
/// alpha = (E_cp_b + E_cm_b) / (E_cp_a + E_cm_a + E_cp_b + E_cm_b). Returns 0.5 if both are 0.
double alpha_eq10(double e_cp_a, double e_cm_a, double e_cp_b, double e_cm_b);

/// The sub-layer one side holds after a split of type t with share s (alpha or beta):
/// I splits B, II splits D_i, III splits D_o (seed 000 §3.2).
LayerDims split_dims(const LayerDims& d, Type t, double share);
/// Share of a layout-`l` tensor a side holds after a split with its share s: batch and channel
/// layouts hold s of it, full holds all of it.
double layout_share(Layout l, double share);

}  // namespace partsim::accpar
