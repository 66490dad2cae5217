#pragma once
// The platform spec: a validated, unit-resolved description of a multi-accelerator system.
// Parsed from YAML by parse_system() (system_parser.hpp), written back by system_to_yaml()
// (system_writer.hpp), each key declared once in spec_fields.hpp; consumed by the topology graph,
// the SimGrid platform builder, the cost models and the planners. Nothing here knows YAML or SimGrid.
//
// Units: every quantity is SI: bytes, seconds, bytes/s, Hz, FLOP/s. Bandwidths are per link and per
// direction (links are full duplex) unless a field says otherwise.
//
// The hardware template is DeepSpatialMatrix's (seed 003 §II-B): PE -> PE array -> core -> chip ->
// system. Roofline devices (TPU-v2/v3, FPGA designs of seed 000 and 004) are described by peaks.

#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace partsim::topology {

// ---- Devices --------------------------------------------------------------------------------

/// Processing element: a SIMD array of multiply-accumulate lanes and a register file (seed 003 Fig. 3).
struct PeSpec {
  int simd_lanes = 1;               // MACs per cycle per PE
  double register_file_bytes = 0;  // bytes

  bool operator==(const PeSpec&) const = default;
};

/// A systolic 2-D array of PEs.
struct PeArraySpec {
  int rows = 1;
  int cols = 1;

  bool operator==(const PeArraySpec&) const = default;
};

/// Core: PE arrays, special-function processors (SFPs), private scratchpad (seed 003 §II-B).
struct CoreSpec {
  PeSpec pe;
  PeArraySpec array;
  int arrays = 1;                      // PE arrays per core
  int sfus = 1;                        // special-function processors per core
  int sfu_lanes = 1;                   // element operations per cycle per SFP
  double scratchpad_bytes = 0;         // bytes
  double scratchpad_bandwidth = 0;     // bytes/s between PE arrays/SFPs and the scratchpad
  double frequency_hz = 0;             // Hz

  int macs_per_cycle() const { return pe.simd_lanes * array.rows * array.cols * arrays; }
  /// Peak FLOP/s of one core: 2 FLOP per MAC.
  double peak_flops() const { return 2.0 * macs_per_cycle() * frequency_hz; }

  bool operator==(const CoreSpec&) const = default;
};

enum class OnChipInterconnect { ring, split_bus };

/// Chip: cores on an on-chip ring or split bus, attached to an external memory.
struct TemplateDevice {
  CoreSpec core;
  int cores = 1;
  OnChipInterconnect interconnect = OnChipInterconnect::ring;
  double core_to_core_bandwidth = 0;  // bytes/s per on-chip link and direction
  double on_chip_latency = 0;         // s per on-chip hop
  double memory_bytes = 0;            // external memory capacity, bytes
  double memory_bandwidth = 0;        // peak external memory bandwidth, bytes/s
  double memory_efficiency = 1.0;     // fraction of the peak that is achieved, (0, 1]
  double memory_latency = 0;          // s

  double peak_flops() const { return core.peak_flops() * cores; }
  double effective_memory_bandwidth() const { return memory_bandwidth * memory_efficiency; }

  bool operator==(const TemplateDevice&) const = default;
};

/// Roofline device: peak compute, memory and network (TPU-v2/v3 of seed 000 Table 7, FPGA designs).
struct RooflineDevice {
  double peak_flops = 0;         // FLOP/s at the system's precision
  double memory_bytes = 0;       // bytes
  double memory_bandwidth = 0;   // bytes/s
  double network_bandwidth = 0;  // bytes/s per direction, the device's b_i in AccPar eq. 7

  bool operator==(const RooflineDevice&) const = default;
};

/// The accelerator designs of MARS (seed 004 Table II), each with its own tiling performance model
/// (sim/devices/fpga_designs.hpp).
enum class DesignKind { superlip, systolic, winograd };

/// An FPGA accelerator design (seed 004 §III "Accelerator designs"): a design kind, its tile
/// parameters and clock. Only the parameters of its own kind are given (the others stay 0).
struct FpgaDesign {
  DesignKind design = DesignKind::superlip;
  int tm = 0, tn = 0, tr = 0, tc = 0;  // SuperLIP [14]: tiles of output channels, input channels, rows, cols
  int rows = 0, cols = 0, vec = 0;     // systolic array [15]: PE rows, PE columns, SIMD vector per PE
  int tile = 0, pn = 0, pm = 0;        // Winograd [16]: input tile n, input / output channels in parallel
  double frequency_hz = 0;             // Hz
  double memory_bytes = 0;             // off-chip DRAM, bytes
  double memory_bandwidth = 0;         // bytes/s
  double network_bandwidth = 0;        // bytes/s per direction (0 = not given)

  /// Multipliers working each cycle: Tm x Tn, rows x cols x vec, n^2 x Pn x Pm.
  long long multipliers() const;
  /// 2 FLOP per multiplier and cycle (before Winograd's saving).
  double peak_flops() const { return 2.0 * static_cast<double>(multipliers()) * frequency_hz; }

  bool operator==(const FpgaDesign&) const = default;
};

enum class Precision { fp32, fp16, bf16, int8 };
int bytes_per_element(Precision p);  // fp32: 4, fp16/bf16: 2, int8: 1

/// The operator classes of the device model (sim/devices/device_model.hpp): what a calibrated
/// device's efficiency table is indexed by. gemm covers fully connected layers, plain matrix
/// products and LSTM gates; conv is a convolution (implicit GEMM); attention is the unfused
/// score-softmax-context chain, flash_attention the fused kernel; the others are memory-bound.
enum class OperatorClass { gemm, conv, attention, flash_attention, normalization, softmax, elementwise, embedding, optimizer };

/// Forward, or backward (input and weight gradients: a calibrated table does not tell them apart).
enum class KernelPass { fwd, bwd };

/// One row of a calibrated device's efficiency table: the achieved fraction of the peak for one
/// operator class, precision and pass, at one size of kernel. Compute-bound classes (gemm, conv,
/// attention, flash_attention): `size` is the kernel's FLOP and `efficiency` achieved FLOP/s over the
/// device's peak at that precision. Memory-bound classes: `size` is the bytes the kernel moves
/// (read + written) and `efficiency` achieved bytes/s over the peak memory bandwidth.
struct EfficiencyPoint {
  OperatorClass op = OperatorClass::gemm;
  Precision precision = Precision::bf16;
  KernelPass pass = KernelPass::fwd;
  double size = 0;        // FLOP or bytes, > 0
  double efficiency = 0;  // (0, 1]
  std::string shape;      // how it was measured, e.g. "m=n=k=4096" (documentation only)
  std::string source;     // where the number comes from (paper, guide, our microbenchmark + date)

  bool operator==(const EfficiencyPoint&) const = default;
};

/// Calibrated device (a GPU as it really runs): datasheet peaks per precision, and the achieved
/// efficiency per operator class, precision, pass and size from a table (data file with a source on
/// every row). sim/devices/device_model.hpp interpolates it (docs/model.md "Calibrated devices").
struct CalibratedDevice {
  double peak_fp32 = 0;        // FLOP/s, dense fp32 on the matrix units (TF32 where the framework uses it)
  double peak_fp16 = 0;        // FLOP/s, dense fp16 and bf16 on the matrix units
  double peak_vector = 0;      // FLOP/s, fp32 on the vector units (element-wise work)
  double memory_bytes = 0;     // HBM capacity, bytes
  double memory_bandwidth = 0; // peak HBM bandwidth, bytes/s
  double network_bandwidth = 0;  // bytes/s per direction (0 = not given: the topology's links decide)
  /// Achieved fraction of memory_bandwidth for a memory-bound class the table has no row for.
  double memory_efficiency = 1.0;
  /// Achieved fraction of the matrix peak for a compute-bound class the table has no row for.
  double compute_efficiency = 1.0;
  std::string efficiency_table;            // as written: a built-in table's name or a file path
  std::vector<EfficiencyPoint> efficiency; // the table's rows, in file order

  /// The dense matrix peak at `precision` (int8: the fp16 peak; no int8 rows are calibrated).
  double peak_flops(Precision precision) const { return precision == Precision::fp32 ? peak_fp32 : peak_fp16; }

  bool operator==(const CalibratedDevice&) const = default;
};

struct DeviceType {
  std::string name;
  std::string description;
  std::variant<TemplateDevice, RooflineDevice, FpgaDesign, CalibratedDevice> model;

  bool is_template() const { return std::holds_alternative<TemplateDevice>(model); }
  /// Peak FLOP/s at the system's `precision` (only a calibrated device has one per precision).
  double peak_flops(Precision precision) const {
    if (const auto* t = std::get_if<TemplateDevice>(&model)) return t->peak_flops();
    if (const auto* d = std::get_if<FpgaDesign>(&model)) return d->peak_flops();
    if (const auto* c = std::get_if<CalibratedDevice>(&model)) return c->peak_flops(precision);
    return std::get<RooflineDevice>(model).peak_flops;
  }
  double memory_bytes() const {
    return std::visit([](const auto& m) { return m.memory_bytes; }, model);
  }

  bool operator==(const DeviceType&) const = default;
};

// ---- Topologies -----------------------------------------------------------------------------

/// N-dimensional torus of devices; a ring is the 1-D case. Device index i has coordinates
/// c[0] = i % dims[0], c[1] = (i / dims[0]) % dims[1], ... (dimension 0 varies fastest, "X").
/// Routing is dimension-order (X first). Every device has a link to its +1 neighbour in every
/// dimension, and also to its -1 neighbour when bidirectional (a dimension of size 2 has one
/// neighbour, reached by one link pair; a dimension of size 1 has no links).
struct TorusTopology {
  std::vector<int> dims;            // devices along each dimension; product == device count
  std::vector<double> bandwidth;    // bytes/s per link and direction, one per dimension
  std::vector<double> latency;      // s per link, one per dimension
  bool bidirectional = true;        // false: links only towards +1 (seed 002's uni-directional ring)

  bool operator==(const TorusTopology&) const = default;
};

enum class NodeKind { device, switch_node, host };

/// A node of an explicit graph: devices are numbered in the order they appear.
struct GraphNode {
  std::string name;
  NodeKind kind = NodeKind::device;
  std::string device_type;  // devices only
  bool in_switch_reduction = false;  // switches only: reduces in the switch (NVLink SHARP-like)

  bool operator==(const GraphNode&) const = default;
};

/// A link between two nodes. Full duplex: `bandwidth` in each direction, unless `directed`,
/// in which case it carries traffic from `a` to `b` only.
struct GraphLink {
  std::string a;
  std::string b;
  double bandwidth = 0;  // bytes/s per direction
  double latency = 0;    // s
  bool directed = false;

  bool operator==(const GraphLink&) const = default;
};

/// Explicit graph of devices, switches and hosts (e.g. an AWS F1 instance). Routing: the path that
/// minimises the sum over its links of 1/bandwidth (seconds per byte), ties broken towards lower
/// node indices, so routes are deterministic and prefer fast links (F1: inside a group over the
/// ring, between groups through the host). The YAML shorthand `star` (every device on one switch,
/// link bandwidth = the device's network_bandwidth) is stored as a GraphTopology too.
struct GraphTopology {
  std::vector<GraphNode> nodes;
  std::vector<GraphLink> links;

  bool operator==(const GraphTopology&) const = default;
};

/// How the nodes of a GPU cluster are joined.
enum class ClusterFabric {
  rail_optimized,  // NIC r of every node on the leaf switches of rail r (DGX SuperPOD)
  fat_tree,        // every NIC of a node on one leaf switch; leaves joined by spines
};

/// A cluster of GPU nodes (DGX-style), described by its parameters: in each node every GPU has an
/// NVLink port to the node's switch (NVSwitch), and the node's NICs join an InfiniBand fabric. The
/// parser expands it into the GraphTopology it stands for (every consumer sees a graph); the spec
/// keeps the parameters so that --dump-config writes them and --set system.cluster.nodes=N works.
struct ClusterTopology {
  int nodes = 1;
  int gpus_per_node = 8;
  std::string device_type;          // a key of device_types: every GPU is of this type
  double nvlink_bandwidth = 0;      // bytes/s per GPU and direction, GPU <-> node switch
  double nvlink_latency = 0;        // s per NVLink hop
  /// Fraction of nvlink_bandwidth any payload gets (NVLink packet and protocol overhead): the
  /// expansion's NVLink links carry nvlink_bandwidth x nvlink_efficiency. 1: the line rate.
  double nvlink_efficiency = 1.0;
  bool in_switch_reduction = false; // the node switch reduces (NVLink SHARP, NVSwitch gen 3)
  int nics_per_node = 8;
  double nic_bandwidth = 0;         // bytes/s per NIC and direction
  double network_latency = 0;       // s per link of the InfiniBand fabric
  ClusterFabric fabric = ClusterFabric::rail_optimized;
  int switch_radix = 64;            // ports per InfiniBand switch
  double oversubscription = 1.0;    // leaf downlink / uplink bandwidth (1: non-blocking)

  bool operator==(const ClusterTopology&) const = default;
};

/// How the platform runs collectives (sim/collectives/algorithm_registry.hpp): the default
/// algorithm per collective (a plan may override it) and the parameters of real libraries (NCCL's
/// channels and chunks, per-message overheads, protocol efficiency), each with its source in the file.
/// One protocol of a collective library (NCCL's LL, LL128, Simple): what it costs per call and per
/// step, and the fraction of the bandwidth its payload gets. A collective runs with the protocol (of
/// those the platform lists) whose closed form is fastest for its size, as NCCL's tuner chooses.
struct CollectiveProtocol {
  std::string name;
  double base_latency = 0;  // s, once per collective call
  double step_latency = 0;  // s, per step (on top of CollectiveSettings::endpoint_overhead)
  double efficiency = 1.0;  // fraction of the bandwidth the payload gets, (0, 1]

  bool operator==(const CollectiveProtocol&) const = default;
};

struct CollectiveSettings {
  /// Collective name ("all_reduce", ...), or collective and torus axis ("all_reduce.x"), -> the
  /// algorithm's name. A collective not named here uses the built-in default for the topology.
  std::map<std::string, std::string> algorithm;
  int channels = 1;                 // concurrent rings/trees the payload is split over (NCCL channels)
  double chunk_bytes = 0;           // pipelining chunk of tree and chain algorithms (0: one chunk)
  double endpoint_overhead = 0;     // s per message, paid once per step by sender and receiver
  double protocol_efficiency = 1.0; // fraction of a link's bandwidth the payload gets, (0, 1]
  /// Fraction of the port bandwidth a reduction in the switch (algorithm in_switch, and hierarchical's
  /// phases inside a reducing switch) gets on top of the rest, (0, 1].
  double in_switch_efficiency = 1.0;
  /// The protocols a collective chooses among (in file order; ties go to the first). Empty: one
  /// protocol with no per-call cost and no extra per-step cost or efficiency.
  std::vector<CollectiveProtocol> protocols;

  bool operator==(const CollectiveSettings&) const = default;
};

/// A named set of devices (by device index), used by heterogeneous arrays and the planners.
struct DeviceGroup {
  std::string name;
  std::vector<int> devices;

  bool operator==(const DeviceGroup&) const = default;
};

// ---- The system -----------------------------------------------------------------------------

struct SystemSpec {
  std::string name;         // from the file's `name:` key
  std::string source_file;  // path it was read from ("" when built in code)
  std::string description;  // where the numbers come from
  Precision precision = Precision::fp16;
  /// What the file says that is probably a mistake ("file:line:col: key: message"): the programs
  /// print each as a warning. Not part of the machine (not written by system_to_yaml, not hashed).
  std::vector<std::string> warnings;

  std::map<std::string, DeviceType> device_types;
  /// Device i is of type device_types.at(device_type_of[i]). For a torus, devices are the torus
  /// positions in index order; for a graph, the graph's device nodes in order of appearance.
  std::vector<std::string> device_type_of;
  std::vector<DeviceGroup> groups;  // always at least one group, "all", unless the file names others
  /// Device i is called device_names[i] (unique; groups and graph links name devices by it).
  /// Default "d<i>" unless the file names them. Same length as device_type_of.
  std::vector<std::string> device_names;

  std::variant<TorusTopology, GraphTopology> topology;
  /// Set when the file describes a GPU cluster by its parameters; `topology` then holds the graph it
  /// expands to.
  std::optional<ClusterTopology> cluster;
  CollectiveSettings collectives;

  int device_count() const { return static_cast<int>(device_type_of.size()); }
  const DeviceType& device_type(int device) const { return device_types.at(device_type_of.at(device)); }
  bool is_torus() const { return std::holds_alternative<TorusTopology>(topology); }
  const TorusTopology& torus() const { return std::get<TorusTopology>(topology); }
  const GraphTopology& graph() const { return std::get<GraphTopology>(topology); }
  const DeviceGroup* find_group(const std::string& group_name) const;
  /// Sum of the devices' peak FLOP/s.
  double peak_flops() const;
  /// Index of the device called `device_name`, or -1.
  int device_index(const std::string& device_name) const;

  bool operator==(const SystemSpec&) const = default;
};

/// Identifies a platform in plans: 16 lower-case hex digits, FNV-1a 64 of system_to_yaml(spec) (the
/// --dump-config text, so --set overrides count and source_file does not).
std::string content_hash(const SystemSpec& spec);

}  // namespace partsim::topology
