#pragma once
// Reading a spec struct's bound keys from a YAML map by its field table (spec_fields.hpp): what every
// reader of the platform file shares (system_parser.cpp, collective_settings_reader.cpp). Internal to
// partsim_topology.

#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "sim/common/yaml_reader.hpp"
#include "topology/spec_fields.hpp"

namespace partsim::topology::field_reader {

using yaml::ConfigNode;
using yaml::MapReader;


/// Reads one bound row's value from `n` into its member of `object`.
template <class S, class T>
void read_value(const ConfigNode& n, S& object, const Field<S, T>& field) {
  T& value = object.*field.member;
  if constexpr (std::is_same_v<T, int>) {
    value = n.as_positive_int();
  } else if constexpr (std::is_same_v<T, double>) {
    if (field.unit.kind == FieldKind::fraction) {
      value = n.as_double();
      if (!(value > 0.0 && value <= 1.0)) n.fail("must be in (0, 1] (got " + n.node().Scalar() + ")");
    } else {
      value = n.as_quantity(field.unit.dimension, field.unit.positive);
    }
  } else if constexpr (std::is_same_v<T, bool>) {
    value = n.as_bool();
  } else if constexpr (std::is_same_v<T, std::string>) {
    value = n.as_string();
    if (field.unit.kind == FieldKind::name && value.empty()) n.fail("must not be empty");
  } else {
    static_assert(std::is_enum_v<T>);
    const auto& names = ChoiceNames<T>::names;
    const std::string chosen = n.as_enum(std::vector<std::string>(names.begin(), names.end()));
    value = static_cast<T>(std::find(names.begin(), names.end(), chosen) - names.begin());
  }
}

/// Reads the bound rows of `table` from `r`, in table order. A key left out keeps its member's value
/// (the initializer, or the preset's when `has_base`); a required key left out without a base is
/// an error. HandField rows are the caller's.
template <class S, class Table>
void read_fields(MapReader& r, S& object, const Table& table, bool has_base) {
  for_each_field(table, [&](const auto& field) {
    if constexpr (!std::is_same_v<std::remove_cvref_t<decltype(field)>, HandField>) {
      if (auto n = r.optional(field.key))
        read_value(*n, object, field);
      else if (field.need == Need::required && !has_base)
        r.required(field.key);  // throws "missing required key"
    }
  });
}

template <class Table>
bool has_required_keys(const Table& table) {
  bool any = false;
  for_each_field(table, [&](const auto& field) { any = any || field.need == Need::required; });
  return any;
}

}  // namespace partsim::topology::field_reader
