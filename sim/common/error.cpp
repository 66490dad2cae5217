#include "sim/common/error.hpp"

namespace partsim {
namespace {

std::string one_line(const std::string& text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if ((c < 0x20 && c != '\t') || c == 0x7F) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += ch;
    }
  }
  return out;
}

std::string format_location(const std::string& file, int line, int column, const std::string& key_path,
                            const std::string& message) {
  std::string out = file;
  if (line > 0) {
    out += ":" + std::to_string(line);
    if (column > 0) out += ":" + std::to_string(column);
  }
  if (!out.empty()) out += ": ";
  if (!key_path.empty()) out += key_path + ": ";
  return out + message;
}
}  // namespace

InputError::InputError(const std::string& what) : Error(one_line(what)) {}

ParseError::ParseError(std::string file, int line, int column, std::string key_path, std::string message)
    : InputError(format_location(file, line, column, key_path, message)),
      file_(std::move(file)),
      line_(line),
      column_(column),
      key_path_(std::move(key_path)),
      message_(std::move(message)) {}

UnknownNameError::UnknownNameError(const std::string& what_kind, const std::string& name,
                                   const std::string& valid_names)
    : InputError("unknown " + what_kind + " '" + name + "'; valid values are: " + valid_names) {}

}  // namespace partsim
