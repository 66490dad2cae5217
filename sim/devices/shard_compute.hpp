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
// - Calibrated device (a GPU as it runs): the shard's products as kernels of its class (gemm, conv;
//   an attention layer's projections as gemm and its core as flash_attention or attention) and its
//   auxiliary work as a memory-bound kernel of its class, each timed by device_model.hpp with the
//   device's efficiency table; a backward or weight-gradient pass looks the table's bwd rows up at
//   twice its own FLOP (a bwd row counts both gradients' products).
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
  // For calibrated devices (device_model.hpp): the layer's operator class, how many equal products
  // its primary FLOP are (attention's four projections), the part that is an attention core (scores
  // and context), whether that core is fused, and the precision the table is read at.
  topology::OperatorClass op = topology::OperatorClass::gemm;
  int products = 1;
  double attention_core_flops = 0;
  bool fused_attention = true;
  topology::Precision precision = topology::Precision::bf16;
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
