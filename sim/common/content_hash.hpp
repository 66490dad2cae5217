#pragma once
// A short fingerprint of a text (a resolved platform, an input file), for outputs that record which
// inputs made them: FNV-1a 64 (Fowler, Noll, Vo; http://www.isthe.com/chongo/tech/comp/fnv/) as 16
// lower-case hex digits. Not cryptographic: it tells an edited input from the one a result was
// made with.

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace partsim {

inline std::string fnv1a64_hex(std::string_view text) {
  std::uint64_t h = 14695981039346656037ULL;  // FNV-1a 64 offset basis
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;  // FNV-1a 64 prime
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace partsim
