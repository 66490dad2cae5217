#pragma once
// Reading YAML into plain specs with errors a person can act on.
//
// Contract: a ConfigNode is a YAML node plus where it came from (file, key path, and the --set
// assignment that wrote it, if any). Every accessor either returns a valid value or throws a
// ParseError "file:line:col: key.path: message". Maps are read with MapReader, which remembers every
// key it was asked about and, in finish(), rejects any other key with the list of allowed ones.
// Nothing downstream of the spec parsers sees YAML.

#include <yaml-cpp/yaml.h>

#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "sim/common/error.hpp"
#include "sim/common/units.hpp"

namespace partsim::yaml {

/// Where a document came from, shared by all its nodes.
struct Source {
  std::string file;                                    // path as the user gave it
  std::map<std::string, std::string> overrides;        // key path -> the --set text that wrote it
  /// What was read but looks like a mistake ("file:line:col: path: message"), in reading order;
  /// the spec parsers pass them on and the programs print them as warnings.
  std::shared_ptr<std::vector<std::string>> warnings = std::make_shared<std::vector<std::string>>();
};

class ConfigNode {
 public:
  ConfigNode(YAML::Node node, std::string path, std::shared_ptr<const Source> source);

  const YAML::Node& node() const noexcept { return node_; }
  const std::string& path() const noexcept { return path_; }
  const Source& source() const noexcept { return *source_; }
  const std::shared_ptr<const Source>& source_ptr() const noexcept { return source_; }

  /// Throws ParseError at this node: "file:line:col: path: message" (or "--set a.b=v: path: message").
  [[noreturn]] void fail(const std::string& message) const;
  /// Records a warning at this node in the source's `warnings`, located as fail() locates errors.
  void warn(const std::string& message) const;

  bool is_map() const { return node_.IsMap(); }
  bool is_sequence() const { return node_.IsSequence(); }
  bool is_scalar() const { return node_.IsScalar(); }

  std::string as_string() const;
  bool as_bool() const;
  /// A whole number in [min, max]; one outside (even one too long for 64 bits) fails naming the
  /// bound: "is too large (got 99999999999999999999, at most 1000000000)", "must be >= 0 (got -1)".
  long long as_int(long long min = std::numeric_limits<long long>::min(),
                   long long max = std::numeric_limits<long long>::max()) const;
  double as_double() const;
  /// A whole number in [1, kMaxPositiveInt].
  static constexpr long long kMaxPositiveInt = 1'000'000'000;
  int as_positive_int() const;
  /// A quantity with its unit, in SI (see units.hpp); `positive` rejects 0 and negatives. A size
  /// written in bits ("80Gb", 10 GB) is read as written, with a warning: sizes are usually bytes.
  double as_quantity(units::Dimension dimension, bool positive = true) const;
  /// One of `allowed`; otherwise fails listing them.
  std::string as_enum(const std::vector<std::string>& allowed) const;

  /// Elements of a sequence (fails if this is not a sequence).
  std::vector<ConfigNode> elements() const;
  /// A sequence of exactly `expected` elements when expected > 0.
  std::vector<ConfigNode> elements(size_t expected, const std::string& what) const;

 private:
  ParseError located(const std::string& message) const;
  YAML::Node node_;
  std::string path_;
  std::shared_ptr<const Source> source_;
};

/// Reads the keys of one YAML map; finish() rejects keys nobody asked for.
class MapReader {
 public:
  explicit MapReader(const ConfigNode& map);  // fails if the node is not a map

  const ConfigNode& node() const noexcept { return map_; }
  bool has(std::string_view key);
  ConfigNode required(std::string_view key);
  std::optional<ConfigNode> optional(std::string_view key);
  /// Throws on the first key that was never asked about: "unknown key 'x' (allowed: a, b, c)".
  void finish() const;

 private:
  ConfigNode map_;
  std::set<std::string, std::less<>> asked_;
};

/// Parses a YAML file; a syntax error becomes a ParseError with its line and column, and so do a
/// key written twice in one map ("duplicate key (first at line N)", which yaml-cpp would drop), a
/// scalar that is not UTF-8, aliases that would expand the document by more than 100000 nodes or
/// form a cycle, a quoted value never closed (reported where it opens), a second document and an
/// empty one ("the document is empty ..."). See yaml_check.hpp.
/// Files larger than kMaxFileBytes are refused before they are parsed ("the file is larger than
/// 4 MiB"): this bounds the memory and time of reading one (docs/robustness.md).
ConfigNode load_file(const std::string& file, const std::vector<std::string>& overrides = {});
inline constexpr size_t kMaxFileBytes = size_t{4} << 20;
/// Parses YAML text (tests, embedded presets); `name` stands for the file in messages.
ConfigNode load_string(const std::string& text, const std::string& name,
                       const std::vector<std::string>& overrides = {});

/// Applies one "--set key.path[i]=value" to a document. The value is read as YAML, so lists and
/// maps work too ("dims=[4,16]"). Missing map keys are created; an index past the end of a
/// sequence, a path through a scalar or a missing '=' throws InputError naming the assignment.
/// Returns the normalised key path written.
std::string apply_override(YAML::Node& root, std::string_view assignment);

/// Joins key paths: join_path("system", "torus") == "system.torus"; index_path("bw", 1) == "bw[1]".
std::string join_path(std::string_view parent, std::string_view key);
std::string index_path(std::string_view parent, size_t index);

}  // namespace partsim::yaml
