#include "topology/efficiency_table.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <tuple>

#include "sim/common/text.hpp"
#include "sim/common/yaml_reader.hpp"
#include "topology/spec_fields.hpp"

namespace partsim::topology {
namespace {

using yaml::ConfigNode;
using yaml::MapReader;

/// The bound rows of `table` read from `r` (all required: a row has no defaults).
template <class S, class Table>
void read_row_fields(MapReader& r, S& object, const Table& table) {
  for_each_field(table, [&](const auto& field) {
    if constexpr (!std::is_same_v<std::remove_cvref_t<decltype(field)>, HandField>) {
      using T = std::remove_cvref_t<decltype(object.*field.member)>;
      const ConfigNode n = r.required(field.key);
      T& value = object.*field.member;
      if constexpr (std::is_same_v<T, double>) {  // efficiency, a fraction
        value = n.as_double();
        if (!(value > 0.0 && value <= 1.0)) n.fail("must be in (0, 1] (got " + n.node().Scalar() + ")");
      } else if constexpr (std::is_same_v<T, std::string>) {  // shape, source
        value = n.as_string();
        if (value.empty()) n.fail("must not be empty");
      } else {
        static_assert(std::is_enum_v<T>);
        const auto& names = ChoiceNames<T>::names;
        const std::string chosen = n.as_enum(std::vector<std::string>(names.begin(), names.end()));
        value = static_cast<T>(std::find(names.begin(), names.end(), chosen) - names.begin());
      }
    }
  });
}

std::string name_of(OperatorClass op) { return std::string(ChoiceNames<OperatorClass>::names[static_cast<size_t>(op)]); }

}  // namespace

const BuiltinEfficiencyTable* find_builtin_efficiency_table(std::string_view name) {
  for (const auto& table : builtin_efficiency_tables())
    if (table.name == name) return &table;
  return nullptr;
}

std::string builtin_efficiency_table_names() {
  const auto& tables = builtin_efficiency_tables();
  if (tables.empty()) return "none";
  return join(tables, [](const auto& t) { return std::string(t.name); });
}

bool is_efficiency_table_path(std::string_view reference) {
  return reference.find('/') != std::string_view::npos || reference.ends_with(".yaml");
}

std::vector<EfficiencyPoint> parse_efficiency_table(const ConfigNode& root, std::string_view expected_name) {
  MapReader top(root);
  const ConfigNode table_node = top.required("table");
  const std::string table = table_node.as_string();
  if (table.empty()) table_node.fail("must not be empty");
  if (!expected_name.empty() && table != expected_name)
    table_node.fail("a built-in table's name must be its file's stem '" + std::string(expected_name) + "' (got '" +
                    table + "')");
  const ConfigNode device_node = top.required("device");
  if (device_node.as_string().empty()) device_node.fail("must not be empty");
  // peaks and measured document the table (the denominators and how it was measured); the device
  // type's own peaks are the ones the model uses.
  for (std::string_view key : {"peaks", "measured"})
    if (auto n = top.optional(key); n && !n->is_map()) n->fail("expected a map (documentation only)");

  const ConfigNode rows_node = top.required("rows");
  const auto rows = rows_node.elements();
  if (rows.empty()) rows_node.fail("must list at least one row");
  top.finish();

  static const std::vector<std::string> kPrecisions{"fp32", "fp16", "bf16"};
  std::vector<EfficiencyPoint> points;
  points.reserve(rows.size());
  // The last size of each (op, precision, pass): sizes must grow, so a curve is a function of size.
  std::map<std::tuple<OperatorClass, Precision, KernelPass>, double> last_size;
  for (const auto& row : rows) {
    MapReader r(row);
    EfficiencyPoint p;
    read_row_fields(r, p, kEfficiencyRowFields);  // op, pass, efficiency, shape, source
    const std::string precision = r.required("precision").as_enum(kPrecisions);
    p.precision = precision == "fp32" ? Precision::fp32 : precision == "fp16" ? Precision::fp16 : Precision::bf16;
    const ConfigNode size_node = r.required("size");
    p.size = size_node.as_double();
    if (!(p.size > 0)) size_node.fail("must be > 0 (got " + size_node.node().Scalar() + ")");
    r.finish();
    const auto key = std::tuple{p.op, p.precision, p.pass};
    if (auto it = last_size.find(key); it != last_size.end() && !(p.size > it->second))
      size_node.fail("sizes of " + name_of(p.op) + "/" + precision + "/" +
                     std::string(ChoiceNames<KernelPass>::names[static_cast<size_t>(p.pass)]) +
                     " must strictly increase in file order (got " + size_node.node().Scalar() + " after " +
                     units::format(it->second, units::Dimension::count) + ")");
    last_size[key] = p.size;
    points.push_back(std::move(p));
  }
  return points;
}

std::vector<EfficiencyPoint> load_efficiency_table(const std::string& reference, const std::string& base_directory,
                                                   const ConfigNode& at) {
  if (!is_efficiency_table_path(reference)) {
    const BuiltinEfficiencyTable* table = find_builtin_efficiency_table(reference);
    if (!table)
      at.fail("unknown built-in efficiency table '" + reference + "' (valid: " + builtin_efficiency_table_names() +
              "; a file path contains '/' or ends in .yaml)");
    return parse_efficiency_table(yaml::load_string(std::string(table->text), std::string(table->file)), table->name);
  }
  namespace fs = std::filesystem;
  fs::path path(reference);
  if (path.is_relative() && !base_directory.empty()) path = fs::path(base_directory) / path;
  std::error_code error;
  if (!fs::is_regular_file(path, error))
    at.fail("cannot read efficiency table file '" + path.string() + "'" +
            (base_directory.empty() ? std::string() : " (relative paths start at the platform file's directory)"));
  return parse_efficiency_table(yaml::load_file(path.string()));
}

}  // namespace partsim::topology
