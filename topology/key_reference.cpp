#include "topology/key_reference.hpp"

#include <algorithm>
#include <set>
#include <string>
#include <type_traits>

#include "sim/common/error.hpp"
#include "sim/common/text.hpp"
#include "sim/common/units.hpp"
#include "topology/spec_fields.hpp"

namespace partsim::topology {
namespace {

using units::Dimension;

/// A table cell: '|' would end the cell, so it is escaped.
std::string cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

std::string code(std::string_view text) { return "`" + std::string(text) + "`"; }

std::string unit_text(const FieldUnit& unit, std::string_view choices) {
  switch (unit.kind) {
    case FieldKind::count: return "count";
    case FieldKind::quantity: {
      std::string word;
      switch (unit.dimension) {
        case Dimension::bytes: word = "size"; break;
        case Dimension::bandwidth: word = "bandwidth"; break;
        case Dimension::time: word = "time"; break;
        case Dimension::frequency: word = "frequency"; break;
        case Dimension::flop_rate: word = "compute rate"; break;
        case Dimension::count: word = "number"; break;
      }
      return unit.positive ? word : word + ", >= 0";
    }
    case FieldKind::fraction: return "number in (0, 1]";
    case FieldKind::choice: return std::string(choices);
    case FieldKind::flag: return "`true` | `false`";
    case FieldKind::text: return "string";
    case FieldKind::name: return "string, non-empty";
  }
  return "";
}

/// A member's initializer as the reference shows it.
template <class T>
std::string initial_text(const T& value, const FieldUnit& unit) {
  if constexpr (std::is_same_v<T, int>) {
    return std::to_string(value);
  } else if constexpr (std::is_same_v<T, double>) {
    return unit.kind == FieldKind::fraction ? units::format(value, Dimension::count)
                                            : code(units::format(value, unit.dimension));
  } else if constexpr (std::is_same_v<T, bool>) {
    return code(value ? "true" : "false");
  } else if constexpr (std::is_same_v<T, std::string>) {
    return value.empty() ? "\"\"" : code(value);
  } else {
    return code(ChoiceNames<T>::names[static_cast<size_t>(value)]);
  }
}

template <class T>
std::string choices_text() {
  if constexpr (std::is_enum_v<T>) return join(ChoiceNames<T>::names, [](auto c) { return code(c); }, " | ");
  return {};
}

std::string row(std::string_view prefix, const auto& field, std::string_view unit, std::string_view dflt) {
  return "| " + code(std::string(prefix) + std::string(field.key)) + " | " + cell(unit) + " | " +
         cell(field.default_text.empty() ? dflt : field.default_text) + " | " + cell(field.description) + " |\n";
}

/// Appends one row per key of `table` to `out`, keys prefixed with `prefix` ("pe.", "links[i].").
template <class S, class Table>
void add_rows(std::string& out, std::string_view prefix, const Table& table) {
  for_each_field(table, [&](const auto& field) {
    if constexpr (std::is_same_v<std::remove_cvref_t<decltype(field)>, HandField>) {
      out += row(prefix, field, field.unit, "required");
    } else {
      using T = std::remove_cvref_t<decltype(S{}.*field.member)>;
      const std::string dflt = field.need == Need::required ? "required" : initial_text(S{}.*field.member, field.unit);
      out += row(prefix, field, unit_text(field.unit, choices_text<T>()), dflt);
    }
  });
}

constexpr std::string_view kHeader = "| key | unit | default | meaning |\n| --- | --- | --- | --- |\n";
constexpr std::string_view kBegin = "<!-- keys: ";
constexpr std::string_view kBeginEnd = " -->";
constexpr std::string_view kEnd = "<!-- /keys -->";

}  // namespace

std::vector<std::string> key_reference_blocks() {
  return {"system", "device_type", "template", "roofline", "design", "calibrated", "efficiency_table",
          "devices", "groups", "torus", "graph", "star", "cluster", "collectives"};
}

std::string key_reference_table(std::string_view block) {
  std::string out(kHeader);
  if (block == "system") {
    add_rows<SystemSpec>(out, "", kSystemFields);
  } else if (block == "device_type") {
    add_rows<DeviceType>(out, "", kDeviceTypeFields);
  } else if (block == "template") {
    const TemplateDevice device{};
    for_each_template_level(device, [&](std::string_view key, const auto& part, const auto& table, bool) {
      add_rows<std::remove_cvref_t<decltype(part)>>(out, std::string(key) + ".", table);
    });
  } else if (block == "roofline") {
    add_rows<RooflineDevice>(out, "", kRooflineFields);
  } else if (block == "design") {
    add_rows<FpgaDesign>(out, "", kDesignFields);
  } else if (block == "calibrated") {
    add_rows<CalibratedDevice>(out, "", kCalibratedFields);
  } else if (block == "efficiency_table") {
    add_rows<CalibratedDevice>(out, "", kEfficiencyTableFields);
    add_rows<EfficiencyPoint>(out, "rows[i].", kEfficiencyRowFields);
  } else if (block == "devices") {
    add_rows<SystemSpec>(out, "", kDeviceEntryFields);
  } else if (block == "groups") {
    add_rows<DeviceGroup>(out, "", kGroupFields);
  } else if (block == "torus") {
    add_rows<TorusTopology>(out, "", kTorusFields);
  } else if (block == "graph") {
    add_rows<GraphTopology>(out, "", kGraphFields);
    add_rows<GraphNode>(out, "switches[i].", kSwitchFields);
    add_rows<GraphLink>(out, "links[i].", kLinkFields);
  } else if (block == "star") {
    add_rows<GraphTopology>(out, "", kStarFields);
  } else if (block == "cluster") {
    add_rows<ClusterTopology>(out, "", kClusterFields);
  } else if (block == "collectives") {
    add_rows<CollectiveSettings>(out, "", kCollectiveFields);
    add_rows<CollectiveProtocol>(out, "protocols.<name>.", kProtocolFields);
  } else {
    throw Error("no key reference block '" + std::string(block) + "'");
  }
  return out;
}

std::string update_key_reference(const std::string& text) {
  const std::vector<std::string> blocks = key_reference_blocks();
  std::set<std::string> seen;
  std::string out;
  std::string open;  // the block being replaced, "" outside one
  int open_line = 0;
  auto unclosed = [&] {
    return InputError("block '" + open + "' (line " + std::to_string(open_line) + ") has no end marker");
  };
  int line_number = 0;
  for (size_t pos = 0; pos < text.size();) {
    const size_t eol = std::min(text.find('\n', pos), text.size());
    const size_t next = std::min(eol + 1, text.size());
    const std::string_view line(text.data() + pos, eol - pos);
    const std::string where = "line " + std::to_string(++line_number) + ": ";
    const bool kept = open.empty();  // lines inside a block are the old table, replaced
    if (line.starts_with(kBegin) && line.ends_with(kBeginEnd)) {
      if (!open.empty()) throw unclosed();
      open = std::string(line.substr(kBegin.size(), line.size() - kBegin.size() - kBeginEnd.size()));
      open_line = line_number;
      if (std::find(blocks.begin(), blocks.end(), open) == blocks.end())
        throw InputError(where + "unknown key reference block '" + open + "'");
      if (!seen.insert(open).second) throw InputError(where + "block '" + open + "' appears twice");
      out.append(text, pos, next - pos);
      out += key_reference_table(open);
    } else if (line == kEnd) {
      if (open.empty()) throw InputError(where + "end marker without a block");
      open.clear();
      out.append(text, pos, next - pos);
    } else if (kept) {
      out.append(text, pos, next - pos);
    }
    pos = next;
  }
  if (!open.empty()) throw unclosed();
  for (const auto& b : blocks)
    if (!seen.count(b))
      throw InputError("key reference block '" + b + "' is missing (add \"" + std::string(kBegin) + b +
                       std::string(kBeginEnd) + "\" and \"" + std::string(kEnd) + "\")");
  return out;
}

}  // namespace partsim::topology
