#pragma once
// DeepSpatialMatrix's notation for one workload layer (seed 003 §II-A), derived from the layer's
// paper-neutral quantities (workloads/layer.hpp LayerQuantities). The paper sizes a layer's tensors
// as Input = N_in*N_mb*N_ij, Kernel = N_out*N_in*N_kij, Output = N_out*N_mb*N_ij (per timestep
// for LSTMs, which take "effectively N_in + N_out" inputs: the previous hidden state too).
//
// Contract: notation_of() is a pure function of a finalized layer; notation_view() is the view
// dsm::register_strategies registers ("dsm" block of `simplan --describe --json`, all integers).

#include <cstdint>

#include "workloads/layer.hpp"
#include "workloads/notation_view.hpp"

namespace partsim::dsm {

struct LayerNotation {
  std::int64_t N_in = 0;      // input features (LSTM: input + hidden)
  std::int64_t N_out = 0;     // output features (LSTM: 4*hidden*directions gate outputs)
  std::int64_t N_ij = 1;      // N_i*N_j: size of each INPUT feature (FC, LSTM: 1; FC on a sequence: S)
  std::int64_t N_kij = 1;     // N_ki*N_kj: kernel size (FC, LSTM: 1; pool: its window)
  std::int64_t N_mb = 0;      // minibatch size
  std::int64_t N_stride = 1;  // convolution / pooling stride (the larger of h and w)
  std::int64_t N_ts = 1;      // timesteps (LSTM); 1 otherwise
  std::int64_t N_ws = 0;      // pooling window size kernel_h*kernel_w (pool only; 0 otherwise)
};

/// DeepSpatialMatrix's symbols for `layer` at its graph's minibatch size.
LayerNotation notation_of(const workloads::Layer& layer);

/// {"dsm", layer -> {"N_in", "N_out", "N_ij", "N_kij", "N_mb", "N_stride", "N_ts", "N_ws"}}.
workloads::NotationView notation_view();

}  // namespace partsim::dsm
