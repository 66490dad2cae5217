#pragma once
// Joining names for messages ("allowed: a, b, c") and listings: one helper for the loops that
// every registry, parser and report used to write again.

#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace partsim {

/// The items' texts, `name(item)` each, with `sep` between them ("" for none).
/// (A text as the second argument is the separator of the overload below, not a `name`.)
template <class Range, class Name>
  requires(!std::is_convertible_v<Name, std::string_view>)
std::string join(const Range& items, Name name, std::string_view sep = ", ") {
  std::string out;
  bool first = true;
  for (const auto& item : items) {
    if (!first) out += sep;
    first = false;
    out += name(item);
  }
  return out;
}

/// "a, b, c".
inline std::string join(const std::vector<std::string>& items, std::string_view sep = ", ") {
  return join(items, [](const std::string& s) -> const std::string& { return s; }, sep);
}

}  // namespace partsim
