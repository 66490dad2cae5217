#include "sim/planners/accpar/notation.hpp"

#include <nlohmann/json.hpp>

namespace partsim::accpar {

LayerNotation notation_of(const workloads::Layer& layer) {
  const workloads::LayerQuantities& q = layer.q;
  LayerNotation n;
  n.B = q.batch;
  n.D_i = q.in_features;
  n.D_o = q.out_features;
  n.feature_in_2d = q.in_positions;
  n.feature_out_2d = q.out_positions;
  n.kernel_2d = q.kernel_positions;
  n.A_F_in = q.input_elements;
  n.A_F_out = q.output_elements;
  n.A_W = q.weights_without_bias;
  return n;
}

workloads::NotationView notation_view() {
  return {"accpar", [](const workloads::Layer& layer) -> nlohmann::json {
            const LayerNotation n = notation_of(layer);
            return {{"B", n.B}, {"D_i", n.D_i}, {"D_o", n.D_o}, {"feature_in_2d", n.feature_in_2d},
                    {"feature_out_2d", n.feature_out_2d}, {"kernel_2d", n.kernel_2d}, {"A_F_in", n.A_F_in},
                    {"A_F_out", n.A_F_out}, {"A_W", n.A_W}};
          }};
}

}  // namespace partsim::accpar
