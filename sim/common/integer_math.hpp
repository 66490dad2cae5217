#pragma once
// Integer helpers shared by the cost models: one definition of rounding-up division.

namespace partsim {

/// ceil(a / b) for a count a >= 0 cut into b pieces: the size of the largest piece.
/// A divisor below 1 means "not divided" and returns a unchanged (a factor of 0 from an unset
/// field must not divide by zero); for b >= 1 it is the plain (a + b - 1) / b.
/// Precondition: a >= 0 (a negative a truncates toward zero rather than rounding up).
constexpr long long ceil_div(long long a, long long b) { return b <= 1 ? a : (a + b - 1) / b; }

}  // namespace partsim
