#include "sim/planners/megatron/tp_sharding.hpp"

#include "sim/geometry/layer_geometry.hpp"

namespace partsim::megatron {

using workloads::LayerKind;

bool is_row_parallel(const workloads::Layer& l, int hidden) {
  return l.kind == LayerKind::fc && !l.input_shapes.empty() && l.input_shapes[0].c != hidden;
}

plan::LoopBox tensor_parallel_box(const workloads::Layer& l, const plan::LoopExtent& e, int microbatch, int tp,
                                  bool sp, int hidden) {
  // The MLP's inner width: a layer whose channels are not the model width (4h, or Llama's F).
  const bool on_ffn = l.output_shape.c != hidden && l.kind != LayerKind::embedding && l.kind != LayerKind::fc;
  const bool row_parallel = is_row_parallel(l, hidden);
  plan::LoopBox b{{0, microbatch}, {0, e.out_channels}, {0, e.in_channels}, {0, e.height}, {0, e.width}};
  const bool two = geometry::has_two_channel_axes(l);
  if (l.kind == LayerKind::attention || (l.kind == LayerKind::fc && !row_parallel)) {
    b.out_channels.hi = e.out_channels / tp;
  } else if (row_parallel) {
    b.in_channels.hi = e.in_channels / tp;
  } else if (on_ffn && !two) {
    b.out_channels.hi = e.out_channels / tp;
    b.in_channels.hi = e.in_channels / tp;
  } else if (sp) {
    b.height.hi = e.height / tp;
  }
  return b;
}

}  // namespace partsim::megatron
