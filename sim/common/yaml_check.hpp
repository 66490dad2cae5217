#pragma once
// The checks every YAML text gets before yaml-cpp builds it into nodes (used by yaml_reader.cpp for
// files, embedded texts and --set values; nothing else needs it).
//
// One pass over the parser's events refuses, at its line, column and key path, what yaml-cpp lets
// through or what would make a reader misbehave later:
//   * a key written twice in one map (yaml-cpp keeps the first and drops the second silently);
//   * a scalar (key or value) that is not valid UTF-8: names end up in JSON outputs;
//   * aliases that blow up: yaml-cpp shares an aliased node, so a few lines of anchors and aliases
//     can stand for 10^10 nodes (every reader walks the expanded tree) or, when an alias sits inside
//     its own anchor, for a cycle. Aliases may add at most kMaxAliasNodes nodes in all, and an alias
//     may only name a node that is complete;
//   * a quoted scalar that is never closed: yaml-cpp reads it to the end of the file without an
//     error, so the rest of the file silently becomes part of one string;
//   * a second document after '---' (yaml-cpp would ignore it).

#include <cstdint>
#include <functional>
#include <string>

namespace partsim::yaml::detail {

/// Most nodes that aliases may add to a document, counting each alias as the whole node it names.
inline constexpr std::uint64_t kMaxAliasNodes = 100'000;

/// Reports a problem; must throw. line and column are 1-based (0 when unknown).
using Reporter = std::function<void(int line, int column, const std::string& path, const std::string& message)>;

/// What the check learnt about the (first) document.
struct CheckedText {
  bool empty = false;  // no document at all (blank, comments only) or a null one ("~")
  int line = 1;        // where the empty document is (its null, or 1:1)
  int column = 1;
};

/// Checks the first YAML document of `text`; key paths start at `root_path`. The first problem
/// goes to `fail`; a syntax error propagates as yaml-cpp's YAML::Exception, except that a quoted
/// scalar left open is reported (through `fail`) at its opening quote instead of wherever yaml-cpp
/// gave up.
CheckedText check_text(const std::string& text, const std::string& root_path, const Reporter& fail);

}  // namespace partsim::yaml::detail
