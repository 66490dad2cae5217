#pragma once
// The device model per operator (DESIGN.md "Devices, collectives and memory"): the time a device
// takes for one kernel (a matrix product, a convolution, attention, a normalisation, ...) in one pass,
// and the memory it moves. Planners and lowerings both call it (shard_compute.hpp prices a layer's
// shard through it); no family keeps a private copy.
//
// Kinds (topology/system_spec.hpp):
//  - roofline: max(FLOP / peak, bytes / memory bandwidth), datasheet peaks (today's behaviour);
//  - template chip (seed 003): the PE-array model (shard_compute.hpp);
//  - FPGA design (seed 004): the design's own cycle model;
//  - calibrated: the roofline with achieved efficiencies: compute-bound classes (gemm, conv,
//    attention, flash_attention) run at peak(precision) x efficiency(op, precision, pass, FLOP of the
//    kernel), memory-bound classes at memory bandwidth x efficiency(op, precision, pass, bytes), from
//    the device's table (configs/devices/*.yaml, a source on every row):
//      time = max(FLOP / (peak x e_compute) + aux FLOP / peak_vector, bytes / (bandwidth x e_memory)).
//    Interpolation (docs/model.md "Calibrated devices"): the rows of one (op, precision, pass) sorted
//    by size; linear in log10(size) between rows, the end row's efficiency beyond either end. A missing
//    precision falls back fp16 <-> bf16, a missing bwd curve to fwd, a missing class to the device's
//    compute_efficiency (compute classes) or memory_efficiency (memory-bound classes).
//
// Contract: pure; seconds; a kernel with no work takes 0.

#include <optional>

#include "topology/system_spec.hpp"

namespace partsim::devices {

/// One kernel: its class, pass and work.
struct Kernel {
  topology::OperatorClass op = topology::OperatorClass::gemm;
  topology::KernelPass pass = topology::KernelPass::fwd;
  double flops = 0;      // the class's counted FLOP (compute classes: the products; see the table format)
  double aux_flops = 0;  // element-wise work on the vector units beside the products (bias, activation, ...)
  double bytes = 0;      // memory read + written, bytes
  /// The size a calibrated table is looked up at: the kernel's FLOP (compute classes) or bytes. A
  /// backward-pass table row counts both products of a backward pass (input and weight gradient), so a
  /// lowering that prices them one by one looks each up at twice its own FLOP (lookup_scale 2).
  double lookup_scale = 1;
};

/// FLOP of the products of an m x k by k x n matrix product, `batch` times: 2 m n k batch.
double gemm_flops(double m, double n, double k, double batch = 1);

/// Kernels of the usual operators (bytes at `bpe` bytes per element). A backward kernel covers both
/// gradients (input and weight) where the operator has weights.
Kernel gemm(double m, double n, double k, double batch, topology::KernelPass pass, double bpe);
/// Attention core (scores Q K^T, softmax, context P V) of `batch` x `heads` heads of width d over s_q
/// queries and s_kv keys: 4 b h s_q s_kv d FLOP forward, 8 backward; fused (flash) keeps the scores on
/// chip, the unfused chain writes and reads them.
Kernel attention(double batch, double heads, double s_q, double s_kv, double d, bool fused, topology::KernelPass pass,
                 double bpe);
/// Memory-bound kernels over `elements` values: normalisation, softmax, element-wise (`inputs` tensors
/// in, one out), embedding lookup of `elements` output values; forward moves inputs + output, backward
/// the saved input, the incoming gradient and the outgoing one.
Kernel memory_bound(topology::OperatorClass op, double elements, int inputs, topology::KernelPass pass, double bpe);
/// One optimizer step over `params` parameters moving `bytes_per_param` (Adam with fp32 states: read
/// parameter, gradient, two moments; write parameter and moments: 28).
Kernel optimizer_step(double params, double bytes_per_param);

struct KernelTime {
  double seconds = 0;
  bool memory_bound = false;  // the memory term set the time
  double efficiency = 1;      // calibrated: the efficiency the kernel's bound term ran at (else 1)
};

/// A calibrated device's time for one kernel at `precision` (the formula above).
KernelTime calibrated_time(const topology::CalibratedDevice& device, topology::Precision precision, const Kernel& k);

/// The efficiency a calibrated table gives (op, precision, pass) at `size`, or nothing when the table
/// has no row for the class at any precision or pass (the device's defaults then apply).
std::optional<double> table_efficiency(const topology::CalibratedDevice& device, topology::OperatorClass op,
                                       topology::Precision precision, topology::KernelPass pass, double size);

/// True for gemm, conv, attention and flash_attention (their table size is FLOP, not bytes).
bool is_compute_class(topology::OperatorClass op);

}  // namespace partsim::devices
