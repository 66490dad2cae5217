#include "sim/planners/accpar/cost_model.hpp"

#include <algorithm>

namespace partsim::accpar {

namespace {

/// FLOPs of one output element that sums P products: P multiplications and P - 1 additions (seed 000
/// §4.3). A sub-layer may hold less than one sample (a batch split over more devices than it has
/// samples), so P can be below 1: then there is nothing to add and only the P multiplications count
/// (2P - 1 would go negative).
double products_and_sums(double P) {
  return P + std::max(P - 1.0, 0.0);
}

}  // namespace

PhaseFlops table6_flops(const LayerDims& d) {
  // seed 000 Table 6 with §4.3: every output element of a product with P terms costs
  // P multiplications and P - 1 additions.
  PhaseFlops f;
  f.forward = d.A_F_out() * products_and_sums(d.D_i * d.K);
  // Backward: A(E_l) outputs; the products are the forward's multiply-accumulates, which equals
  // A(E_l) * (2 * D_o * K - 1) for stride-1 convolutions and FC layers (docs/model.md).
  f.backward = 2.0 * d.A_F_out() * d.D_i * d.K - d.A_F_in();  // linear in B: never negative
  f.gradient = d.A_W() * products_and_sums(d.B * d.S_out);
  return f;
}

double mode_flops(const PhaseFlops& f, Mode mode) {
  return mode == Mode::training ? f.total() : f.forward;
}

double intra_layer_elements(Type t, const LayerDims& d, Mode mode) {
  // seed 000 Table 4: I -> A(W_l) (gradient phase), II -> A(F_{l+1}) (forward), III -> A(E_l) (backward).
  switch (t) {
    case Type::I: return mode == Mode::training ? d.A_W() : 0.0;
    case Type::II: return d.A_F_out();
    case Type::III: return mode == Mode::training ? d.A_F_in() : 0.0;
  }
  return 0.0;
}

Layout output_layout(Type t) {
  switch (t) {
    case Type::I: return Layout::batch;      // F_{l+1}[alpha*B, D_o]
    case Type::II: return Layout::full;      // partial sums of F_{l+1} combined: both hold it
    case Type::III: return Layout::channel;  // F_{l+1}[B, alpha*D_o]
  }
  return Layout::batch;
}

Layout needed_input_layout(Type t) {
  switch (t) {
    case Type::I: return Layout::batch;      // F_l[alpha*B, D_i]
    case Type::II: return Layout::channel;   // F_l[B, alpha*D_i]
    case Type::III: return Layout::full;     // F_l replicated (§3.2.3)
  }
  return Layout::batch;
}

Layout error_needed_layout(Type t) { return output_layout(t); }
Layout error_output_layout(Type t) { return needed_input_layout(t); }

double conversion_fraction(Layout from, Layout to, double alpha, Side side) {
  const double own = side == Side::a ? alpha : 1.0 - alpha;
  const double other = 1.0 - own;
  if (from == to || from == Layout::full) return 0.0;  // already holds what it needs
  if (to == Layout::full) return other;                // fetch the other side's share
  return own * other;  // batch <-> channel: (other*B) x (own*D) or (own*B) x (other*D): alpha*beta
}

double inter_layer_elements(Type from, Type to, double elements, double alpha, Side side, Mode mode) {
  // seed 000 Table 5 = forward conversion of F_{l+1} + backward conversion of E_{l+1}.
  double fraction = conversion_fraction(output_layout(from), needed_input_layout(to), alpha, side);
  if (mode == Mode::training)
    fraction += conversion_fraction(error_output_layout(to), error_needed_layout(from), alpha, side);
  return fraction * elements;
}

double e_cm(double elements, double bytes_per_element, double bandwidth_bytes_per_s) {
  if (elements <= 0) return 0.0;
  return elements * bytes_per_element / bandwidth_bytes_per_s;  // eq. 7
}

double e_cp(double alpha, double flops, double flops_per_s) {
  if (flops <= 0) return 0.0;
  return alpha * flops / flops_per_s;  // eq. 8
}

double alpha_eq10(double e_cp_a, double e_cm_a, double e_cp_b, double e_cm_b) {
  // eq. 10: alpha * (E_cp_a + E_cm_a) = (1 - alpha) * (E_cp_b + E_cm_b).
  const double a = e_cp_a + e_cm_a;
  const double b = e_cp_b + e_cm_b;
  if (a + b <= 0) return 0.5;
  return b / (a + b);
}

LayerDims split_dims(const LayerDims& d, Type t, double share) {
  LayerDims s = d;
  switch (t) {
    case Type::I: s.B *= share; break;
    case Type::II: s.D_i *= share; break;
    case Type::III: s.D_o *= share; break;
  }
  return s;
}

double layout_share(Layout l, double share) { return l == Layout::full ? 1.0 : share; }

}  // namespace partsim::accpar
