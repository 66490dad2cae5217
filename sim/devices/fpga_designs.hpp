#pragma once
// The cycle models of MARS's accelerator designs (seed 004 §III "Accelerator designs", Table II):
// each design computes a convolution (an FC layer is a 1x1 convolution on a 1x1 map) with its own
// loop tiling, so its cycle count depends on how the layer's loop bounds fit its tiles, not only on
// its peak. All three are from the designs' papers as MARS cites them:
//
// - SuperLIP [14] (the Zhang et al. FPGA'15 tiling it builds on): Tm x Tn multipliers unrolled over
//   output x input channels; the row, column and kernel loops are pipelined, one iteration a cycle:
//     cycles = B * ceil(M/Tm) * ceil(N/Tn) * R * C * Kh * Kw.
//   Tr, Tc size the on-chip buffers (a tile's rows and columns); the pipelined loops run to
//   min(row + Tr, R), so they add no padding.
// - Systolic array [15] (Wei et al., DAC'17): rows x cols PEs, each a vec-wide dot product, with the
//   mapping the paper uses for convolutions: array rows over output channels, array columns over
//   output columns, vector lanes over input channels; output rows and kernel positions stream:
//     cycles = B * ceil(M/rows) * ceil(C/cols) * R * ceil(N/vec) * Kh * Kw.
// - Winograd [16] (Lu et al., FCCM'17): F(m x m, 3 x 3) with input tile n = m + 2 (n = 6: m = 4);
//   each cycle one n x n tile of Pn input channels meets Pm output channels (n^2 Pn Pm multipliers),
//   the input / output transforms pipelined beside it. A K x K kernel runs as ceil(K/3)^2 3 x 3
//   pieces (K < 3 zero-padded: a 1x1 convolution costs as much as a 3x3, a ninth of its work useful);
//   a stride s is computed at stride 1 and subsampled (rows (R-1)s + 1):
//     cycles = B * ceil(Kh/3) ceil(Kw/3) * ceil(N/Pn) * ceil(M/Pm) * ceil(R1/m) * ceil(C1/m).
//
// Contract: pure functions; cycles at the design's clock; a loop extent < 1 counts as 1.

#include "topology/system_spec.hpp"

namespace partsim::devices {

/// A convolution's loops as one device computes them (its shard): output channels M, input
/// channels N, output rows R and columns C, kernel Kh x Kw, stride.
struct ConvLoops {
  long long batch = 1;
  long long out_channels = 1;  // M
  long long in_channels = 1;   // N
  long long height = 1;        // R (output)
  long long width = 1;         // C (output)
  long long kernel_h = 1, kernel_w = 1;
  long long stride_h = 1, stride_w = 1;
};

/// The design's cycles for the convolution (module comment).
double design_cycles(const topology::FpgaDesign& design, const ConvLoops& loops);

/// The multiply-accumulates the convolution needs: B M N R C Kh Kw.
double conv_macs(const ConvLoops& loops);

/// Winograd's output tile m = n - 2 (F(m x m, 3 x 3)); at least 1.
long long winograd_output_tile(const topology::FpgaDesign& design);

}  // namespace partsim::devices
