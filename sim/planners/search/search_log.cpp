#include "sim/planners/search/search_log.hpp"

#include <charconv>

namespace partsim::search {
namespace {

// RFC 4180: a field in double quotes, its quotes doubled; a line break becomes a space.
std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += "\"\"";
    else if (c == '\n' || c == '\r') out += ' ';
    else out += c;
  }
  return out + "\"";
}

// The shortest text that reads back as exactly v.
std::string number(double v) {
  char buf[32];
  const auto result = std::to_chars(buf, buf + sizeof buf, v);
  return {buf, result.ptr};
}

}  // namespace

std::string search_log_csv(const std::vector<LogRow>& rows) {
  std::string out = "index,elapsed_s,move,origin,schedule,predicted_s,closed_form_s,usable,accepted,best_s,note\n";
  for (const LogRow& r : rows)
    out += std::to_string(r.index) + ',' + number(r.elapsed_s) + ',' + r.move + ',' + r.origin + ',' + r.schedule + ',' +
           number(r.predicted_s) + ',' + number(r.closed_s) + ',' + (r.usable ? "1" : "0") + ',' +
           (r.accepted ? "1" : "0") + ',' + number(r.best_s) + ',' + quoted(r.note) + '\n';
  return out;
}

}  // namespace partsim::search
