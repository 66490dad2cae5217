#include "sim/planners/dsm/notation.hpp"

#include <nlohmann/json.hpp>

namespace partsim::dsm {

LayerNotation notation_of(const workloads::Layer& layer) {
  const workloads::LayerQuantities& q = layer.q;
  LayerNotation n;
  n.N_in = q.in_features;
  n.N_out = q.out_features;
  n.N_ij = q.in_positions;
  n.N_kij = q.kernel_positions;
  n.N_mb = q.batch;
  n.N_stride = q.stride;
  n.N_ts = q.timesteps;
  n.N_ws = layer.kind == workloads::LayerKind::pool ? q.kernel_positions : 0;
  return n;
}

workloads::NotationView notation_view() {
  return {"dsm", [](const workloads::Layer& layer) -> nlohmann::json {
            const LayerNotation n = notation_of(layer);
            return {{"N_in", n.N_in}, {"N_out", n.N_out}, {"N_ij", n.N_ij}, {"N_kij", n.N_kij},
                    {"N_mb", n.N_mb}, {"N_stride", n.N_stride}, {"N_ts", n.N_ts}, {"N_ws", n.N_ws}};
          }};
}

}  // namespace partsim::dsm
