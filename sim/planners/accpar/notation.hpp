#pragma once
// AccPar's notation for one workload layer (seed 000 §3.1, §4.3, Table 6), derived from the
// layer's paper-neutral quantities (workloads/layer.hpp LayerQuantities). A layer is read as
// F_{l+1} = F_l x W_l with F_l: (B, D_i, [feature_in_2d]), W_l: (D_i, [kernel_2d], D_o) and
// F_{l+1}: (B, D_o, [feature_out_2d]); convolutions fold their 2-D maps and kernel as in §4.3.
//
// Contract: notation_of() is a pure function of a finalized layer; notation_view() is the view
// accpar::register_strategies registers ("accpar" block of `simplan --describe --json`; its
// integer fields are JSON integers, the A(.) sizes JSON numbers with a fraction).

#include <cstdint>

#include "workloads/layer.hpp"
#include "workloads/notation_view.hpp"

namespace partsim::accpar {

struct LayerNotation {
  std::int64_t B = 0;               // minibatch size
  std::int64_t D_i = 0;             // input channels / features (LSTM: input + hidden; matmul: K)
  std::int64_t D_o = 0;             // output channels / features (LSTM: 4 * hidden * directions gates)
  std::int64_t feature_in_2d = 1;   // h*w of the input feature map (FC on vectors, LSTM: 1; sequence: S)
  std::int64_t feature_out_2d = 1;  // h*w of the output feature map
  std::int64_t kernel_2d = 1;       // kernel_h * kernel_w (FC: 1; pool: its window)
  double A_F_in = 0;                // A(F_l) = A(E_l): elements of all inputs, whole minibatch
  double A_F_out = 0;               // A(F_{l+1}) = A(E_{l+1}): elements of the output
  double A_W = 0;                   // A(W_l) = A(dW_l): weight elements, biases excluded
};

/// AccPar's symbols for `layer` at its graph's minibatch size.
LayerNotation notation_of(const workloads::Layer& layer);

/// {"accpar", layer -> {"B", "D_i", "D_o", "feature_in_2d", "feature_out_2d", "kernel_2d",
///  "A_F_in", "A_F_out", "A_W"}}.
workloads::NotationView notation_view();

}  // namespace partsim::accpar
