#include "sim/common/yaml_check.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <sstream>
#include <string_view>
#include <vector>

#include "sim/common/utf8.hpp"
#include "sim/common/yaml_reader.hpp"

namespace partsim::yaml::detail {
namespace {

constexpr size_t npos = std::string_view::npos;

// yaml-cpp's marks count bytes of UTF-8 input, so for UTF-8 text a mark's pos indexes `text`. For
// UTF-16 or UTF-32 input (which yaml-cpp decodes) it does not; such texts start with a byte-order
// mark or have a zero byte among their first four.
bool positions_are_bytes(std::string_view text) {
  if (text.starts_with("\xFE\xFF") || text.starts_with("\xFF\xFE")) return false;
  return text.substr(0, 4).find('\0') == npos;
}

// Position just after the quoted scalar opening at text[open], or npos if it never closes.
size_t quoted_end(std::string_view text, size_t open) {
  const char quote = text[open];
  for (size_t i = open + 1; i < text.size(); ++i) {
    if (quote == '"' && text[i] == '\\') {
      ++i;  // an escaped character, possibly a quote
    } else if (text[i] == quote) {
      if (quote == '\'' && i + 1 < text.size() && text[i + 1] == '\'') {
        ++i;  // '' is a quote inside single quotes
      } else {
        return i + 1;
      }
    }
  }
  return npos;
}

// The quote opening the scalar whose node starts at `pos` (after its &anchor and !tag, if any);
// npos for a plain scalar.
size_t opening_quote(std::string_view text, size_t pos) {
  while (pos < text.size()) {
    const char c = text[pos];
    if (c == '"' || c == '\'') return pos;
    if (c == '&' || c == '!') {
      while (pos < text.size() && text[pos] != ' ' && text[pos] != '\t' && text[pos] != '\n' && text[pos] != '\r') ++pos;
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++pos;
    } else {
      return npos;
    }
  }
  return npos;
}

class Checker : public YAML::EventHandler {
 public:
  Checker(std::string_view text, std::string root_path, const Reporter& fail)
      : text_(text), root_path_(std::move(root_path)), fail_(fail), raw_(positions_are_bytes(text)) {}

  bool saw_root() const { return saw_root_; }
  bool root_is_null() const { return root_is_null_; }
  const YAML::Mark& root_mark() const { return root_mark_; }

  // yaml-cpp reads a quoted scalar that is never closed to the end of the text without complaint,
  // so the last scalar read is the one to look at. When yaml-cpp then gave up (`parsed` false) the
  // scanner's look-ahead through the swallowed text may have garbled the events before it, so the
  // key path is left out.
  void check_last_scalar_closed(bool parsed) const {
    if (!raw_ || !last_scalar_) return;
    const size_t open = opening_quote(text_, static_cast<size_t>(last_scalar_->mark.pos));
    if (open == npos || quoted_end(text_, open) != npos) return;
    const std::string_view before = text_.substr(0, open);
    const size_t line_start = before.rfind('\n');
    const int line = 1 + static_cast<int>(std::count(before.begin(), before.end(), '\n'));
    const int column = 1 + static_cast<int>(open - (line_start == npos ? 0 : line_start + 1));
    fail_(line, column, parsed ? last_scalar_->path : "",
          std::string("YAML syntax error: quoted value never closed (no closing ") + text_[open] +
              " before the end of the file)");
  }

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    if (stack_.empty()) root_is_null_ = true;
    begin_node(mark);
    set_anchor(anchor, 1, "?");
    end_node(1, "?");
  }

  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    const std::string path = begin_node(mark);
    const Anchor* a = anchor < anchors_.size() ? &anchors_[anchor] : nullptr;
    const std::string name = a ? a->name : "";
    if (!a || a->nodes == 0)
      report(mark, 0, path, "alias *" + name + " names a node that contains it (aliases may not form a cycle)");
    alias_nodes_ += a->nodes;
    if (alias_nodes_ > kMaxAliasNodes)
      report(mark, 0, path,
             "alias *" + name + ": aliases expand this document by more than " + std::to_string(kMaxAliasNodes) +
                 " nodes; write the repeated values out or share smaller parts");
    end_node(a->nodes, a->scalar);
  }

  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, const std::string& value) override {
    const bool is_key = !stack_.empty() && stack_.back().is_map && stack_.back().expect_key;
    const std::string path = begin_node(mark, is_key ? &value : nullptr);
    if (const size_t bad = utf8::first_invalid(value); bad != npos) {
      char byte[8];
      std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned>(static_cast<unsigned char>(value[bad])));
      report(mark, value_column_offset(mark, value, bad), path,
             std::string("not valid UTF-8 (byte ") + byte + "); YAML files and --set values must be UTF-8 text");
    }
    last_scalar_ = LastScalar{mark, is_key ? stack_.back().path : path};  // an open quoted key holds the rest of the text
    set_anchor(anchor, 1, value);
    end_node(1, value);
  }

  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, anchor, false);
  }
  void OnSequenceEnd() override { close(); }

  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    open(mark, anchor, true);
  }
  void OnMapEnd() override { close(); }

  void OnAnchor(const YAML::Mark&, const std::string& name) override { pending_anchor_name_ = name; }

 private:
  struct Frame {
    bool is_map = false;
    std::string path;
    YAML::Mark mark;
    YAML::anchor_t anchor = 0;
    std::uint64_t nodes = 1;  // this node and, so far, everything under it (aliases expanded)
    size_t index = 0;         // sequence: the next element's index
    bool expect_key = true;   // map: the next node is a key (else the value of `key`)
    std::string key;
    YAML::Mark key_mark;
    std::map<std::string, int, std::less<>> first_line;  // map: line of every key so far
  };
  struct Anchor {
    std::string name;
    std::uint64_t nodes = 0;  // 0 while the anchored node is still open
    std::string scalar;       // the text an alias of it stands for as a map key ("?" unless a scalar)
  };
  struct LastScalar {
    YAML::Mark mark;
    std::string path;
  };

  [[noreturn]] void report(const YAML::Mark& mark, int column_offset, const std::string& path,
                           const std::string& message) const {
    fail_(mark.line >= 0 ? mark.line + 1 : 0, mark.column >= 0 ? mark.column + 1 + column_offset : 0, path, message);
    throw std::logic_error("yaml check: the reporter returned");  // unreachable: fail_ throws
  }

  // How far right of the scalar's mark its `offset`-th byte is, when the scalar is written as is
  // (plain, or quoted without escapes, on one line); 0 when that cannot be told.
  int value_column_offset(const YAML::Mark& mark, const std::string& value, size_t offset) const {
    if (!raw_ || mark.pos < 0 || value.find('\n') != npos) return 0;
    const auto pos = static_cast<size_t>(mark.pos);
    if (text_.substr(pos, value.size()) == value) return static_cast<int>(offset);
    if (pos < text_.size() && (text_[pos] == '"' || text_[pos] == '\'') && text_.substr(pos + 1, value.size()) == value)
      return static_cast<int>(offset + 1);
    return 0;
  }

  // The key path of the node that starts now (`key`: its text when it is a scalar map key).
  std::string begin_node(const YAML::Mark& mark, const std::string* key = nullptr) {
    if (stack_.empty()) {
      saw_root_ = true;
      root_mark_ = mark;
      return root_path_;
    }
    Frame& parent = stack_.back();
    if (!parent.is_map) return index_path(parent.path, parent.index);
    if (parent.expect_key) {
      parent.key_mark = mark;
      return join_path(parent.path, key ? utf8::printable(*key) : "?");
    }
    return join_path(parent.path, parent.key);
  }

  // The node that started last is complete: it stands for `nodes` nodes; `key_text` is what it
  // reads as when it is a map key.
  void end_node(std::uint64_t nodes, const std::string& key_text) {
    if (stack_.empty()) return;
    Frame& parent = stack_.back();
    parent.nodes += nodes;
    if (!parent.is_map) {
      ++parent.index;
      return;
    }
    if (!parent.expect_key) {
      parent.expect_key = true;
      return;
    }
    // Keys were checked for UTF-8 as scalars, so the text can go into messages as it is.
    const int line = parent.key_mark.line + 1;
    if (auto it = parent.first_line.find(key_text); it != parent.first_line.end())
      report(parent.key_mark, 0, join_path(parent.path, key_text),
             "duplicate key (first at line " + std::to_string(it->second) + ")");
    parent.first_line.emplace(key_text, line);
    parent.key = key_text;
    parent.expect_key = false;
  }

  void set_anchor(YAML::anchor_t anchor, std::uint64_t nodes, const std::string& scalar) {
    if (anchor == 0) return;
    if (anchors_.size() <= anchor) anchors_.resize(anchor + 1);
    Anchor& a = anchors_[anchor];
    a.name = pending_anchor_name_;  // OnAnchor came just before the node it anchors
    pending_anchor_name_.clear();
    a.nodes = nodes;
    a.scalar = scalar;
  }

  void open(const YAML::Mark& mark, YAML::anchor_t anchor, bool is_map) {
    Frame frame;
    frame.path = begin_node(mark);  // a collection as a map key reads as "?"
    frame.is_map = is_map;
    frame.mark = mark;
    frame.anchor = anchor;
    set_anchor(anchor, 0, "?");
    stack_.push_back(std::move(frame));
  }

  void close() {
    const std::uint64_t nodes = stack_.back().nodes;
    const YAML::anchor_t anchor = stack_.back().anchor;
    stack_.pop_back();
    if (anchor != 0) anchors_[anchor].nodes = nodes;
    end_node(nodes, "?");
  }

  std::string_view text_;
  std::string root_path_;
  const Reporter& fail_;
  bool raw_;
  std::vector<Frame> stack_;
  std::vector<Anchor> anchors_;  // by yaml-cpp's anchor id (1, 2, ... in the order they appear)
  std::string pending_anchor_name_;
  std::uint64_t alias_nodes_ = 0;
  std::optional<LastScalar> last_scalar_;
  bool saw_root_ = false;
  bool root_is_null_ = false;
  YAML::Mark root_mark_ = YAML::Mark::null_mark();
};

}  // namespace

CheckedText check_text(const std::string& text, const std::string& root_path, const Reporter& fail) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  Checker first(text, root_path, fail);
  CheckedText out;
  try {
    out.empty = !parser.HandleNextDocument(first) || first.root_is_null();
  } catch (const YAML::Exception&) {
    first.check_last_scalar_closed(false);  // the likelier cause of whatever yaml-cpp tripped over
    throw;
  }
  first.check_last_scalar_closed(true);
  if (out.empty && first.saw_root() && first.root_mark().line >= 0) {
    out.line = first.root_mark().line + 1;
    out.column = first.root_mark().column + 1;
  }
  // A second document would be ignored by YAML::Load; refuse it unless it is empty.
  Checker second(text, root_path, fail);
  if (parser.HandleNextDocument(second) && !second.root_is_null()) {
    const YAML::Mark m = second.root_mark();
    fail(m.line >= 0 ? m.line + 1 : 0, m.column >= 0 ? m.column + 1 : 0, "",
         "a second YAML document (after '---'); a file holds one document");
  }
  return out;
}

}  // namespace partsim::yaml::detail
