#include "sim/planners/deepa/notation.hpp"

#include <nlohmann/json.hpp>

namespace partsim::deepa {

LayerNotation notation_of(const workloads::Layer& layer) {
  return {layer.q.batch, layer.output_shape.c, layer.output_shape.h, layer.output_shape.w};
}

workloads::NotationView notation_view() {
  return {"deepa", [](const workloads::Layer& layer) -> nlohmann::json {
            const LayerNotation n = notation_of(layer);
            return {{"n", n.n}, {"c", n.c}, {"h", n.h}, {"w", n.w}};
          }};
}

}  // namespace partsim::deepa
