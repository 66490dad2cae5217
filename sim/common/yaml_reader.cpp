#include "sim/common/yaml_reader.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include "sim/common/text.hpp"
#include "sim/common/utf8.hpp"
#include "sim/common/yaml_check.hpp"

namespace partsim::yaml {
namespace {

std::string scalar_text(const YAML::Node& node) {
  if (node.IsScalar()) return node.Scalar();
  if (node.IsSequence()) return "a list";
  if (node.IsMap()) return "a map";
  return "nothing";
}

// One step of an override path: a map key followed by zero or more [index].
struct PathStep {
  std::string key;
  std::vector<size_t> indices;
};

std::vector<PathStep> parse_key_path(std::string_view path, std::string_view assignment) {
  auto bad = [&](const std::string& why) -> InputError {
    return InputError("--set " + std::string(assignment) + ": " + why);
  };
  if (utf8::first_invalid(path) != std::string_view::npos)
    throw InputError("--set " + utf8::printable(assignment) + ": the key path is not valid UTF-8");
  std::vector<PathStep> steps;
  size_t pos = 0;
  while (pos <= path.size()) {
    size_t dot = path.find('.', pos);
    std::string_view part = path.substr(pos, dot == std::string_view::npos ? std::string_view::npos : dot - pos);
    PathStep step;
    size_t bracket = part.find('[');
    step.key = std::string(part.substr(0, bracket));
    if (step.key.empty()) throw bad("empty key in path '" + std::string(path) + "'");
    while (bracket != std::string_view::npos) {
      size_t close = part.find(']', bracket);
      if (close == std::string_view::npos) throw bad("missing ']' in '" + std::string(part) + "'");
      std::string_view digits = part.substr(bracket + 1, close - bracket - 1);
      size_t index = 0;
      if (digits.empty()) throw bad("empty index in '" + std::string(part) + "'");
      if (digits.size() > 9) throw bad("index too large in '" + std::string(part) + "'");
      for (char c : digits) {
        if (c < '0' || c > '9') throw bad("index must be a whole number in '" + std::string(part) + "'");
        index = index * 10 + static_cast<size_t>(c - '0');
      }
      step.indices.push_back(index);
      bracket = close + 1 < part.size() ? close + 1 : std::string_view::npos;
      if (bracket != std::string_view::npos && part[bracket] != '[')
        throw bad("unexpected text after ']' in '" + std::string(part) + "'");
    }
    steps.push_back(std::move(step));
    if (dot == std::string_view::npos) break;
    pos = dot + 1;
  }
  return steps;
}

// The key path an override writes: "system.torus.bandwidth[1]".
std::string written_path(const std::vector<PathStep>& steps) {
  std::string path;
  for (const auto& step : steps) {
    path = join_path(path, step.key);
    for (size_t index : step.indices) path = index_path(path, index);
  }
  return path;
}

ConfigNode parse_text(const std::string& text, const std::string& name, const std::vector<std::string>& overrides) {
  auto source = std::make_shared<Source>();
  source->file = name;
  YAML::Node root;
  try {
    const detail::CheckedText checked =
        detail::check_text(text, "", [&name](int line, int column, const std::string& path, const std::string& message) {
          throw ParseError(name, line, column, path, message);
        });
    if (checked.empty)
      throw ParseError(name, checked.line, checked.column, "",
                       "the document is empty (nothing but blank lines, comments or null)");
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ParseError(name, e.mark.line + 1, e.mark.column + 1, "", "YAML syntax error: " + e.msg);
  }
  for (const auto& o : overrides) source->overrides[apply_override(root, o)] = o;
  return ConfigNode(root, "", source);
}

}  // namespace

std::string join_path(std::string_view parent, std::string_view key) {
  if (parent.empty()) return std::string(key);
  return std::string(parent) + "." + std::string(key);
}

std::string index_path(std::string_view parent, size_t index) {
  return std::string(parent) + "[" + std::to_string(index) + "]";
}

ConfigNode::ConfigNode(YAML::Node node, std::string path, std::shared_ptr<const Source> source)
    : node_(std::move(node)), path_(std::move(path)), source_(std::move(source)) {}

ParseError ConfigNode::located(const std::string& message) const {
  // A value written by --set is reported at the assignment, not at a line of the file.
  for (const auto& [written, assignment] : source_->overrides) {
    if (path_ == written || path_.starts_with(written + ".") || path_.starts_with(written + "[")) {
      return ParseError("--set " + assignment, 0, 0, path_, message);
    }
  }
  const YAML::Mark mark = node_.Mark();
  const int line = mark.line >= 0 ? mark.line + 1 : 0;
  const int column = mark.column >= 0 ? mark.column + 1 : 0;
  return ParseError(source_->file, line, column, path_, message);
}

void ConfigNode::fail(const std::string& message) const { throw located(message); }

void ConfigNode::warn(const std::string& message) const { source_->warnings->push_back(located(message).what()); }

std::string ConfigNode::as_string() const {
  if (!node_.IsScalar()) fail("expected a string (got " + scalar_text(node_) + ")");
  return node_.Scalar();
}

bool ConfigNode::as_bool() const {
  if (node_.IsScalar()) {
    const std::string& s = node_.Scalar();
    if (s == "true" || s == "yes" || s == "on") return true;
    if (s == "false" || s == "no" || s == "off") return false;
  }
  fail("expected true or false (got " + scalar_text(node_) + ")");
}

long long ConfigNode::as_int(long long min, long long max) const {
  if (node_.IsScalar()) {
    std::string_view s = node_.Scalar();
    if (s.size() > 1 && s[0] == '+' && s[1] >= '0' && s[1] <= '9') s.remove_prefix(1);
    long long v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (!s.empty() && end == s.data() + s.size() &&
        (ec == std::errc() || ec == std::errc::result_out_of_range)) {
      // A number too long for 64 bits is named as such, never clamped.
      const bool overflow = ec == std::errc::result_out_of_range;
      const std::string got = overflow ? node_.Scalar() : std::to_string(v);
      if (overflow ? s[0] != '-' : v > max)
        fail("is too large (got " + got + ", at most " + std::to_string(max) + ")");
      if (overflow || v < min)
        fail((min == 1 ? std::string("must be > 0") : "must be >= " + std::to_string(min)) + " (got " + got + ")");
      return v;
    }
  }
  fail("expected a whole number (got " + scalar_text(node_) + ")");
}

double ConfigNode::as_double() const {
  if (node_.IsScalar()) {
    const std::string& s = node_.Scalar();
    try {
      size_t used = 0;
      double v = std::stod(s, &used);
      if (used == s.size() && std::isfinite(v)) return v;
    } catch (const std::exception&) {
    }
  }
  fail("expected a number (got " + scalar_text(node_) + ")");
}

int ConfigNode::as_positive_int() const { return static_cast<int>(as_int(1, kMaxPositiveInt)); }

double ConfigNode::as_quantity(units::Dimension dimension, bool positive) const {
  if (!node_.IsScalar()) fail("expected " + units::describe(dimension) + " (got " + scalar_text(node_) + ")");
  std::string error;
  auto v = units::parse(node_.Scalar(), dimension, &error);
  if (!v) fail(error);
  if (positive && *v <= 0.0) fail("must be > 0 (got " + node_.Scalar() + ")");
  if (!positive && *v < 0.0) fail("must be >= 0 (got " + node_.Scalar() + ")");
  if (units::written_in_bits(node_.Scalar(), dimension))
    warn("'" + node_.Scalar() + "' is read as bits (lower-case b), " + units::format(*v, dimension) +
         "; sizes are usually bytes, written with B (" + units::format(*v * 8, dimension) + ")");
  return *v;
}

std::string ConfigNode::as_enum(const std::vector<std::string>& allowed) const {
  if (node_.IsScalar()) {
    for (const auto& a : allowed)
      if (node_.Scalar() == a) return a;
  }
  fail("must be one of " + join(allowed) + " (got " + scalar_text(node_) + ")");
}

std::vector<ConfigNode> ConfigNode::elements() const {
  if (!node_.IsSequence()) fail("expected a list (got " + scalar_text(node_) + ")");
  std::vector<ConfigNode> out;
  out.reserve(node_.size());
  for (size_t i = 0; i < node_.size(); ++i) out.emplace_back(node_[i], index_path(path_, i), source_);
  return out;
}

std::vector<ConfigNode> ConfigNode::elements(size_t expected, const std::string& what) const {
  auto out = elements();
  if (expected > 0 && out.size() != expected)
    fail("expected " + std::to_string(expected) + " elements, " + what + " (got " + std::to_string(out.size()) + ")");
  return out;
}

MapReader::MapReader(const ConfigNode& map) : map_(map) {
  if (!map.node().IsMap()) map.fail("expected a map of keys (got " + scalar_text(map.node()) + ")");
}

bool MapReader::has(std::string_view key) {
  asked_.emplace(key);
  return map_.node()[std::string(key)].IsDefined();
}

std::optional<ConfigNode> MapReader::optional(std::string_view key) {
  asked_.emplace(key);
  YAML::Node child = map_.node()[std::string(key)];
  if (!child.IsDefined() || child.IsNull()) return std::nullopt;
  return ConfigNode(child, join_path(map_.path(), key), map_.source_ptr());
}

namespace {

// Single-character insertions, deletions and substitutions that turn `a` into `b` (Levenshtein),
// for "did you mean" hints on short keys.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

ConfigNode MapReader::required(std::string_view key) {
  auto child = optional(key);
  if (!child) {
    ConfigNode at(map_.node(), join_path(map_.path(), key), map_.source_ptr());
    // A key of the map that nobody asked for and is spelt nearly as the missing one (at most 2
    // edits, and fewer than a third of its letters: not 'b' for 'c'): most likely the missing key
    // misspelt, so say so instead of only "missing" (memory_bandwith).
    std::string misspelt;
    for (const auto& kv : map_.node()) {
      const std::string present = kv.first.Scalar();
      const std::size_t edits = edit_distance(present, key);
      if (asked_.find(present) == asked_.end() && edits <= 2 && 3 * edits < std::min(present.size(), key.size()))
        misspelt = present;
    }
    // Point at the map that lacks the key (its line), but name the missing key's path.
    at.fail(misspelt.empty() ? std::string("missing required key")
                             : "missing required key (the map has '" + misspelt + "', not a key here: misspelt?)");
  }
  return *child;
}

void MapReader::finish() const {
  for (const auto& kv : map_.node()) {
    const std::string key = kv.first.Scalar();
    if (asked_.find(key) == asked_.end()) {
      std::vector<std::string> allowed(asked_.begin(), asked_.end());
      ConfigNode(kv.first, join_path(map_.path(), key), map_.source_ptr())
          .fail("unknown key (allowed: " + join(allowed) + ")");
    }
  }
}

ConfigNode load_file(const std::string& file, const std::vector<std::string>& overrides) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(file + ": cannot open file");
  // Read at most one byte more than allowed, so a pipe or a huge file is refused without being
  // held in memory (a parsed YAML tree takes about 100 times its text).
  std::string text(kMaxFileBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > kMaxFileBytes)
    throw InputError(file + ": the file is larger than " + std::to_string(kMaxFileBytes >> 20) +
                     " MiB, the most a platform or workload file may be");
  return parse_text(text, file, overrides);
}

ConfigNode load_string(const std::string& text, const std::string& name, const std::vector<std::string>& overrides) {
  return parse_text(text, name, overrides);
}

std::string apply_override(YAML::Node& root, std::string_view assignment) {
  const size_t eq = assignment.find('=');
  if (eq == std::string_view::npos || eq == 0)
    throw InputError("--set " + std::string(assignment) + ": expected key.path=value, e.g. system.torus.bandwidth[0]=120GB/s");
  const std::string_view path = assignment.substr(0, eq);
  const std::string value_text(assignment.substr(eq + 1));
  const auto steps = parse_key_path(path, assignment);

  // The value is checked as a file is (duplicate keys, UTF-8, aliases), its problems reported at
  // the assignment and the key path it writes.
  const auto fail = [&](int, int, const std::string& at, const std::string& message) {
    throw ParseError("--set " + utf8::printable(assignment), 0, 0, at, message);
  };
  YAML::Node value;
  try {
    detail::check_text(value_text, written_path(steps), fail);
    value = YAML::Load(value_text);
  } catch (const YAML::Exception& e) {
    throw InputError("--set " + std::string(assignment) + ": value is not valid YAML: " + e.msg);
  }

  std::string written;
  YAML::Node cur;
  cur.reset(root);  // reset() rebinds; operator= would overwrite the node in the tree
  for (const auto& step : steps) {
    if (!(cur.IsMap() || cur.IsNull() || !cur.IsDefined()))
      throw InputError("--set " + std::string(assignment) + ": '" + (written.empty() ? "<root>" : written) +
                       "' is not a map, cannot set key '" + step.key + "'");
    written = join_path(written, step.key);
    YAML::Node next = cur[step.key];
    cur.reset(next);
    for (size_t index : step.indices) {
      if (!cur.IsSequence())
        throw InputError("--set " + std::string(assignment) + ": '" + written + "' is not a list");
      if (index >= cur.size())
        throw InputError("--set " + std::string(assignment) + ": index " + std::to_string(index) + " is past the end of '" +
                         written + "' (" + std::to_string(cur.size()) + " elements)");
      written = index_path(written, index);
      YAML::Node element = cur[index];
      cur.reset(element);
    }
  }
  cur = value;
  return written;
}

}  // namespace partsim::yaml
