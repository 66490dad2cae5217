#pragma once
// Internals of the sharding lowering (sharding_lowering.hpp is the public entry point): the state
// kept per layer and the ShardingLowerer that builds the Program. Its member functions are defined by
// concern: set-up, compute, point-to-point data movement and the passes in sharding_lowering.cpp,
// the collective redistributions in sharding_collective_redistribution.cpp, the gradient
// synchronisation in sharding_gradient_sync.cpp.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/collectives/collectives.hpp"
#include "sim/geometry/layer_geometry.hpp"
#include "sim/lowering/sharding_lowering.hpp"

namespace partsim::lowering::detail {

// The shared layer geometry (sim/geometry: below both planners and lowerings), read throughout the
// sharding lowering.
using geometry::has_two_channel_axes;
using geometry::input_box;
using geometry::intersect;
using geometry::loop_extent;
using geometry::output_box;
using geometry::output_key;
using geometry::shard_work;
using geometry::TensorBox;
using geometry::weight_fraction;
using geometry::weight_key;

using plan::Pass;
using workloads::Layer;
using workloads::LayerKind;

/// A piece of a layer's output (and, in BWD, of its error) held by one device.
struct Owner {
  int device = 0;
  TensorBox box;
  int ready = -1;              // task after which the piece is complete there (-1: from the start)
  std::vector<int> error_in;   // BWD: tasks bringing the consumers' errors of this piece
};

struct LayerState {
  std::vector<plan::DeviceBox> boxes;  // non-empty boxes, in sharding order
  plan::LoopExtent extent;
  std::vector<Owner> owners;           // after FWD
  std::vector<int> grad_ready;         // per box: the UPD task (gradient ready), -1 when none

  /// The owners whose box meets `box`, in owner order, with the elements they share. Found through
  /// an index on the batch axis (built once the owners are known), so a device of a 1,024-way
  /// data-parallel layer looks at the one owner holding its samples rather than all 1,024 boxes.
  struct Meeting {
    std::size_t owner = 0;
    double elements = 0;
  };
  std::vector<Meeting> owners_meeting(const TensorBox& box);

  /// Frees the owners and their index once nothing reads them any more (after the layer's BWD):
  /// on a 4,096-chip pod they are the largest part of the lowering's memory.
  void release_owners();

 private:
  std::vector<std::size_t> by_batch_lo_;    // owner indices by batch.lo
  std::vector<std::int64_t> max_batch_hi_;  // largest batch.hi among by_batch_lo_[0..i]
};

class ShardingLowerer {
 public:
  explicit ShardingLowerer(const Context& c)
      : c_(c),
        batch_(c.workload.batch()),
        bpe_(static_cast<double>(topology::bytes_per_element(c.spec.precision))),
        core_level_(c.topology.granularity() == topology::Granularity::core),
        last_compute_(static_cast<std::size_t>(c.spec.device_count()), -1),
        sync_stream_end_(static_cast<std::size_t>(c.spec.device_count())) {}

  program::Program run();

 private:
  const Layer& layer(std::size_t v) const { return c_.workload.layer(v); }
  bool is_input(std::size_t v) const { return layer(v).kind == LayerKind::input; }

  program::Endpoint at(int device) const { return {device, core_level_ ? 0 : -1, false}; }

  void setup(std::size_t v);

  // ---- compute ------------------------------------------------------------------------------------

  /// The device's compute of its shard after `after` and its previous compute: on its compute units
  /// (every core at core granularity) and, for template chips, the memory link at the same time.
  /// Returns the task that ends both, or -1 when the shard has no work.
  int compute(std::size_t v, Pass pass, int device, const plan::LoopBox& box, std::vector<int> after);

  // ---- data movement ------------------------------------------------------------------------------

  /// Transfers of one redistribution (a layer's inputs, errors), collected and then started per
  /// sender in shift order: device i sends to i+1 first, then i+2, ... (pairwise exchange, as MPI's
  /// all-to-all does), one queue per network link of the sender, each transfer after the previous one
  /// of its queue. That keeps an all-to-all over k devices at k flows at a time, not k^2, and every
  /// link busy (docs/model.md "The sharding lowering"). Their labels ("input from L", "error of L",
  /// "error to L") are what redistribution_check.hpp counts for the warning of a slow replay.
  struct Pending {
    int src = 0, dst = 0;
    double bytes = 0;
    std::vector<int> after;
    std::string label;
  };
  std::vector<Pending> pending_;

  /// Queues the part `need` of a tensor held as `holder.owners` for `device`. Returns the tasks it waits
  /// for that exist already (pieces it holds itself) and adds the queued transfers' indices to `queued`.
  template <class Source>
  std::vector<int> fetch(const std::string& label, int device, const TensorBox& need, LayerState& holder,
                         Source source, std::vector<std::size_t>& queued) {
    std::vector<int> deps;
    for (const auto& [index, elements] : holder.owners_meeting(need)) {
      const Owner& o = holder.owners[index];
      std::vector<int> ready = source(o);
      if (o.device == device) {
        deps.insert(deps.end(), ready.begin(), ready.end());
        continue;
      }
      queued.push_back(pending_.size());
      pending_.push_back({o.device, device, elements * bpe_, std::move(ready), label});
    }
    return deps;
  }

  /// Starts every queued transfer (module comment); returns their task ids by queue index.
  std::vector<int> flush(std::size_t v, Pass pass);

  /// Network links leaving device d (its DMA queues).
  int lanes_of(int device) const;

  static void append(std::vector<int>& deps, const std::vector<int>& ids, const std::vector<std::size_t>& queued);

  /// A schedule of point-to-point steps (collectives::Schedule) with data dependencies only: a
  /// device's transfer in step t waits for what reached it in step t - 1 (and for `start` of its own
  /// device in the first step: every task of `start[device]`). A device that received in a step
  /// without sending keeps waiting for what it waited for before too (a parameter server's own
  /// gradient; in a ring every device sends every step, so nothing changes there). Steps repeating
  /// the same pairs run as one flow per pair (step_runs). Returns, per device, the tasks that end its
  /// part.
  std::map<int, std::vector<int>> add_steps(std::size_t v, Pass pass, const std::string& label,
                                            const collectives::Schedule& schedule,
                                            const std::map<int, std::vector<int>>& start,
                                            std::map<int, std::vector<int>>* every_arrival = nullptr);

  /// A ring over `members` (in order): `steps` steps in which member i sends `bytes` to member i+1.
  static collectives::Schedule ring(const std::vector<int>& members, int steps, double bytes);

  // ---- collective redistributions (plan schedule.redistribution: collective) ----------------------

  bool collective_redistribution() const;

  /// Every device of the platform holds exactly one of `boxes`' devices (one box each).
  bool one_box_per_device(const std::vector<int>& devices) const;

  /// The elements of each piece when `holder`'s owners are one equal piece per device of the
  /// platform and every one of `needs` (all the same box) takes every piece whole; nullopt otherwise.
  std::optional<double> whole_from_equal_pieces(LayerState& holder, const std::vector<TensorBox>& needs) const;

  /// The schedule of `collective` ("all_gather" or "reduce_scatter") over every device, S = `bytes`
  /// per device (the whole tensor), by the plan's or the platform's algorithm (collective_schedule).
  collectives::Schedule whole_platform_collective(const std::string& collective, double bytes) const;

  /// `collective` of `bytes` per device over `devices` (in ring order) by the plan's algorithm for it
  /// (schedule.collective_algorithms), else the platform's (system.collectives.algorithm), else the
  /// built-in default: the dimension-ordered torus schedule (seed 003 §II-D) when every device of a
  /// torus takes part, a ring in the given order otherwise (collectives/algorithm_registry.hpp).
  collectives::Schedule collective_schedule(const std::string& collective, const std::vector<int>& devices,
                                            double bytes) const;


  /// schedule.redistribution collective: the elements of each piece when layer v's boxes (one per
  /// device) each take the whole output of producer `slot` (FWD: as input; BWD: sending back an error
  /// for all of it), held as one equal piece per device; nullopt when the redistribution does not
  /// have that shape (it then goes point to point).
  std::optional<double> collective_piece(std::size_t v, std::size_t slot, std::size_t u);

  /// The same for what each box of layer v needs of `holder`'s tensor, `need_of(box)`.
  template <class NeedOf>
  std::optional<double> collective_piece_of(std::size_t v, LayerState& holder, NeedOf need_of) const {
    if (!collective_redistribution()) return std::nullopt;
    std::vector<int> devices;
    std::vector<TensorBox> needs;
    for (const auto& b : state_[v].boxes) {
      devices.push_back(b.device);
      needs.push_back(need_of(b.box));
    }
    if (!one_box_per_device(devices)) return std::nullopt;
    return whole_from_equal_pieces(holder, needs);
  }

  /// FWD: producer u's output reaches every box by an all-gather of the pieces (`piece` elements
  /// each). Returns, per device, the tasks its box waits for: its own piece and every arrival.
  std::map<int, std::vector<int>> all_gather_input(std::size_t v, std::size_t u, double piece);

  /// BWD: the boxes' partial errors of producer u's whole output (each after its `after`, by device)
  /// reduce-scattered onto u's owners (`piece` elements each): every arrival and the owner's own
  /// partial sum go to its error_in.
  void reduce_scatter_errors(std::size_t v, std::size_t u, double piece, const std::map<int, std::vector<int>>& after);

  // ---- passes -------------------------------------------------------------------------------------

  void forward(std::size_t v);

  /// Shared shards (plan::Sharding::shared, MARS SS, seed 004 §IV): the devices whose boxes need the
  /// same operand (the weights when the shared dimension is a channel one, else the inputs) form a
  /// ring of k; device j starts with slice j of the dimension (fetching only that slice's inputs when
  /// the inputs are shared), computes it, passes it to device j+1 and receives slice j-1: k phases of
  /// compute alternating with k-1 ring transfers. Fills `done` with each box's last compute; false
  /// when the layer has no shared dimension. FWD only: the backward pass treats the operand as
  /// replicated (MARS plans are inference plans).
  bool forward_shared(std::size_t v, std::vector<int>& done);

  void reduce_scatter(std::size_t v, const TensorBox& whole, const std::vector<std::size_t>& members,
                      const std::vector<int>& done);

  void backward(std::size_t v);

  /// Without overlap (plan "schedule"): every layer's all-reduce starts after the last computation
  /// of the backward pass on every device, in backward order.
  void synchronise_after_backward();

  /// Devices holding the same weights all-reduce their gradients (UPD), each starting when its
  /// gradient is ready, or after `barrier` when that is given (>= 0).
  void synchronise_gradients(std::size_t v, int barrier = -1);

  /// Gradients waiting to be all-reduced together over one replica group (schedule
  /// gradient_bucket_bytes; with 0 every layer's gradients go alone).
  struct GradientBucket {
    double bytes = 0;                       // per device
    int layers = 0;                         // layers in it
    std::size_t layer = 0;                  // the last one added: the all-reduce is reported under it
    std::map<int, std::vector<int>> ready;  // per device: its gradients' UPD tasks
  };

  /// All-reduces the bucket of replica group `devices` (in the group's ring order) and empties it.
  void all_reduce_bucket(const std::vector<int>& devices);

  /// After back-propagation: the buckets still under gradient_bucket_bytes, oldest first.
  void all_reduce_remaining_buckets();

  bool in_order_sync() const;



  /// Parameter server (schedule.gradient_sync_algorithm parameter_server, DeePa §5: servers spread
  /// over the GPUs): layer v's server is member v mod |devices| of the group (DeePa's cost model picks
  /// the same one). Step 0, every other member sends it its `bytes` of gradients; step 1, it sends
  /// each of them the `bytes` of updated parameters.
  static collectives::Schedule parameter_server_schedule(const std::vector<int>& devices, double bytes, std::size_t v);

  const topology::TopologyGraph& chip_topology() const;

  const Context& c_;
  std::int64_t batch_;
  double bpe_;
  bool core_level_;
  std::vector<int> last_compute_;  // per device: its last compute (program order)
  // per device: the tasks ending its latest gradient all-reduce (schedule.gradient_sync_order in_order)
  std::vector<std::vector<int>> sync_stream_end_;
  std::map<std::vector<int>, GradientBucket> buckets_;  // by replica group (devices in ring order)
  std::vector<std::vector<int>> bucket_order_;          // the groups with a bucket, oldest first
  std::vector<LayerState> state_;
  mutable std::optional<topology::TopologyGraph> chip_topology_;
  mutable std::vector<int> lanes_;  // per device: network links leaving it
  program::Program program_;
};

}  // namespace partsim::lowering::detail
