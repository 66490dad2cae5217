#pragma once
// The platform file's keys, declared once: one field table per spec struct. Each row says
// {key, member, unit kind, need, description}; the parser (system_parser.cpp) reads the bound rows,
// the writer (system_writer.cpp) writes them, and key_reference.cpp turns every row into the key
// tables of configs/README.md (a test fails when those are stale).
//
// Contract:
// - A bound row (Field) is read, written and documented from the row alone; its default is the
//   member's initializer in system_spec.hpp (one place for code-built specs and files alike), or
//   the preset's value when a device type names a preset.
// - A HandField row is a key whose value is structural (a list of names, a sub-map, a value checked
//   against other keys): system_parser.cpp reads it and system_writer.cpp writes it by hand, and
//   the row documents it. A test checks that each map's allowed keys in the parser are exactly its
//   table's keys.
// - Bound rows are read and written in table order (so the first error in a file stays the first);
//   the reference lists every row in table order.
// Adding a key: the member (with its default) in system_spec.hpp, a row here, then
// build/bin/platform_key_reference configs/README.md to regenerate the reference.

#include <array>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>

#include "sim/common/units.hpp"
#include "topology/system_spec.hpp"

namespace partsim::topology {

/// How a bound key's value is written in a file.
enum class FieldKind {
  count,     // whole number > 0 (an int member)
  quantity,  // a number with its unit (a double member, SI); `positive`: > 0, else >= 0
  fraction,  // a plain number in (0, 1] (a double member)
  choice,    // one of ChoiceNames<E> (an enum member)
  flag,      // true | false (a bool member)
  text,      // any string (a std::string member)
  name,      // a non-empty string (a std::string member)
};

struct FieldUnit {
  FieldKind kind = FieldKind::count;
  units::Dimension dimension = units::Dimension::count;  // quantity only
  bool positive = true;                                  // quantity only: > 0, else >= 0
};

constexpr FieldUnit as_count() { return {FieldKind::count}; }
constexpr FieldUnit as_quantity(units::Dimension d) { return {FieldKind::quantity, d, true}; }
constexpr FieldUnit as_quantity_or_zero(units::Dimension d) { return {FieldKind::quantity, d, false}; }
constexpr FieldUnit as_fraction() { return {FieldKind::fraction}; }
constexpr FieldUnit as_choice() { return {FieldKind::choice}; }
constexpr FieldUnit as_flag() { return {FieldKind::flag}; }
constexpr FieldUnit as_text() { return {FieldKind::text}; }
constexpr FieldUnit as_name() { return {FieldKind::name}; }

enum class Need {
  required,   // must be given (in a device type: unless its preset gives it)
  defaulted,  // may be left out: the member keeps its value (initializer or preset); always written
  optional,   // may be left out; the initializer means "not given" and is then not written
};

/// The names of an enum's values, indexed by the value: what a file writes for it.
template <class E>
struct ChoiceNames;
template <>
struct ChoiceNames<OnChipInterconnect> {
  static constexpr std::array<std::string_view, 2> names{"ring", "split_bus"};
};
template <>
struct ChoiceNames<Precision> {
  static constexpr std::array<std::string_view, 4> names{"fp32", "fp16", "bf16", "int8"};
};
template <>
struct ChoiceNames<DesignKind> {
  static constexpr std::array<std::string_view, 3> names{"superlip", "systolic", "winograd"};
};
template <>
struct ChoiceNames<OperatorClass> {
  static constexpr std::array<std::string_view, 9> names{"gemm",          "conv",    "attention",
                                                        "flash_attention", "normalization", "softmax",
                                                        "elementwise",   "embedding", "optimizer"};
};
template <>
struct ChoiceNames<KernelPass> {
  static constexpr std::array<std::string_view, 2> names{"fwd", "bwd"};
};
template <>
struct ChoiceNames<ClusterFabric> {
  static constexpr std::array<std::string_view, 2> names{"rail_optimized", "fat_tree"};
};
static_assert(static_cast<int>(DesignKind::winograd) == 2, "ChoiceNames index the enums by value");
static_assert(static_cast<int>(OperatorClass::optimizer) == 8 && static_cast<int>(KernelPass::bwd) == 1 &&
                  static_cast<int>(ClusterFabric::fat_tree) == 1,
              "ChoiceNames index the enums by value");
static_assert(static_cast<int>(OnChipInterconnect::split_bus) == 1 && static_cast<int>(Precision::int8) == 3,
              "ChoiceNames index the enums by value");

/// A key bound to the member `member` (of type T) of the spec struct S.
template <class S, class T>
struct Field {
  std::string_view key;
  T S::*member;
  FieldUnit unit;
  Need need;
  std::string_view description;
  /// The reference's default column when the member's initializer does not say it (a default taken
  /// from a preset or another key); empty: "required" or the initializer.
  std::string_view default_text = {};
};
// Deduction from the member pointer, spelled out: clang before 17 has no aggregate deduction
// (the fuzz harnesses build with Debian's clang 14).
template <class S, class T, class... Rest>
Field(std::string_view, T S::*, Rest...) -> Field<S, T>;

/// A structural key, read and written by hand; the row documents it.
struct HandField {
  std::string_view key;
  std::string_view unit;  // the reference's unit column
  Need need;
  std::string_view description;
  std::string_view default_text = {};  // the default column; empty: "required"
};

/// A table is a std::tuple of rows (each bound row has its own member type); `visit(row)` for each
/// row in order.
template <class Table, class Visit>
constexpr void for_each_field(const Table& table, Visit&& visit) {
  std::apply([&](const auto&... row) { (visit(row), ...); }, table);
}

/// A bound row's kind fits its member's type; a row documents itself. Checked at compile time.
template <class S, class T>
constexpr bool well_formed(const Field<S, T>& f) {
  bool fits = false;
  switch (f.unit.kind) {
    case FieldKind::count: fits = std::is_same_v<T, int>; break;
    case FieldKind::quantity:
    case FieldKind::fraction: fits = std::is_same_v<T, double>; break;
    case FieldKind::choice: fits = std::is_enum_v<T>; break;
    case FieldKind::flag: fits = std::is_same_v<T, bool>; break;
    case FieldKind::text:
    case FieldKind::name: fits = std::is_same_v<T, std::string>; break;
  }
  return fits && f.member != nullptr && !f.key.empty() && !f.description.empty();
}
constexpr bool well_formed(const HandField& f) {
  return !f.key.empty() && !f.unit.empty() && !f.description.empty() &&
         (f.need == Need::required || !f.default_text.empty());
}
template <class Table>
constexpr bool well_formed_table(const Table& table) {
  bool ok = true;
  for_each_field(table, [&](const auto& row) { ok = ok && well_formed(row); });
  return ok;
}

// Rows: {key, member, unit, need, description[, default text]}; quantities are SI in the spec.
// ---- system: the top level (SystemSpec) ---------------------------------------------------------
inline constexpr std::tuple kSystemFields{
    Field{"name", &SystemSpec::name, as_name(), Need::required, "the platform's name (plans record it)"},
    Field{"description", &SystemSpec::description, as_text(), Need::optional, "where the numbers come from"},
    Field{"precision", &SystemSpec::precision, as_choice(), Need::defaulted,
          "number format of tensors: 4, 2, 2, 1 bytes per element"},
    HandField{"device_types", "map name -> device type", Need::optional,
              "device types (below); presets can also be placed directly", "`{}`"},
    HandField{"devices", "list of device entries", Need::required, "places the devices (below)",
              "required, non-empty"},
    HandField{"groups", "list of groups", Need::optional, "named groups of devices (below)", "`[]`"},
    HandField{"torus", "map", Need::required, "N-dimensional torus (below)",
              "exactly one of torus, graph, star, cluster"},
    HandField{"graph", "map", Need::required, "explicit graph of devices, switches and hosts (below)",
              "exactly one of torus, graph, star, cluster"},
    HandField{"star", "map", Need::required, "every device on one switch (below)",
              "exactly one of torus, graph, star, cluster"},
    HandField{"cluster", "map", Need::required,
              "a GPU cluster by its parameters, expanded into a graph (below); `devices` is then left out",
              "exactly one of torus, graph, star, cluster"},
    HandField{"collectives", "map", Need::optional, "how collectives run on this platform (below)",
              "built-in defaults"},
};

// ---- system.device_types.<name> (DeviceType): the keys of both kinds ---------------------------------
inline constexpr std::tuple kDeviceTypeFields{
    HandField{"preset", "name", Need::optional,
              "start from a built-in device type (list below); every other key then overrides one field and may "
              "be left out",
              "none"},
    HandField{"kind", "`template` | `roofline` | `design` | `calibrated`", Need::required,
              "required when there is no preset; must match the preset's kind", "the preset's kind"},
    Field{"description", &DeviceType::description, as_text(), Need::optional, "where the numbers come from",
          "the preset's, else \"\""},
};

// ---- kind: template (seed 003 §II-B, Fig. 3): one map per level, one struct per map -------------------
inline constexpr std::tuple kPeFields{
    Field{"simd_lanes", &PeSpec::simd_lanes, as_count(), Need::defaulted,
          "MAC lanes per processing element (MACs per cycle per PE)"},
    Field{"register_file", &PeSpec::register_file_bytes, as_quantity_or_zero(units::Dimension::bytes), Need::defaulted,
          "register file per PE"},
};

inline constexpr std::tuple kPeArrayFields{
    Field{"rows", &PeArraySpec::rows, as_count(), Need::required, "PE rows of the systolic array"},
    Field{"cols", &PeArraySpec::cols, as_count(), Need::required, "PE columns"},
};

/// The `core` map: CoreSpec's own fields (its `pe` and `array` members are the two maps above).
inline constexpr std::tuple kCoreFields{
    Field{"pe_arrays", &CoreSpec::arrays, as_count(), Need::defaulted, "PE arrays per core"},
    Field{"sfus", &CoreSpec::sfus, as_count(), Need::defaulted, "special-function processors (SFPs) per core"},
    Field{"sfu_lanes", &CoreSpec::sfu_lanes, as_count(), Need::defaulted, "element operations per cycle per SFP"},
    Field{"scratchpad", &CoreSpec::scratchpad_bytes, as_quantity(units::Dimension::bytes), Need::required,
          "private scratchpad per core"},
    Field{"scratchpad_bandwidth", &CoreSpec::scratchpad_bandwidth, as_quantity(units::Dimension::bandwidth),
          Need::required, "PE arrays/SFPs <-> scratchpad"},
    Field{"frequency", &CoreSpec::frequency_hz, as_quantity(units::Dimension::frequency), Need::required, "core clock"},
};

/// The `chip` map: TemplateDevice's own fields (its `core` member is the maps above).
inline constexpr std::tuple kChipFields{
    Field{"cores", &TemplateDevice::cores, as_count(), Need::required, "cores per chip"},
    Field{"interconnect", &TemplateDevice::interconnect, as_choice(), Need::defaulted,
          "on-chip network between cores"},
    Field{"core_to_core_bandwidth", &TemplateDevice::core_to_core_bandwidth, as_quantity(units::Dimension::bandwidth),
          Need::required, "per on-chip link and direction"},
    Field{"on_chip_latency", &TemplateDevice::on_chip_latency, as_quantity_or_zero(units::Dimension::time),
          Need::defaulted, "per on-chip hop"},
    Field{"memory", &TemplateDevice::memory_bytes, as_quantity(units::Dimension::bytes), Need::required,
          "external memory (HBM/DRAM) capacity"},
    Field{"memory_bandwidth", &TemplateDevice::memory_bandwidth, as_quantity(units::Dimension::bandwidth),
          Need::required, "peak external memory bandwidth"},
    Field{"memory_efficiency", &TemplateDevice::memory_efficiency, as_fraction(), Need::defaulted,
          "achieved fraction of the peak (DeepSpatialMatrix: 0.8)"},
    Field{"memory_latency", &TemplateDevice::memory_latency, as_quantity_or_zero(units::Dimension::time),
          Need::defaulted, "external memory access latency"},
};

/// The template's maps in file order, each filled from one table: visit(key, part of `device`,
/// table, written on one line). `Device` is TemplateDevice or const TemplateDevice.
template <class Device, class Visit>
void for_each_template_level(Device& device, Visit&& visit) {
  visit(std::string_view("pe"), device.core.pe, kPeFields, true);
  visit(std::string_view("pe_array"), device.core.array, kPeArrayFields, true);
  visit(std::string_view("core"), device.core, kCoreFields, false);
  visit(std::string_view("chip"), device, kChipFields, false);
}

// ---- kind: roofline (RooflineDevice): peaks only -----------------------------------------------------
inline constexpr std::tuple kRooflineFields{
    Field{"peak", &RooflineDevice::peak_flops, as_quantity(units::Dimension::flop_rate), Need::required,
          "peak FLOP/s at the system's precision"},
    Field{"memory", &RooflineDevice::memory_bytes, as_quantity(units::Dimension::bytes), Need::required,
          "device memory capacity"},
    Field{"memory_bandwidth", &RooflineDevice::memory_bandwidth, as_quantity(units::Dimension::bandwidth),
          Need::required, "device memory bandwidth"},
    // 0 stands for "not given": only the star topology needs it.
    Field{"network_bandwidth", &RooflineDevice::network_bandwidth, as_quantity(units::Dimension::bandwidth),
          Need::optional,
          "the bandwidth per direction of the device's link on a `star` (required there unless `star.bandwidth` "
          "is given); on other topologies the links' own bandwidths count (AccPar's b_i too) and a different "
          "value here is warned about",
          "none (0 = not given)"},
};

// ---- kind: design (FpgaDesign): a MARS accelerator design with its own tiling model (seed 004 Table II) ----
// Only the chosen design's tile keys are given (the parser checks them); the others stay 0 (not written).
inline constexpr std::tuple kDesignFields{
    Field{"design", &FpgaDesign::design, as_choice(), Need::required,
          "which performance model (sim/devices/fpga_designs.hpp): SuperLIP [14], systolic array [15], Winograd [16]"},
    Field{"tm", &FpgaDesign::tm, as_count(), Need::optional, "superlip: output channels unrolled (T_m)", "none"},
    Field{"tn", &FpgaDesign::tn, as_count(), Need::optional, "superlip: input channels unrolled (T_n)", "none"},
    Field{"tr", &FpgaDesign::tr, as_count(), Need::optional, "superlip: rows per buffer tile (T_r)", "none"},
    Field{"tc", &FpgaDesign::tc, as_count(), Need::optional, "superlip: columns per buffer tile (T_c)", "none"},
    Field{"rows", &FpgaDesign::rows, as_count(), Need::optional, "systolic: PE rows (over output channels)", "none"},
    Field{"cols", &FpgaDesign::cols, as_count(), Need::optional, "systolic: PE columns (over output columns)",
          "none"},
    Field{"vec", &FpgaDesign::vec, as_count(), Need::optional, "systolic: SIMD lanes per PE (over input channels)",
          "none"},
    Field{"tile", &FpgaDesign::tile, as_count(), Need::optional,
          "winograd: input tile n of F(n-2 x n-2, 3 x 3), >= 3", "none"},
    Field{"pn", &FpgaDesign::pn, as_count(), Need::optional, "winograd: input channels in parallel (P_n)", "none"},
    Field{"pm", &FpgaDesign::pm, as_count(), Need::optional, "winograd: output channels in parallel (P_m)", "none"},
    Field{"frequency", &FpgaDesign::frequency_hz, as_quantity(units::Dimension::frequency), Need::required,
          "design clock (MARS Table II: 200 MHz)"},
    Field{"memory", &FpgaDesign::memory_bytes, as_quantity(units::Dimension::bytes), Need::required,
          "off-chip DRAM capacity (a plan's shards must fit)"},
    Field{"memory_bandwidth", &FpgaDesign::memory_bandwidth, as_quantity(units::Dimension::bandwidth),
          Need::required, "off-chip DRAM bandwidth (tiles are double-buffered: overlapped with compute)"},
    Field{"network_bandwidth", &FpgaDesign::network_bandwidth, as_quantity(units::Dimension::bandwidth),
          Need::optional,
          "per direction: the device's link on a `star` (required there unless `star.bandwidth` is given); "
          "elsewhere the links count and a different value here is warned about",
          "none (0 = not given)"},
};

// ---- kind: calibrated (CalibratedDevice): datasheet peaks and a table of achieved efficiencies ----------
inline constexpr std::tuple kCalibratedFields{
    Field{"peak_fp32", &CalibratedDevice::peak_fp32, as_quantity(units::Dimension::flop_rate), Need::required,
          "dense fp32 peak of the matrix units (TF32 where the framework uses it): the denominator of fp32 rows"},
    Field{"peak_fp16", &CalibratedDevice::peak_fp16, as_quantity(units::Dimension::flop_rate), Need::required,
          "dense fp16 and bf16 peak of the matrix units: the denominator of fp16 and bf16 rows"},
    Field{"peak_vector", &CalibratedDevice::peak_vector, as_quantity(units::Dimension::flop_rate), Need::required,
          "fp32 peak of the vector units (element-wise work)"},
    Field{"memory", &CalibratedDevice::memory_bytes, as_quantity(units::Dimension::bytes), Need::required,
          "device memory (HBM) capacity"},
    Field{"memory_bandwidth", &CalibratedDevice::memory_bandwidth, as_quantity(units::Dimension::bandwidth),
          Need::required, "peak device memory bandwidth: the denominator of memory-bound rows"},
    Field{"network_bandwidth", &CalibratedDevice::network_bandwidth, as_quantity(units::Dimension::bandwidth),
          Need::optional, "per direction; only `star` reads it (a cluster's links come from `cluster`)",
          "none (0 = not given)"},
    Field{"memory_efficiency", &CalibratedDevice::memory_efficiency, as_fraction(), Need::defaulted,
          "achieved fraction of `memory_bandwidth` for a memory-bound operator class the table has no row for"},
    Field{"compute_efficiency", &CalibratedDevice::compute_efficiency, as_fraction(), Need::defaulted,
          "achieved fraction of the matrix peak for a compute-bound operator class the table has no row for"},
    Field{"efficiency_table", &CalibratedDevice::efficiency_table, as_name(), Need::required,
          "a built-in table's name (configs/devices/<name>.yaml, compiled in) or the path of a table file "
          "(contains '/' or ends in .yaml; relative to the platform file's directory); written back as given"},
};

// ---- efficiency table files (configs/devices/*.yaml): read into CalibratedDevice::efficiency ----------
inline constexpr std::tuple kEfficiencyTableFields{
    HandField{"table", "string, non-empty", Need::required,
              "the table's name; a built-in table's must be its file's stem"},
    HandField{"device", "string, non-empty", Need::required, "the device measured, as its vendor names it"},
    HandField{"peaks", "map", Need::optional, "the peaks the efficiencies divide by, with their source (documentation)",
              "none"},
    HandField{"measured", "map", Need::optional, "how and when the rows were measured (documentation)", "none"},
    HandField{"rows", "list", Need::required, "the measurements, below", "required, non-empty"},
};

inline constexpr std::tuple kEfficiencyRowFields{
    Field{"op", &EfficiencyPoint::op, as_choice(), Need::required, "operator class"},
    HandField{"precision", "`fp32` | `fp16` | `bf16`", Need::required, "number format of the kernel"},
    Field{"pass", &EfficiencyPoint::pass, as_choice(), Need::required,
          "forward, or backward (input and weight gradients together)"},
    HandField{"size", "number > 0", Need::required,
              "FLOP (compute-bound classes: gemm, conv, attention, flash_attention) or bytes moved (the others); "
              "strictly increasing within one (op, precision, pass) in file order"},
    Field{"efficiency", &EfficiencyPoint::efficiency, as_fraction(), Need::required,
          "achieved FLOP/s over the peak at that precision, or bytes/s over `memory_bandwidth`"},
    Field{"shape", &EfficiencyPoint::shape, as_name(), Need::required, "the kernel measured, e.g. `m=n=k=4096`"},
    Field{"source", &EfficiencyPoint::source, as_name(), Need::required,
          "where the number comes from (paper, guide, our microbenchmark with date)"},
};

// ---- system.devices[i]: entries that fill SystemSpec's device lists and groups -------------------------
inline constexpr std::tuple kDeviceEntryFields{
    HandField{"type", "name", Need::required, "a key of `device_types`, or a preset name (placed as is)"},
    HandField{"count", "count", Need::defaulted, "how many devices of this type", "1"},
    HandField{"names", "list of `count` strings", Need::defaulted,
              "device names (unique across the system); groups and graph links use them", "`d<index>`"},
    HandField{"group", "name", Need::optional,
              "adds these devices to the named group (created on first use; several entries may add to one group)",
              "none"},
};

// ---- system.groups[i] (DeviceGroup) ---------------------------------------------------------------
inline constexpr std::tuple kGroupFields{
    HandField{"name", "string", Need::required, "unique among all groups"},
    HandField{"devices", "list of device names", Need::required, "members, each at most once", "required, non-empty"},
};

// ---- system.torus (TorusTopology) -----------------------------------------------------------------
inline constexpr std::tuple kTorusFields{
    HandField{"dims", "list of counts", Need::required,
              "devices along each dimension; the product must equal the device count"},
    HandField{"bandwidth", "bandwidth, or a list with one per dimension", Need::required,
              "per link and per direction"},
    HandField{"latency", "time, >= 0, or a list with one per dimension", Need::required, "per link"},
    Field{"bidirectional", &TorusTopology::bidirectional, as_flag(), Need::defaulted,
          "`false`: links only towards the +1 neighbour (MCM paper's uni-directional ring)"},
};

// ---- system.graph (GraphTopology) and its links (GraphLink) -----------------------------------------
inline constexpr std::tuple kGraphFields{
    HandField{"switches", "list of names or maps (below)", Need::optional,
              "switch nodes (names unique among all nodes); a map `{name: s, in_switch_reduction: true}` marks a "
              "switch that reduces",
              "`[]`"},
    HandField{"hosts", "list of names", Need::optional, "host nodes (e.g. the F1's host CPU)", "`[]`"},
    HandField{"latency", "time, >= 0", Need::defaulted, "default latency of the links below", "`0s`"},
    HandField{"links", "list", Need::required, "links, below", "required, non-empty"},
};

/// A switch written as a map instead of a plain name (system.graph.switches[i]).
inline constexpr std::tuple kSwitchFields{
    HandField{"name", "string, non-empty", Need::required, "the switch's node name"},
    Field{"in_switch_reduction", &GraphNode::in_switch_reduction, as_flag(), Need::defaulted,
          "the switch reduces data in flight (NVLink SHARP-like), for in-switch collective algorithms"},
};

inline constexpr std::tuple kLinkFields{
    HandField{"a", "node name", Need::required, "one end (must exist)"},
    HandField{"b", "node name", Need::required, "the other end (must exist and differ from `a`)"},
    Field{"bandwidth", &GraphLink::bandwidth, as_quantity(units::Dimension::bandwidth), Need::required,
          "per direction (a full-duplex link carries it each way)"},
    // The parser sets the member to graph.latency before it reads the link.
    Field{"latency", &GraphLink::latency, as_quantity_or_zero(units::Dimension::time), Need::defaulted, "per link",
          "`graph.latency`"},
    Field{"directed", &GraphLink::directed, as_flag(), Need::optional, "`true`: carries traffic from `a` to `b` only"},
};

// ---- system.star: shorthand, stored (and written) as the GraphTopology it stands for ----------------
inline constexpr std::tuple kStarFields{
    HandField{"latency", "time, >= 0", Need::required, "per link (a device-to-device route has two links)"},
    HandField{"bandwidth", "bandwidth", Need::optional, "one bandwidth for every link instead",
              "each device's `network_bandwidth`"},
    HandField{"switch", "name", Need::defaulted, "the switch's node name", "`switch`"},
};

// ---- system.cluster (ClusterTopology): a GPU cluster, expanded into a graph (topology/gpu_cluster.hpp) ----
inline constexpr std::tuple kClusterFields{
    Field{"nodes", &ClusterTopology::nodes, as_count(), Need::defaulted, "GPU nodes (servers)"},
    Field{"gpus_per_node", &ClusterTopology::gpus_per_node, as_count(), Need::defaulted, "GPUs in each node"},
    Field{"device_type", &ClusterTopology::device_type, as_name(), Need::required,
          "every GPU's type: a key of `device_types`, or a preset name (placed as is)"},
    Field{"nvlink_bandwidth", &ClusterTopology::nvlink_bandwidth, as_quantity(units::Dimension::bandwidth),
          Need::required, "per GPU and direction, GPU <-> the node's switch (all of a GPU's NVLinks together)"},
    Field{"nvlink_latency", &ClusterTopology::nvlink_latency, as_quantity_or_zero(units::Dimension::time),
          Need::defaulted, "per NVLink hop (GPU -> switch or switch -> GPU)"},
    Field{"nvlink_efficiency", &ClusterTopology::nvlink_efficiency, as_fraction(), Need::defaulted,
          "fraction of nvlink_bandwidth any payload gets (packet and protocol overhead); the NVLink links carry "
          "nvlink_bandwidth x nvlink_efficiency"},
    Field{"in_switch_reduction", &ClusterTopology::in_switch_reduction, as_flag(), Need::defaulted,
          "the node switch reduces data in flight (NVLink SHARP, NVSwitch gen 3)"},
    Field{"nics_per_node", &ClusterTopology::nics_per_node, as_count(), Need::defaulted,
          "compute NICs per node, at most `gpus_per_node`; GPU g uses NIC g x nics_per_node / gpus_per_node"},
    Field{"nic_bandwidth", &ClusterTopology::nic_bandwidth, as_quantity(units::Dimension::bandwidth), Need::required,
          "per NIC and direction (the NIC and its cable to the leaf switch: one link)"},
    Field{"network_latency", &ClusterTopology::network_latency, as_quantity_or_zero(units::Dimension::time),
          Need::defaulted, "per link of the InfiniBand fabric (NIC -> leaf, leaf -> spine, ...)"},
    Field{"fabric", &ClusterTopology::fabric, as_choice(), Need::defaulted,
          "how the nodes' NICs are joined (expansion below)"},
    Field{"switch_radix", &ClusterTopology::switch_radix, as_count(), Need::defaulted,
          "ports per InfiniBand switch, even, >= 2: a leaf has radix/2 ports down and radix/2 up"},
    HandField{"oversubscription", "number >= 1", Need::defaulted,
              "a leaf's downlink over uplink bandwidth: the uplink to the spine carries radix/2 x nic_bandwidth / "
              "oversubscription (1: non-blocking)",
              "1"},
};

// ---- system.collectives (CollectiveSettings) ----------------------------------------------------
inline constexpr std::tuple kCollectiveFields{
    HandField{"algorithm", "map collective -> algorithm name", Need::optional,
              "default algorithm per collective (`all_reduce`) or per collective and torus axis (`all_reduce.x`); "
              "collectives: p2p, reduce_scatter, all_gather, all_reduce, broadcast, all_to_all, all_to_all_direct, "
              "rotate; algorithm names are checked by the collective registry",
              "`{}` (the built-in default for the topology)"},
    Field{"channels", &CollectiveSettings::channels, as_count(), Need::defaulted,
          "concurrent rings/trees the payload is split over (NCCL channels)"},
    Field{"chunk", &CollectiveSettings::chunk_bytes, as_quantity_or_zero(units::Dimension::bytes), Need::defaulted,
          "pipelining chunk of tree and chain algorithms (0: one chunk)"},
    Field{"endpoint_overhead", &CollectiveSettings::endpoint_overhead, as_quantity_or_zero(units::Dimension::time),
          Need::defaulted, "per message, paid once per step by the sender and the receiver"},
    Field{"protocol_efficiency", &CollectiveSettings::protocol_efficiency, as_fraction(), Need::defaulted,
          "fraction of a link's bandwidth the payload gets (protocol headers, flags)"},
    Field{"in_switch_efficiency", &CollectiveSettings::in_switch_efficiency, as_fraction(), Need::defaulted,
          "fraction of the port bandwidth a reduction in the switch gets, on top of protocol_efficiency "
          "(algorithm in_switch; hierarchical inside a reducing switch)"},
    HandField{"protocols", "map name -> {base_latency, step_latency, efficiency}", Need::optional,
              "the protocols a collective chooses among, as NCCL's LL, LL128 and Simple: the one whose closed form "
              "is fastest for the size runs (ties: the first listed)",
              "`{}` (one protocol: no per-call cost, endpoint_overhead per step, protocol_efficiency)"},
};

// ---- system.collectives.protocols.<name> (CollectiveProtocol) ---------------------------------
inline constexpr std::tuple kProtocolFields{
    Field{"base_latency", &CollectiveProtocol::base_latency, as_quantity_or_zero(units::Dimension::time),
          Need::defaulted, "once per collective call (NCCL tuning.cc baseLat)"},
    Field{"step_latency", &CollectiveProtocol::step_latency, as_quantity_or_zero(units::Dimension::time),
          Need::defaulted, "per step, on top of endpoint_overhead (NCCL tuning.cc hwLat)"},
    Field{"efficiency", &CollectiveProtocol::efficiency, as_fraction(), Need::defaulted,
          "fraction of the bandwidth the protocol's payload gets, on top of protocol_efficiency"},
};

static_assert(well_formed_table(kSystemFields) && well_formed_table(kDeviceTypeFields) &&
              well_formed_table(kPeFields) && well_formed_table(kPeArrayFields) && well_formed_table(kCoreFields) &&
              well_formed_table(kChipFields) && well_formed_table(kRooflineFields) && well_formed_table(kDesignFields) &&
              well_formed_table(kDeviceEntryFields) && well_formed_table(kGroupFields) &&
              well_formed_table(kTorusFields) && well_formed_table(kGraphFields) && well_formed_table(kLinkFields) &&
              well_formed_table(kStarFields) && well_formed_table(kCalibratedFields) &&
              well_formed_table(kEfficiencyTableFields) && well_formed_table(kEfficiencyRowFields) &&
              well_formed_table(kSwitchFields) && well_formed_table(kClusterFields) &&
              well_formed_table(kCollectiveFields) && well_formed_table(kProtocolFields));

}  // namespace partsim::topology
