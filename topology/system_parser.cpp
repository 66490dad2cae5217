#include "topology/system_parser.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/connected_components.hpp>
#include <boost/graph/strong_components.hpp>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <type_traits>
#include <variant>
#include <vector>

#include "sim/common/text.hpp"
#include "sim/common/units.hpp"
#include "sim/common/yaml_reader.hpp"
#include "topology/collective_settings_reader.hpp"
#include "topology/device_presets.hpp"
#include "topology/efficiency_table.hpp"
#include "topology/link_bandwidth.hpp"
#include "topology/field_reader.hpp"
#include "topology/gpu_cluster.hpp"
#include "topology/spec_fields.hpp"

namespace partsim::topology {
namespace {

using field_reader::has_required_keys;
using field_reader::read_fields;
using units::Dimension;
using yaml::ConfigNode;
using yaml::MapReader;

// ---- Small readers ------------------------------------------------------------------------------


/// A list of names, each a non-empty string, with the node of each (for errors).
std::vector<std::pair<std::string, ConfigNode>> read_names(const ConfigNode& list) {
  std::vector<std::pair<std::string, ConfigNode>> out;
  for (const auto& e : list.elements()) {
    std::string s = e.as_string();
    if (s.empty()) e.fail("a name must not be empty");
    out.emplace_back(std::move(s), e);
  }
  return out;
}

// Indexed by DeviceType::model's alternative.
const std::vector<std::string> kKinds{"template", "roofline", "design", "calibrated"};

/// The `kind` word of a device model (kKinds, by the variant's index).
std::string kind_of(const DeviceType& type) { return kKinds.at(type.model.index()); }

// ---- Device types -----------------------------------------------------------------------------

TemplateDevice read_template(MapReader& r, const TemplateDevice* base) {
  TemplateDevice d = base ? *base : TemplateDevice{};
  const bool b = base != nullptr;

  // Each level of seed 003's template (§II-B, Fig. 3) is one map; a missing map is read as empty,
  // so a preset's values (or the defaults) stand. Without a preset, a level with required keys must
  // be there (the error then points at the device type's line).
  auto section = [&](std::string_view key, bool required_keys) {
    if (auto n = r.optional(key)) return MapReader(*n);
    if (required_keys && !b) r.required(key);  // throws: missing required key
    // An empty map at this key, so "missing required key" names e.g. system.device_types.x.pe_array.rows.
    ConfigNode empty(YAML::Node(YAML::NodeType::Map), yaml::join_path(r.node().path(), key), r.node().source_ptr());
    return MapReader(empty);
  };
  for_each_template_level(d, [&](std::string_view key, auto& part, const auto& table, bool /*one_line*/) {
    MapReader level = section(key, has_required_keys(table));
    read_fields(level, part, table, b);
    level.finish();
  });
  return d;
}

RooflineDevice read_roofline(MapReader& r, const RooflineDevice* base) {
  RooflineDevice d = base ? *base : RooflineDevice{};
  read_fields(r, d, kRooflineFields, base != nullptr);
  return d;
}

/// A design's tile keys: those of its own kind must be given (directly or by its preset), no others.
FpgaDesign read_design(MapReader& r, const FpgaDesign* base) {
  FpgaDesign d = base ? *base : FpgaDesign{};
  read_fields(r, d, kDesignFields, base != nullptr);
  struct Key {
    const char* key;
    int FpgaDesign::*member;
    DesignKind kind;
  };
  static const Key keys[] = {{"tm", &FpgaDesign::tm, DesignKind::superlip},  {"tn", &FpgaDesign::tn, DesignKind::superlip},
                             {"tr", &FpgaDesign::tr, DesignKind::superlip},  {"tc", &FpgaDesign::tc, DesignKind::superlip},
                             {"rows", &FpgaDesign::rows, DesignKind::systolic}, {"cols", &FpgaDesign::cols, DesignKind::systolic},
                             {"vec", &FpgaDesign::vec, DesignKind::systolic},   {"tile", &FpgaDesign::tile, DesignKind::winograd},
                             {"pn", &FpgaDesign::pn, DesignKind::winograd},   {"pm", &FpgaDesign::pm, DesignKind::winograd}};
  const std::string design(ChoiceNames<DesignKind>::names[static_cast<std::size_t>(d.design)]);
  for (const Key& k : keys) {
    if (k.kind == d.design && d.*k.member <= 0)
      r.required(k.key);  // throws: missing required key
    if (k.kind != d.design && d.*k.member != 0) {
      if (auto n = r.optional(k.key)) n->fail("not a key of design " + design);
      d.*k.member = 0;  // a preset of another design: its tiles do not apply
    }
  }
  if (d.design == DesignKind::winograd && d.tile < 3)
    if (auto n = r.optional("tile")) n->fail("must be >= 3 (F(n-2 x n-2, 3 x 3)), got " + std::to_string(d.tile));
  return d;
}

CalibratedDevice read_calibrated(MapReader& r, const CalibratedDevice* base) {
  CalibratedDevice d = base ? *base : CalibratedDevice{};
  read_fields(r, d, kCalibratedFields, base != nullptr);
  // A table named anew replaces the preset's rows; they are read by resolve_efficiency_table.
  if (base && d.efficiency_table != base->efficiency_table) d.efficiency.clear();
  return d;
}

/// Where a problem finding a device type's efficiency table is reported: its `efficiency_table` key
/// when the file writes one; the device type's map (naming that key) when the table comes from its
/// preset; `node` itself when it is a preset's name placed directly (devices[i].type,
/// cluster.device_type).
ConfigNode table_key(const ConfigNode& node) {
  if (!node.is_map()) return node;
  if (YAML::Node key = node.node()["efficiency_table"]; key.IsDefined() && !key.IsNull())
    return ConfigNode(key, yaml::join_path(node.path(), "efficiency_table"), node.source_ptr());
  return ConfigNode(node.node(), yaml::join_path(node.path(), "efficiency_table"), node.source_ptr());
}

}  // namespace

void resolve_efficiency_table(DeviceType& type, const ConfigNode& at, const std::string& base_directory) {
  auto* calibrated = std::get_if<CalibratedDevice>(&type.model);
  if (!calibrated || !calibrated->efficiency.empty()) return;
  calibrated->efficiency = load_efficiency_table(calibrated->efficiency_table, base_directory, table_key(at));
}

DeviceType parse_device_type(const std::string& name, const ConfigNode& node, const DeviceTypeContext& context) {
  MapReader r(node);
  const DeviceType* preset = nullptr;
  if (auto p = r.optional("preset")) {
    const std::string preset_name = p->as_string();
    preset = find_device_preset(preset_name);
    if (!preset) p->fail("unknown preset '" + preset_name + "' (valid: " + device_preset_names() + ")");
  }
  std::string kind;
  if (auto k = r.optional("kind")) {
    kind = k->as_enum(kKinds);
    if (preset && kind != kind_of(*preset))
      k->fail("preset '" + preset->name + "' is a " + kind_of(*preset) + " device (got kind " + kind + ")");
  } else if (preset) {
    kind = kind_of(*preset);
  } else {
    ConfigNode(node.node(), yaml::join_path(node.path(), "kind"), node.source_ptr())
        .fail("missing required key: give kind (template, roofline, design or calibrated) or a preset (valid: " +
              device_preset_names() + ")");
  }

  DeviceType type;
  type.name = name;
  if (preset) type.description = preset->description;
  read_fields(r, type, kDeviceTypeFields, preset != nullptr);
  if (kind == "template")
    type.model = read_template(r, preset ? &std::get<TemplateDevice>(preset->model) : nullptr);
  else if (kind == "design")
    type.model = read_design(r, preset ? &std::get<FpgaDesign>(preset->model) : nullptr);
  else if (kind == "calibrated")
    type.model = read_calibrated(r, preset ? &std::get<CalibratedDevice>(preset->model) : nullptr);
  else
    type.model = read_roofline(r, preset ? &std::get<RooflineDevice>(preset->model) : nullptr);
  r.finish();
  if (context.read_efficiency_table) resolve_efficiency_table(type, node, context.base_directory);
  return type;
}

namespace {

void read_device_types(const ConfigNode& node, SystemSpec& spec, const std::string& base_directory) {
  if (!node.is_map()) node.fail("expected a map from device type names to device types");
  for (const auto& kv : node.node()) {
    const ConfigNode key(kv.first, node.path(), node.source_ptr());
    const std::string name = key.as_string();
    const ConfigNode at_key(kv.first, yaml::join_path(node.path(), name), node.source_ptr());
    if (name.empty()) at_key.fail("a device type name must not be empty");
    if (spec.device_types.count(name)) at_key.fail("duplicate device type name '" + name + "'");
    spec.device_types[name] =
        parse_device_type(name, ConfigNode(kv.second, at_key.path(), node.source_ptr()), {base_directory, true});
  }
}

// ---- Devices and groups -----------------------------------------------------------------------

struct DeviceGroupsFromEntries {
  std::vector<std::string> order;  // group names in order of first appearance
  std::map<std::string, std::vector<int>> devices;
};

/// Makes sure `type` is a device type of `spec`: a key of device_types, or a preset placed directly by
/// its name (its efficiency table read now); else fails at `type_node`.
void require_device_type(const std::string& type, const ConfigNode& type_node, SystemSpec& spec,
                         const std::string& base_directory) {
  if (spec.device_types.count(type)) return;
  if (const DeviceType* p = find_device_preset(type)) {
    DeviceType placed = *p;
    resolve_efficiency_table(placed, type_node, base_directory);
    spec.device_types[type] = std::move(placed);
    return;
  }
  std::vector<std::string> defined;
  for (const auto& [n, t] : spec.device_types) defined.push_back(n);
  type_node.fail("unknown device type '" + type + "' (defined: " + (defined.empty() ? "none" : join(defined)) +
                 "; presets: " + device_preset_names() + ")");
}

DeviceGroupsFromEntries read_devices(const ConfigNode& node, SystemSpec& spec, const std::string& base_directory) {
  DeviceGroupsFromEntries groups;
  auto entries = node.elements();
  if (entries.empty()) node.fail("must list at least one device");
  std::map<std::string, int> seen_names;
  for (const auto& entry : entries) {
    MapReader r(entry);
    const ConfigNode type_node = r.required("type");
    const std::string type = type_node.as_string();
    require_device_type(type, type_node, spec, base_directory);  // a preset can be placed directly by its name
    int count = 1;
    if (auto c = r.optional("count")) count = c->as_positive_int();
    if (count > 1'000'000) r.required("count").fail("is too large (got " + std::to_string(count) + ", at most 1000000)");
    const int first = spec.device_count();
    // The whole platform is bounded too: twenty entries of a million devices would run for minutes
    // (and the device indices are ints).
    if (first + count > 1'000'000)
      r.required("count").fail("makes " + std::to_string(static_cast<long long>(first) + count) +
                               " devices in all, more than a platform may have (at most 1000000)");
    std::vector<std::string> names;
    if (auto n = r.optional("names")) {
      auto listed = n->elements(static_cast<size_t>(count), "one per device (count)");
      for (const auto& e : listed) {
        std::string s = e.as_string();
        if (s.empty()) e.fail("a device name must not be empty");
        if (seen_names.count(s)) e.fail("duplicate device name '" + s + "'");
        seen_names[s] = 1;
        names.push_back(std::move(s));
      }
    } else {
      for (int i = 0; i < count; ++i) {
        std::string s = "d" + std::to_string(first + i);
        if (seen_names.count(s)) entry.fail("duplicate device name '" + s + "' (the default name of device " +
                                            std::to_string(first + i) + ")");
        seen_names[s] = 1;
        names.push_back(std::move(s));
      }
    }
    for (int i = 0; i < count; ++i) {
      spec.device_type_of.push_back(type);
      spec.device_names.push_back(names[static_cast<size_t>(i)]);
    }
    if (auto g = r.optional("group")) {
      const std::string group = g->as_string();
      if (group.empty()) g->fail("a group name must not be empty");
      if (!groups.devices.count(group)) groups.order.push_back(group);
      for (int i = 0; i < count; ++i) groups.devices[group].push_back(first + i);
    }
    r.finish();
  }
  return groups;
}

void read_groups(std::optional<ConfigNode> node, DeviceGroupsFromEntries from_entries, SystemSpec& spec) {
  for (const auto& name : from_entries.order) spec.groups.push_back({name, from_entries.devices[name]});
  if (node) {
    for (const auto& entry : node->elements()) {
      MapReader r(entry);
      const ConfigNode name_node = r.required("name");
      const std::string name = name_node.as_string();
      if (name.empty()) name_node.fail("a group name must not be empty");
      if (spec.find_group(name)) name_node.fail("duplicate group name '" + name + "'");
      DeviceGroup group{name, {}};
      std::set<int> members;
      for (const auto& [device, at] : read_names(r.required("devices"))) {
        const int index = spec.device_index(device);
        if (index < 0) at.fail("unknown device '" + device + "' (devices are " + spec.device_names.front() + " ... " +
                               spec.device_names.back() + ")");
        if (!members.insert(index).second) at.fail("device '" + device + "' is listed twice");
        group.devices.push_back(index);
      }
      if (group.devices.empty()) r.required("devices").fail("a group must list at least one device");
      r.finish();
      spec.groups.push_back(std::move(group));
    }
  }
  if (spec.groups.empty()) {
    DeviceGroup all{"all", {}};
    for (int i = 0; i < spec.device_count(); ++i) all.devices.push_back(i);
    spec.groups.push_back(std::move(all));
  }
}

// ---- Topologies -------------------------------------------------------------------------------

/// One value per torus dimension: a list of exactly `dims` elements, or one value for all.
std::vector<double> per_dimension(const ConfigNode& node, size_t dims, Dimension dim, bool positive) {
  std::vector<double> out;
  if (node.is_scalar()) {
    out.assign(dims, node.as_quantity(dim, positive));
  } else {
    for (const auto& e : node.elements(dims, "one per torus dimension")) out.push_back(e.as_quantity(dim, positive));
  }
  return out;
}

TorusTopology read_torus(const ConfigNode& node, const SystemSpec& spec) {
  MapReader r(node);
  TorusTopology t;
  const ConfigNode dims_node = r.required("dims");
  auto dims = dims_node.elements();
  if (dims.empty()) dims_node.fail("must list at least one dimension");
  long long product = 1;
  for (const auto& d : dims) {
    t.dims.push_back(d.as_positive_int());
    product *= t.dims.back();
    if (product > 1'000'000'000) dims_node.fail("product of dims is too large");
  }
  if (product != spec.device_count())
    dims_node.fail("product of dims is " + std::to_string(product) + ", but the system has " +
                   std::to_string(spec.device_count()) + " devices");
  t.bandwidth = per_dimension(r.required("bandwidth"), t.dims.size(), Dimension::bandwidth, true);
  t.latency = per_dimension(r.required("latency"), t.dims.size(), Dimension::time, false);
  read_fields(r, t, kTorusFields, false);  // bidirectional
  r.finish();
  return t;
}

/// Every device must reach every other, and no switch or host may stand apart (Boost.Graph
/// connected_components on the undirected view, strong_components on the directed one).
void check_connected(const GraphTopology& g, const ConfigNode& at) {
  const size_t n = g.nodes.size();
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < n; ++i) index[g.nodes[i].name] = i;

  boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS> undirected(n);
  boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS> directed(n);
  for (const auto& l : g.links) {
    const size_t a = index.at(l.a), b = index.at(l.b);
    boost::add_edge(a, b, undirected);
    boost::add_edge(a, b, directed);
    if (!l.directed) boost::add_edge(b, a, directed);
  }
  std::vector<int> component(n);
  if (n > 0 && boost::connected_components(undirected, component.data()) > 1) {
    for (size_t i = 1; i < n; ++i)
      if (component[i] != component[0])
        at.fail("graph is disconnected: no path between '" + g.nodes[0].name + "' and '" + g.nodes[i].name + "'");
  }
  std::vector<int> strong(n);
  boost::strong_components(directed, strong.data());
  std::optional<size_t> first_device;
  for (size_t i = 0; i < n; ++i) {
    if (g.nodes[i].kind != NodeKind::device) continue;
    if (!first_device) {
      first_device = i;
    } else if (strong[i] != strong[*first_device]) {
      at.fail("graph is not strongly connected: directed links give no path in both directions between '" +
              g.nodes[*first_device].name + "' and '" + g.nodes[i].name + "'");
    }
  }
}

GraphTopology read_graph(const ConfigNode& node, const SystemSpec& spec) {
  MapReader r(node);
  GraphTopology g;
  std::map<std::string, size_t> index;
  for (int i = 0; i < spec.device_count(); ++i) {
    index[spec.device_names[static_cast<size_t>(i)]] = g.nodes.size();
    g.nodes.push_back({spec.device_names[static_cast<size_t>(i)], NodeKind::device, spec.device_type_of[static_cast<size_t>(i)]});
  }
  auto add_nodes = [&](std::string_view key, NodeKind kind) {
    if (auto list = r.optional(key)) {
      for (const auto& [name, at] : read_names(*list)) {
        if (index.count(name)) at.fail("duplicate node name '" + name + "'");
        index[name] = g.nodes.size();
        g.nodes.push_back({name, kind, ""});
      }
    }
  };
  // Switches: a name, or a map {name, in_switch_reduction} for a switch that reduces in flight.
  if (auto list = r.optional("switches")) {
    for (const auto& entry : list->elements()) {
      GraphNode switch_node{"", NodeKind::switch_node, "", false};
      // Where the name is written (a ConfigNode is not reassigned: YAML::Node's operator= would
      // overwrite the node it refers to).
      std::optional<ConfigNode> name_at;
      if (entry.is_map()) {
        MapReader sr(entry);
        name_at.emplace(sr.required("name"));
        read_fields(sr, switch_node, kSwitchFields, false);  // in_switch_reduction
        sr.finish();
      } else {
        name_at.emplace(entry);
      }
      switch_node.name = name_at->as_string();
      if (switch_node.name.empty()) name_at->fail("a name must not be empty");
      if (index.count(switch_node.name)) name_at->fail("duplicate node name '" + switch_node.name + "'");
      index[switch_node.name] = g.nodes.size();
      g.nodes.push_back(std::move(switch_node));
    }
  }
  add_nodes("hosts", NodeKind::host);
  double default_latency = 0.0;
  if (auto l = r.optional("latency")) default_latency = l->as_quantity(Dimension::time, false);

  const ConfigNode links_node = r.required("links");
  std::set<std::tuple<std::string, std::string, std::string>> seen;
  for (const auto& entry : links_node.elements()) {
    MapReader lr(entry);
    GraphLink link;
    for (auto [key, field] : {std::pair{"a", &link.a}, std::pair{"b", &link.b}}) {
      const ConfigNode end = lr.required(key);
      *field = end.as_string();
      if (!index.count(*field)) {
        std::vector<std::string> names;
        for (const auto& nd : g.nodes) names.push_back(nd.name);
        end.fail("unknown node '" + *field + "' (nodes: " + join(names) + ")");
      }
    }
    if (link.a == link.b) lr.required("b").fail("a link must join two different nodes (got '" + link.a + "' twice)");
    link.latency = default_latency;  // unless the link gives its own
    read_fields(lr, link, kLinkFields, false);  // bandwidth, latency, directed
    lr.finish();
    // At most one link per unordered pair, or one per direction when directed.
    const auto pair = std::minmax(link.a, link.b);
    const bool duplicate = link.directed ? seen.count({pair.first, pair.second, ""}) || seen.count({link.a, link.b, "d"})
                                         : seen.count({pair.first, pair.second, ""}) || seen.count({link.a, link.b, "d"}) ||
                                               seen.count({link.b, link.a, "d"});
    if (duplicate) entry.fail("duplicate link between '" + link.a + "' and '" + link.b + "'");
    if (link.directed)
      seen.insert({link.a, link.b, "d"});
    else
      seen.insert({pair.first, pair.second, ""});
    g.links.push_back(std::move(link));
  }
  if (g.links.empty()) links_node.fail("must list at least one link");
  r.finish();
  check_connected(g, node);
  return g;
}

/// `star`: every device on one switch, at the device's network_bandwidth (AccPar eq. 7's b_i) unless
/// `bandwidth` gives one for all.
GraphTopology read_star(const ConfigNode& node, const SystemSpec& spec) {
  MapReader r(node);
  GraphTopology g;
  std::optional<double> bandwidth;
  if (auto b = r.optional("bandwidth")) bandwidth = b->as_quantity(Dimension::bandwidth);
  const double latency = r.required("latency").as_quantity(Dimension::time, false);
  std::string switch_name = "switch";
  if (auto s = r.optional("switch")) {
    switch_name = s->as_string();
    if (switch_name.empty()) s->fail("a switch name must not be empty");
    if (spec.device_index(switch_name) >= 0) s->fail("duplicate node name '" + switch_name + "' (a device has it)");
  } else if (spec.device_index(switch_name) >= 0) {
    node.fail("a device is called 'switch'; give the switch another name with star.switch");
  }
  r.finish();
  for (int i = 0; i < spec.device_count(); ++i) {
    const auto& name = spec.device_names[static_cast<size_t>(i)];
    g.nodes.push_back({name, NodeKind::device, spec.device_type_of[static_cast<size_t>(i)]});
  }
  g.nodes.push_back({switch_name, NodeKind::switch_node, ""});
  for (int i = 0; i < spec.device_count(); ++i) {
    double bw = 0;
    if (bandwidth) {
      bw = *bandwidth;
    } else {
      const DeviceType& t = spec.device_type(i);
      if (const auto* rd = std::get_if<RooflineDevice>(&t.model)) bw = rd->network_bandwidth;
      if (const auto* fd = std::get_if<FpgaDesign>(&t.model)) bw = fd->network_bandwidth;
      if (bw <= 0)
        node.fail("device '" + spec.device_names[static_cast<size_t>(i)] + "' (type " + t.name +
                  ") has no network_bandwidth; give one in its device type or star.bandwidth");
    }
    g.links.push_back({spec.device_names[static_cast<size_t>(i)], switch_name, bw, latency, false});
  }
  return g;
}

// ---- GPU clusters (gpu_cluster.hpp) -------------------------------------------------------------

/// Reads `system.cluster` and expands it into spec's devices, groups and graph.
void read_cluster(const ConfigNode& node, SystemSpec& spec, const std::string& base_directory) {
  MapReader r(node);
  ClusterTopology cluster;
  read_fields(r, cluster, kClusterFields, false);
  if (auto o = r.optional("oversubscription")) {
    cluster.oversubscription = o->as_double();
    if (!(cluster.oversubscription >= 1.0)) o->fail("must be >= 1 (got " + o->node().Scalar() + ")");
  }
  r.finish();
  require_device_type(cluster.device_type, r.required("device_type"), spec, base_directory);
  if (const ClusterProblem problem = cluster_problem(cluster); !problem.key.empty()) {
    if (auto at = r.optional(problem.key)) at->fail(problem.message);
    ConfigNode(node.node(), yaml::join_path(node.path(), problem.key), node.source_ptr()).fail(problem.message);
  }
  expand_cluster(cluster, spec);
}

}  // namespace

// ---- Public API -------------------------------------------------------------------------------

SystemSpec parse_system(const ConfigNode& root, const std::string& base_directory) {
  MapReader top(root);
  const ConfigNode system_node = top.required("system");
  top.finish();

  MapReader r(system_node);
  SystemSpec spec;
  spec.source_file = root.source().file;
  read_fields(r, spec, kSystemFields, false);  // name, description, precision

  const std::optional<ConfigNode> types_node = r.optional("device_types");
  if (types_node) read_device_types(*types_node, spec, base_directory);
  if (auto cluster = r.optional("cluster")) {
    // The cluster places the devices and makes the groups `all` and `node<i>`; `groups` adds more.
    if (auto d = r.optional("devices"))
      d->fail("must be left out with cluster: the cluster places its GPUs (node<i>.gpu<g>)");
    read_cluster(*cluster, spec, base_directory);
    read_groups(r.optional("groups"), {}, spec);
  } else {
    auto groups = read_devices(r.required("devices"), spec, base_directory);
    read_groups(r.optional("groups"), std::move(groups), spec);
  }
  if (auto c = r.optional("collectives")) spec.collectives = read_collective_settings(*c);

  // Exactly one topology.
  static const std::vector<std::string> kTopologies{"torus", "graph", "star", "cluster"};
  std::optional<ConfigNode> chosen;
  std::string chosen_key;
  for (const auto& key : kTopologies) {
    if (auto n = r.optional(key)) {
      if (chosen) n->fail("only one topology may be given (already have " + chosen_key + ")");
      chosen = n;
      chosen_key = key;
    }
  }
  r.finish();
  if (!chosen) system_node.fail("missing topology: give one of torus, graph, star, cluster");
  if (chosen_key == "torus")
    spec.topology = read_torus(*chosen, spec);
  else if (chosen_key == "graph")
    spec.topology = read_graph(*chosen, spec);
  else if (chosen_key == "star")
    spec.topology = read_star(*chosen, spec);  // a cluster was expanded above
  // One source per physical parameter (issue 41): a device type's network_bandwidth that its links
  // contradict is named, since nothing reads it then (link_bandwidth.hpp).
  // Only a key the file writes is named (a preset's value, e.g. the F1 designs' 8 Gb/s for a star,
  // is the file's business only when it writes one), at that key.
  if (types_node && types_node->is_map())
    for (const auto& c : network_bandwidth_warnings(spec, chosen_key == "torus" ? "torus.bandwidth" : chosen_key)) {
      const YAML::Node type = types_node->node()[c.type];
      if (!type.IsDefined() || !type.IsMap() || !type["network_bandwidth"].IsDefined()) continue;
      ConfigNode(type["network_bandwidth"],
                 yaml::join_path(yaml::join_path(types_node->path(), c.type), "network_bandwidth"), types_node->source_ptr())
          .warn(c.message);
    }
  spec.warnings = *root.source().warnings;
  return spec;
}

SystemSpec load_system(const std::string& file, const std::vector<std::string>& overrides) {
  // Relative paths in the file (efficiency tables) start at its directory.
  return parse_system(yaml::load_file(file, overrides), std::filesystem::path(file).parent_path().string());
}

}  // namespace partsim::topology
