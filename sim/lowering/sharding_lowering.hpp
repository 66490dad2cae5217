#pragma once
// The shared sharding lowering (DESIGN.md principle 1): a plan's per-layer shardings become the
// events of one training iteration (or inference), derived only from where the data is, the
// platform's device models and real collective algorithms. It never reads the plan's predictions
// nor any planner's formula. docs/model.md "The sharding lowering" gives every rule; in short:
// - FWD, layers in order: each device fetches the parts of its inputs it lacks from the devices that
//   hold them (intersections of boxes, one transfer per pair, routed on the topology), then computes
//   its shard (sim/devices/shard_compute.hpp; template chips load their memory link meanwhile).
//   Devices that hold partial sums of the same outputs (in_channels split) reduce-scatter them on a
//   ring, so each ends up owning a slice.
// - BWD, layers in reverse: each device fetches the error of its outputs from their owners (the
//   consumers' input errors, summed where they arrive), computes the input error (when a producer
//   needs it) and sends it to the producer's owners; then the weight gradient (UPD).
// - Gradient synchronisation: devices holding the same weights all-reduce their gradients (ring in
//   device order; on a whole torus the dimension-ordered reduce-scatter / all-reduce / all-gather of
//   the collectives library), each step after the previous step's data has arrived: no barriers,
//   so it overlaps the backward pass of the layers before it. The plan's schedule may fuse
//   consecutive layers' gradients into buckets (gradient_bucket_bytes) and put each device's
//   all-reduces on one stream, one at a time in backward order (gradient_sync_order in_order).
// - A device runs its compute in program order; transfers overlap compute freely (DMA).

#include "sim/lowering/lowering.hpp"

namespace partsim::lowering {

/// Lowers any plan whose layers carry shardings (every strategy without a lowering of its own).
/// Throws InputError when a layer's sharding is invalid for the platform.
program::Program lower_sharding(const Context& context);

}  // namespace partsim::lowering
