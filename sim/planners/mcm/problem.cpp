#include "sim/planners/mcm/problem.hpp"

#include "sim/common/error.hpp"
#include "sim/devices/shard_compute.hpp"
#include "sim/geometry/layer_geometry.hpp"

namespace partsim::mcm {
namespace {

void check_ring(const topology::SystemSpec& spec) {
  const std::string what = "platform '" + spec.name + "': the mcm strategies (MCM paper) need ";
  if (!spec.is_torus() || spec.torus().dims.size() != 1 || spec.torus().bidirectional)
    throw InputError(what + "a uni-directional 1-D ring (torus: {dims: [C], bidirectional: false}), as in "
                            "configs/mcm_ring36.yaml");
  for (int d = 1; d < spec.device_count(); ++d)
    if (!(spec.device_type(d) == spec.device_type(0)))
      throw InputError(what + "chiplets of one device type, but device " + std::to_string(d) + " is '" +
                       spec.device_type(d).name + "' and device 0 is '" + spec.device_type(0).name + "'");
  if (spec.device_count() < 1) throw InputError(what + "at least one chiplet");
}

}  // namespace

PlacementProblem make_problem(const topology::SystemSpec& spec, const workloads::Graph& graph) {
  check_ring(spec);
  PlacementProblem p;
  p.graph_name = graph.name();
  p.chips = spec.device_count();
  const topology::DeviceType& chip = spec.device_type(0);
  p.sram_bytes = chip.memory_bytes();
  p.link_bandwidth = spec.torus().bandwidth.at(0);
  p.link_latency_s = spec.torus().latency.at(0);
  const double bpe = topology::bytes_per_element(spec.precision);
  const std::int64_t batch = graph.batch();
  for (std::size_t v = 0; v < graph.size(); ++v) {
    const workloads::Layer& layer = graph.layer(v);
    // The whole layer on one chiplet: the box is the whole loop space.
    const plan::LoopExtent extent = geometry::loop_extent(layer, batch);
    const plan::LoopBox box{{0, extent.batch}, {0, extent.out_channels}, {0, extent.in_channels},
                            {0, extent.height}, {0, extent.width}};
    const devices::ShardWork work = geometry::shard_work(layer, box, extent, batch, plan::Pass::fwd, bpe);
    Node node;
    node.name = layer.name;
    node.compute_s = devices::shard_time(chip, work, plan::Pass::fwd).compute_s;
    node.weight_bytes = layer.q.weight_elements * bpe;
    node.output_bytes = layer.q.output_elements * bpe;
    p.nodes.push_back(std::move(node));
    std::vector<int> consumers;
    for (std::size_t s : graph.successors(v)) consumers.push_back(static_cast<int>(s));
    p.consumers.push_back(consumers);
    for (int s : consumers) p.edges.push_back({static_cast<int>(v), s, p.nodes.back().output_bytes});
  }
  return p;
}

}  // namespace partsim::mcm
