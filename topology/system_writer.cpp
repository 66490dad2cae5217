#include "topology/system_writer.hpp"

#include <yaml-cpp/yaml.h>

#include <string>
#include <type_traits>
#include <vector>

#include "sim/common/units.hpp"
#include "sim/common/yaml_reader.hpp"
#include "topology/gpu_cluster.hpp"
#include "topology/spec_fields.hpp"

namespace partsim::topology {
namespace {

using units::Dimension;

std::string q(double v, Dimension d) { return units::format(v, d); }

// ---- Field tables (spec_fields.hpp) ------------------------------------------------------------

/// Writes the bound rows of `table` as keys of the open map, in table order; an optional key is
/// left out while its member holds its initializer ("not given"). HandField rows are the caller's.
template <class S, class Table>
void write_fields(YAML::Emitter& out, const S& object, const Table& table) {
  for_each_field(table, [&](const auto& field) {
    if constexpr (!std::is_same_v<std::remove_cvref_t<decltype(field)>, HandField>) {
      const auto& value = object.*field.member;
      using T = std::remove_cvref_t<decltype(value)>;
      if (field.need == Need::optional && value == S{}.*field.member) return;
      out << YAML::Key << std::string(field.key) << YAML::Value;
      if constexpr (std::is_same_v<T, double>)
        // A fraction is a plain number; format() gives the shortest digits that read back exactly.
        out << q(value, field.unit.kind == FieldKind::fraction ? Dimension::count : field.unit.dimension);
      else if constexpr (std::is_enum_v<T>)
        out << std::string(ChoiceNames<T>::names[static_cast<size_t>(value)]);
      else
        out << value;  // int, bool, std::string
    }
  });
}

// ---- Device types -------------------------------------------------------------------------------

void emit_template(YAML::Emitter& out, const TemplateDevice& d) {
  out << YAML::Key << "kind" << YAML::Value << "template";
  for_each_template_level(d, [&](std::string_view key, const auto& part, const auto& table, bool one_line) {
    out << YAML::Key << std::string(key) << YAML::Value;
    if (one_line) out << YAML::Flow;
    out << YAML::BeginMap;
    write_fields(out, part, table);
    out << YAML::EndMap;
  });
}

void emit_roofline(YAML::Emitter& out, const RooflineDevice& d) {
  out << YAML::Key << "kind" << YAML::Value << "roofline";
  write_fields(out, d, kRooflineFields);
}

void emit_design(YAML::Emitter& out, const FpgaDesign& d) {
  out << YAML::Key << "kind" << YAML::Value << "design";
  write_fields(out, d, kDesignFields);
}

/// The rows stay in their table: `efficiency_table` is written as given.
void emit_calibrated(YAML::Emitter& out, const CalibratedDevice& d) {
  out << YAML::Key << "kind" << YAML::Value << "calibrated";
  write_fields(out, d, kCalibratedFields);
}

void emit_quantities(YAML::Emitter& out, const std::vector<double>& values, Dimension d) {
  out << YAML::Flow << YAML::BeginSeq;
  for (double v : values) out << q(v, d);
  out << YAML::EndSeq;
}

/// `collectives:`, left out while every setting is the default.
void emit_collectives(YAML::Emitter& out, const CollectiveSettings& settings) {
  if (settings == CollectiveSettings{}) return;
  out << YAML::Key << "collectives" << YAML::Value << YAML::BeginMap;
  if (!settings.algorithm.empty()) {
    out << YAML::Key << "algorithm" << YAML::Value << YAML::BeginMap;
    for (const auto& [collective, algorithm] : settings.algorithm)
      out << YAML::Key << collective << YAML::Value << algorithm;
    out << YAML::EndMap;
  }
  if (!settings.protocols.empty()) {
    out << YAML::Key << "protocols" << YAML::Value << YAML::BeginMap;
    for (const auto& protocol : settings.protocols) {
      out << YAML::Key << protocol.name << YAML::Value << YAML::Flow << YAML::BeginMap;
      write_fields(out, protocol, kProtocolFields);  // base_latency, step_latency, efficiency
      out << YAML::EndMap;
    }
    out << YAML::EndMap;
  }
  // channels, chunk, endpoint_overhead, protocol_efficiency, in_switch_efficiency
  write_fields(out, settings, kCollectiveFields);
  out << YAML::EndMap;
}

}  // namespace

std::string system_to_yaml(const SystemSpec& spec) {
  YAML::Emitter out;
  out << YAML::BeginMap << YAML::Key << "system" << YAML::Value << YAML::BeginMap;
  write_fields(out, spec, kSystemFields);  // name, description, precision

  out << YAML::Key << "device_types" << YAML::Value << YAML::BeginMap;
  for (const auto& [name, type] : spec.device_types) {
    out << YAML::Key << name << YAML::Value << YAML::BeginMap;
    write_fields(out, type, kDeviceTypeFields);  // description
    if (const auto* t = std::get_if<TemplateDevice>(&type.model))
      emit_template(out, *t);
    else if (const auto* d = std::get_if<FpgaDesign>(&type.model))
      emit_design(out, *d);
    else if (const auto* c = std::get_if<CalibratedDevice>(&type.model))
      emit_calibrated(out, *c);
    else
      emit_roofline(out, std::get<RooflineDevice>(type.model));
    out << YAML::EndMap;
  }
  out << YAML::EndMap;

  // A cluster writes its parameters (the expansion is regenerated on reading) and the groups it did not
  // generate.
  if (spec.cluster) {
    const ClusterTopology& c = *spec.cluster;
    out << YAML::Key << "cluster" << YAML::Value << YAML::BeginMap;
    write_fields(out, c, kClusterFields);
    out << YAML::Key << "oversubscription" << YAML::Value << q(c.oversubscription, Dimension::count);
    out << YAML::EndMap;
    const std::vector<DeviceGroup> generated = cluster_groups(c);
    size_t first_extra = 0;
    while (first_extra < generated.size() && first_extra < spec.groups.size() &&
           spec.groups[first_extra] == generated[first_extra])
      ++first_extra;
    if (first_extra < spec.groups.size()) {
      out << YAML::Key << "groups" << YAML::Value << YAML::BeginSeq;
      for (size_t i = first_extra; i < spec.groups.size(); ++i) {
        const auto& g = spec.groups[i];
        out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << g.name;
        out << YAML::Key << "devices" << YAML::Value << YAML::Flow << YAML::BeginSeq;
        for (int d : g.devices) out << spec.device_names.at(static_cast<size_t>(d));
        out << YAML::EndSeq << YAML::EndMap;
      }
      out << YAML::EndSeq;
    }
    emit_collectives(out, spec.collectives);
    out << YAML::EndMap << YAML::EndMap;
    return std::string(out.c_str()) + "\n";
  }

  // Devices as runs of one type; names written only where they differ from the default "d<i>".
  out << YAML::Key << "devices" << YAML::Value << YAML::BeginSeq;
  const int n = spec.device_count();
  for (int first = 0; first < n;) {
    int last = first;
    while (last + 1 < n && spec.device_type_of[static_cast<size_t>(last + 1)] == spec.device_type_of[static_cast<size_t>(first)])
      ++last;
    bool default_names = true;
    for (int i = first; i <= last; ++i)
      default_names = default_names && spec.device_names[static_cast<size_t>(i)] == "d" + std::to_string(i);
    out << YAML::BeginMap;
    out << YAML::Key << "type" << YAML::Value << spec.device_type_of[static_cast<size_t>(first)];
    out << YAML::Key << "count" << YAML::Value << (last - first + 1);
    if (!default_names) {
      out << YAML::Key << "names" << YAML::Value << YAML::Flow << YAML::BeginSeq;
      for (int i = first; i <= last; ++i) out << spec.device_names[static_cast<size_t>(i)];
      out << YAML::EndSeq;
    }
    out << YAML::EndMap;
    first = last + 1;
  }
  out << YAML::EndSeq;

  // Groups: left out when they are only the default "all" (every device, in order).
  bool default_groups = spec.groups.size() == 1 && spec.groups[0].name == "all" &&
                        static_cast<int>(spec.groups[0].devices.size()) == n;
  for (int i = 0; default_groups && i < n; ++i) default_groups = spec.groups[0].devices[static_cast<size_t>(i)] == i;
  if (!default_groups) {
    out << YAML::Key << "groups" << YAML::Value << YAML::BeginSeq;
    for (const auto& g : spec.groups) {
      out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << g.name;
      out << YAML::Key << "devices" << YAML::Value << YAML::Flow << YAML::BeginSeq;
      for (int d : g.devices) out << spec.device_names.at(static_cast<size_t>(d));
      out << YAML::EndSeq << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }

  if (spec.is_torus()) {
    const auto& t = spec.torus();
    out << YAML::Key << "torus" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "dims" << YAML::Value << YAML::Flow << t.dims;
    out << YAML::Key << "bandwidth" << YAML::Value;
    emit_quantities(out, t.bandwidth, Dimension::bandwidth);
    out << YAML::Key << "latency" << YAML::Value;
    emit_quantities(out, t.latency, Dimension::time);
    write_fields(out, t, kTorusFields);  // bidirectional
    out << YAML::EndMap;
  } else {
    const auto& g = spec.graph();
    out << YAML::Key << "graph" << YAML::Value << YAML::BeginMap;
    // Switches: plain names, and a map for a switch that reduces in flight.
    bool any_switch = false;
    for (const auto& node : g.nodes) {
      if (node.kind != NodeKind::switch_node) continue;
      if (!any_switch) out << YAML::Key << "switches" << YAML::Value << YAML::Flow << YAML::BeginSeq;
      any_switch = true;
      if (node.in_switch_reduction) {
        out << YAML::Flow << YAML::BeginMap << YAML::Key << "name" << YAML::Value << node.name;
        write_fields(out, node, kSwitchFields);  // in_switch_reduction
        out << YAML::EndMap;
      } else {
        out << node.name;
      }
    }
    if (any_switch) out << YAML::EndSeq;
    std::vector<std::string> hosts;
    for (const auto& node : g.nodes)
      if (node.kind == NodeKind::host) hosts.push_back(node.name);
    if (!hosts.empty()) out << YAML::Key << "hosts" << YAML::Value << YAML::Flow << hosts;
    out << YAML::Key << "links" << YAML::Value << YAML::BeginSeq;
    for (const auto& l : g.links) {
      out << YAML::Flow << YAML::BeginMap;
      out << YAML::Key << "a" << YAML::Value << l.a << YAML::Key << "b" << YAML::Value << l.b;
      write_fields(out, l, kLinkFields);  // bandwidth, latency, directed
      out << YAML::EndMap;
    }
    out << YAML::EndSeq << YAML::EndMap;
  }
  emit_collectives(out, spec.collectives);
  out << YAML::EndMap << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace partsim::topology
