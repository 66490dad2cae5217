#pragma once
// UTF-8 checks for text that came from the user (YAML files, --set values). Names read from files
// end up in JSON outputs, which must be UTF-8, so they are checked where they are read.

#include <cstddef>
#include <string>
#include <string_view>

namespace partsim::utf8 {

/// Offset of the first byte of `text` that does not start a well-formed UTF-8 sequence (RFC 3629:
/// no overlong forms, no surrogates, nothing above U+10FFFF, no truncated sequence); npos if `text`
/// is valid UTF-8.
std::size_t first_invalid(std::string_view text) noexcept;

inline bool valid(std::string_view text) noexcept { return first_invalid(text) == std::string_view::npos; }

/// `text` with every byte that is not part of valid UTF-8 written as \xHH, so it can be printed.
std::string printable(std::string_view text);

}  // namespace partsim::utf8
