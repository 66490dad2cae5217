#pragma once
// The time a device takes to compute its shard of a layer's pass, from the platform's device model
// (DESIGN.md "The hardware template"), for the shared sharding lowering.
//
// - Roofline device (TPU-v2/v3, FPGA designs given by their peaks): max(FLOPs / peak FLOP/s,
//   bytes / memory bandwidth); the memory traffic is inside the roofline.
// - Template chip (seed 003): the shard's products run on the PE arrays, its loops (minibatch,
//   output features, output positions, input features) divided over cores x arrays in the way that
//   takes the fewest cycles (every ordered factorisation of the unit count is tried; a plan at shard
//   level says nothing of the on-chip mapping, so the chip maps it as well as it can), PriComp of one
//   array's share (pe_array.hpp) at the core's clock; auxiliary FLOPs on the special-function
//   processors (one operation per FLOP) after it. Memory traffic is NOT included: the chip's external memory is
//   its own link, which the lowering loads with `memory_bytes` at the same time.
// - FPGA design (seed 004 Table II): the design's own cycle model of the shard's convolution loops
//   (fpga_designs.hpp) at its clock, auxiliary FLOPs one per multiplier and cycle; DRAM traffic is
//   double-buffered, so the time is max(compute, bytes / memory bandwidth).
//
// Contract: pure; seconds; a shard with no work takes 0.

#include "sim/devices/fpga_designs.hpp"
#include "sim/devices/pe_array.hpp"
#include "sim/plan/plan.hpp"
#include "topology/system_spec.hpp"

namespace partsim::devices {

/// What one device computes of a layer in one pass.
struct ShardWork {
  double primary_flops = 0;  // the layer's matrix products (AccPar Table 6 counting), this shard
  double aux_flops = 0;      // auxiliary work (bias, activation, pooling, normalisation, ...)
  double memory_bytes = 0;   // external memory read + written: operands in, result out
  bool on_arrays = false;    // the products run on PE arrays (template chips)
  ArrayWork loops;           // the shard's loop extents, for the PE-array model
  ConvLoops conv;            // the shard's convolution loops, for FPGA designs (fpga_designs.hpp)
};

struct ShardTime {
  double compute_s = 0;       // busy time of the compute units
  double memory_bytes = 0;    // traffic the caller must put on the memory link (template chips)
  bool memory_bound = false;  // roofline: the memory term set the time
};

ShardTime shard_time(const topology::DeviceType& device, const ShardWork& work, plan::Pass pass);

}  // namespace partsim::devices
