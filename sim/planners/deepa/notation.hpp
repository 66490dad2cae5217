#pragma once
// DeePa's notation for one workload layer (seed 001 §3): the parallelisable dimensions of the
// layer's OUTPUT tensor, n (images) x c (channels) x h (height) x w (width), derived from the
// layer's minibatch size and output shape (workloads/layer.hpp). Sequence tensors put their length
// in h (workloads/layer.hpp's shape convention).
//
// Contract: notation_of() is a pure function of a finalized layer; notation_view() is the view
// deepa::register_strategies registers ("deepa" block of `simplan --describe --json`, integers).

#include <cstdint>

#include "workloads/layer.hpp"
#include "workloads/notation_view.hpp"

namespace partsim::deepa {

struct LayerNotation {
  std::int64_t n = 0;  // images (the minibatch size)
  std::int64_t c = 0;  // channels
  std::int64_t h = 0;  // height (sequence length for sequence tensors)
  std::int64_t w = 0;  // width
};

/// DeePa's output-tensor dimensions of `layer` at its graph's minibatch size.
LayerNotation notation_of(const workloads::Layer& layer);

/// {"deepa", layer -> {"n", "c", "h", "w"}}.
workloads::NotationView notation_view();

}  // namespace partsim::deepa
