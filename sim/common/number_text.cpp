#include "sim/common/number_text.hpp"

#include <cstdio>

namespace partsim {
namespace {

// printf with one precision argument; a result that is only a sign and zeros loses the sign.
std::string unsigned_zero(const char* format, int precision, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, precision, v);
  const std::string text(buf);
  if (text.front() == '-' && text.find_first_not_of("-0.") == std::string::npos) return text.substr(1);
  return text;
}

}  // namespace

std::string fixed(double v, int precision) { return unsigned_zero("%.*f", precision, v); }

std::string ms_number(double seconds, int digits, MsDigits kind) {
  return unsigned_zero(kind == MsDigits::significant ? "%.*g" : "%.*f", digits, seconds * 1e3);
}

std::string ms_text(double seconds, int digits, MsDigits kind) { return ms_number(seconds, digits, kind) + " ms"; }

}  // namespace partsim
