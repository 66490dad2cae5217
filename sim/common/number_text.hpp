#pragma once
// Numbers as text for reports and explanations: fixed-point and milliseconds, one definition each.

#include <string>

namespace partsim {

/// `v` in fixed-point with `precision` digits after the point ("%.*f"); a value that rounds to
/// zero prints without a sign ("0.0", not "-0.0").
std::string fixed(double v, int precision);

/// How ms_number() counts its digits.
enum class MsDigits {
  after_point,  ///< digits after the decimal point ("%.Nf")
  significant,  ///< significant digits ("%.Ng")
};

/// `seconds` as milliseconds, the number alone ("12.345"); "-0" is written as "0" as in fixed().
std::string ms_number(double seconds, int digits, MsDigits kind = MsDigits::after_point);

/// ms_number() followed by " ms" ("12.345 ms").
std::string ms_text(double seconds, int digits, MsDigits kind = MsDigits::after_point);

}  // namespace partsim
