#include "sim/devices/fpga_designs.hpp"

#include <algorithm>

#include "sim/common/integer_math.hpp"

namespace partsim::devices {
namespace {

long long at_least_one(long long v) { return std::max<long long>(1, v); }
// Both operands count at least one: an unset (0) loop bound still takes one pass.
long long ceil_div_at_least_one(long long a, long long b) { return ceil_div(at_least_one(a), b); }

// Winograd [16]: the kernel size the transform is built for, F(m x m, r x r) with r = 3.
constexpr long long kWinogradKernel = 3;

}  // namespace

long long winograd_output_tile(const topology::FpgaDesign& design) {
  return std::max<long long>(1, design.tile - kWinogradKernel + 1);
}

double conv_macs(const ConvLoops& l) {
  return static_cast<double>(at_least_one(l.batch)) * static_cast<double>(at_least_one(l.out_channels)) *
         static_cast<double>(at_least_one(l.in_channels)) * static_cast<double>(at_least_one(l.height)) *
         static_cast<double>(at_least_one(l.width)) * static_cast<double>(at_least_one(l.kernel_h)) *
         static_cast<double>(at_least_one(l.kernel_w));
}

double design_cycles(const topology::FpgaDesign& d, const ConvLoops& l) {
  const double b = static_cast<double>(at_least_one(l.batch));
  const double r = static_cast<double>(at_least_one(l.height));
  const double c = static_cast<double>(at_least_one(l.width));
  const double k2 = static_cast<double>(at_least_one(l.kernel_h)) * static_cast<double>(at_least_one(l.kernel_w));
  switch (d.design) {
    case topology::DesignKind::superlip:
      return b * static_cast<double>(ceil_div_at_least_one(l.out_channels, d.tm)) *
             static_cast<double>(ceil_div_at_least_one(l.in_channels, d.tn)) * r * c * k2;
    case topology::DesignKind::systolic:
      return b * static_cast<double>(ceil_div_at_least_one(l.out_channels, d.rows)) *
             static_cast<double>(ceil_div_at_least_one(l.width, d.cols)) * r *
             static_cast<double>(ceil_div_at_least_one(l.in_channels, d.vec)) * k2;
    case topology::DesignKind::winograd: {
      const long long m = winograd_output_tile(d);
      const long long pieces =
          ceil_div_at_least_one(l.kernel_h, kWinogradKernel) * ceil_div_at_least_one(l.kernel_w, kWinogradKernel);
      const long long rows1 = (at_least_one(l.height) - 1) * at_least_one(l.stride_h) + 1;  // at stride 1
      const long long cols1 = (at_least_one(l.width) - 1) * at_least_one(l.stride_w) + 1;
      return b * static_cast<double>(pieces) * static_cast<double>(ceil_div_at_least_one(l.in_channels, d.pn)) *
             static_cast<double>(ceil_div_at_least_one(l.out_channels, d.pm)) *
             static_cast<double>(ceil_div_at_least_one(rows1, m)) *
             static_cast<double>(ceil_div_at_least_one(cols1, m));
    }
  }
  return 0;
}

}  // namespace partsim::devices
