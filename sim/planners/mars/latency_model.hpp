#pragma once
// The latency of a MARS mapping (seed 004 §III, §V): the per-set latencies plus the transfers between
// sets. A set runs its contiguous layers one after the other (one inference, batch 1 by default);
// a layer's latency on its set is
//   compute: the slowest device's shard on its design's own cycle model (sim/devices/fpga_designs.hpp;
//            the profiled performance MARS integrates into ASTRA-sim); with SS, n phases of 1/n each;
//   + ES all-reduce: when input channels are split r ways, the ring reduce-scatter of the partial
//            outputs, (r-1) steps of (output box / r) bytes at the set's ring bandwidth;
//   + SS rotation: (n-1) ring steps of one shared slice (weights, or the inputs) at the ring
//            bandwidth, alternating with the compute phases (§IV);
//   + redistribution: the input bytes a device lacks from its set's previous layers' outputs, the
//            busiest device's at the ring bandwidth.
// A tensor that crosses sets goes at set_to_set_bandwidth (through the host between groups). A set
// is valid only if every device's weights plus its largest layer's inputs and outputs fit its
// DRAM (§III); an invalid set costs infinity.
// Designs: `configure` (the adaptive system of §III: a set is configured to one of the platform's
// designs, the search chooses which) or `fixed` (the heterogeneous systems of §VI-C: every accelerator
// keeps its platform type, a set's members stall until the slowest finishes, as the paper assumes
// for Table IV; designs() then holds the one pseudo-design "as configured").
//
// Contract: deterministic; costs memoised per (layer, set, design, strategy); seconds, bytes.

#include <limits>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "sim/planners/mars/layer_strategy.hpp"
#include "topology/system_spec.hpp"
#include "topology/topology_graph.hpp"
#include "workloads/graph.hpp"

namespace partsim::mars {

/// The latency of a mapping that does not fit the accelerators (searches compare against it).
inline constexpr double kInfinity = std::numeric_limits<double>::infinity();

struct LayerCost {
  double compute_s = 0;
  double allreduce_s = 0;   // ES: partial-sum reduce-scatter
  double rotation_s = 0;    // SS: ring transfers of the shared slices
  double weights_bytes = 0; // per device (the largest)
  double activation_bytes = 0;  // per device: inputs + outputs (the largest)
  double total_s() const { return compute_s + allreduce_s + rotation_s; }
};

enum class DesignChoice { configure, fixed };

/// The pseudo-design of DesignChoice::fixed: every accelerator as the platform file configures it.
inline constexpr const char* kFixedDesigns = "as configured";

class LatencyModel {
 public:
  /// configure: the designs are the platform's device types of kind design (what an accelerator may
  /// be configured to), by name; throws InputError when there is none or a device is not of that kind.
  /// fixed: any device types; designs() is {kFixedDesigns}.
  LatencyModel(const topology::SystemSpec& spec, const workloads::Graph& graph,
               DesignChoice choice = DesignChoice::configure);
  bool fixed_designs() const { return fixed_; }

  const topology::SystemSpec& spec() const { return spec_; }
  const workloads::Graph& graph() const { return graph_; }
  const topology::TopologyGraph& topology() const { return topology_; }
  const std::vector<std::vector<int>>& sets() const { return sets_; }
  const std::vector<std::string>& designs() const { return designs_; }
  /// Layers with a strategy gene: convolutions and FC (the computation-intensive layers, §IV).
  const std::vector<std::size_t>& primary_layers() const { return primary_; }
  bool is_primary(std::size_t layer) const;

  const LayerCost& layer_cost(std::size_t layer, int set, int design, const LayerStrategy& s) const;
  /// Bytes the busiest device of `set` lacks of layer v's input from producer u, at the ring bandwidth.
  double redistribution_s(std::size_t u, const LayerStrategy& su, std::size_t v, const LayerStrategy& sv, int set) const;
  /// Layer u's whole output from set a to set b.
  double inter_set_s(std::size_t u, int set_a, int set_b) const;
  /// Layer u's whole output from device a to device b over their route's slowest link (0 when a == b).
  double device_to_device_s(std::size_t u, int a, int b) const;
  /// Layer v's whole computation on `device` alone, as the platform configures it (its type's model);
  /// 0 for graph inputs, which the lowering does not compute.
  double device_compute_s(std::size_t v, int device) const;
  /// Bytes of layer u's whole output (the batch's).
  double output_bytes(std::size_t u) const;
  /// The whole network's compute on one accelerator of the design (the profiled performance of §V).
  double profile_s(int design) const;
  /// The layers [first, last]'s compute on one accelerator of the design.
  double profile_s(int design, std::size_t first, std::size_t last) const;
  double ring_bandwidth(int set) const { return ring_bw_.at(static_cast<std::size_t>(set)); }
  /// DRAM of an accelerator of the design; fixed: the smallest of the platform's accelerators.
  double memory_bytes(int design) const;
  double bytes_per_element() const { return bpe_; }

 private:
  const topology::SystemSpec& spec_;
  const workloads::Graph& graph_;
  topology::TopologyGraph topology_;
  std::vector<std::vector<int>> sets_;
  std::vector<double> ring_bw_;
  std::vector<std::string> designs_;
  std::vector<std::size_t> primary_;
  std::vector<char> is_primary_;
  double bpe_ = 2;
  bool fixed_ = false;
  mutable std::map<std::tuple<std::size_t, int, int, LayerStrategy>, LayerCost> cost_cache_;
  mutable std::map<std::tuple<std::size_t, std::size_t, int, LayerStrategy, LayerStrategy>, double> redistribution_cache_;
  mutable std::vector<std::vector<double>> single_device_;  // [design][layer]
  mutable std::vector<std::vector<double>> on_device_;      // [device][layer], device_compute_s
  /// Whole layer v on one accelerator of `type`.
  double whole_layer_s(std::size_t v, const topology::DeviceType& type) const;
};

}  // namespace partsim::mars
