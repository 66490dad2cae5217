#include "sim/common/utf8.hpp"

namespace partsim::utf8 {
namespace {

// Length of the well-formed sequence at text[i] (1 to 4), or 0 if none starts there. The ranges of
// the second byte are those of RFC 3629's table (E0 A0..BF excludes overlongs, ED 80..9F excludes
// surrogates, F4 80..8F stops at U+10FFFF).
std::size_t sequence_length(std::string_view text, std::size_t i) noexcept {
  const auto c = static_cast<unsigned char>(text[i]);
  if (c < 0x80) return 1;
  std::size_t continuation = 0;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    continuation = 1;
  } else if (c >= 0xE0 && c <= 0xEF) {
    continuation = 2;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    continuation = 3;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (text.size() - i <= continuation) return 0;
  for (std::size_t k = 1; k <= continuation; ++k) {
    const auto b = static_cast<unsigned char>(text[i + k]);
    if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF)) return 0;
  }
  return continuation + 1;
}

}  // namespace

std::size_t first_invalid(std::string_view text) noexcept {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = sequence_length(text, i);
    if (n == 0) return i;
    i += n;
  }
  return std::string_view::npos;
}

std::string printable(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    if (const std::size_t n = sequence_length(text, i)) {
      out.append(text.substr(i, n));
      i += n;
    } else {
      const auto c = static_cast<unsigned char>(text[i++]);
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

}  // namespace partsim::utf8
