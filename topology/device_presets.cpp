#include "topology/device_presets.hpp"

#include "sim/common/text.hpp"
#include "sim/common/yaml_reader.hpp"
#include "topology/system_parser.hpp"

namespace partsim::topology {
namespace {

// The presets are written in the platform schema itself (configs/README.md, "Device types") and read
// by the same parser as a file, so a preset's numbers are bit-identical to the same numbers written
// in a file, and system_to_yaml() of a preset device reads back to the identical spec.
constexpr const char* kPresets = R"(
# seed 003 (DeepSpatialMatrix) §IV, Fig. 10 baseline chip: 32 cores on a ring, 1024 FP16 MACs per core
# at 2 GHz, 1 MB scratchpad at 128 GB/s, 256 GB/s core to core, 8 GB HBM at 256 GB/s with 80 %
# efficiency. Not in the paper (choices, see configs/torus_8pf.yaml): the 1024 MACs as 8x8 PEs x 16
# SIMD lanes, 512 B register file, 8 SFPs x 16 lanes, 10 ns on-chip hop, 100 ns memory latency.
dsm_chip_8pf:
  kind: template
  description: "DeepSpatialMatrix baseline chip (DeepSpatialMatrix Fig. 10): 32 cores x 1024 FP16 MACs at 2 GHz = 131 TFLOP/s"
  pe: {simd_lanes: 16, register_file: 512B}
  pe_array: {rows: 8, cols: 8}
  core: {pe_arrays: 1, sfus: 8, sfu_lanes: 16, scratchpad: 1MiB, scratchpad_bandwidth: 128GB/s, frequency: 2GHz}
  chip: {cores: 32, interconnect: ring, core_to_core_bandwidth: 256GB/s, on_chip_latency: 10ns,
         memory: 8GiB, memory_bandwidth: 256GB/s, memory_efficiency: 0.8, memory_latency: 100ns}

# seed 000 (AccPar) Table 7 and §6.1. TPU-v3's 4800 GB/s is the paper's own assumption.
tpu_v2:
  kind: roofline
  description: "TPU-v2 board (AccPar Table 7, §6.1): 180 TFLOP/s, 64 GB HBM at 2400 GB/s, 8 Gb/s network"
  peak: 180TFLOP/s
  memory: 64GiB
  memory_bandwidth: 2400GB/s
  network_bandwidth: 8Gb/s
tpu_v3:
  kind: roofline
  description: "TPU-v3 board (AccPar Table 7, §6.1): 420 TFLOP/s, 128 GB HBM at 4800 GB/s, 16 Gb/s network"
  peak: 420TFLOP/s
  memory: 128GiB
  memory_bandwidth: 4800GB/s
  network_bandwidth: 16Gb/s

# seed 004 (MARS) Table II designs at 200 MHz, each with its own tiling model
# (sim/devices/fpga_designs.hpp): SuperLIP Tm,Tn,Tr,Tc = 64,7,7,14; systolic array row,col,vec =
# 11,13,8; Winograd n,Pn,Pm = 6,2,8. 1 GB DRAM and 8 Gb/s within a group (§VI-A). DRAM bandwidth
# 19.2 GB/s (one DDR4-2400 channel) is not in the paper: our choice.
f1_superlip:
  kind: design
  description: "MARS design 1, SuperLIP (MARS Table II, [14]): Tm,Tn,Tr,Tc = 64,7,7,14 at 200 MHz"
  design: superlip
  tm: 64
  tn: 7
  tr: 7
  tc: 14
  frequency: 200MHz
  memory: 1GiB
  memory_bandwidth: 19.2GB/s
  network_bandwidth: 8Gb/s
f1_systolic:
  kind: design
  description: "MARS design 2, systolic array (MARS Table II, [15]): row,col,vec = 11,13,8 at 200 MHz"
  design: systolic
  rows: 11
  cols: 13
  vec: 8
  frequency: 200MHz
  memory: 1GiB
  memory_bandwidth: 19.2GB/s
  network_bandwidth: 8Gb/s
f1_winograd:
  kind: design
  description: "MARS design 3, Winograd F(4x4,3x3) (MARS Table II, [16]): n,Pn,Pm = 6,2,8 at 200 MHz"
  design: winograd
  tile: 6
  pn: 2
  pm: 8
  frequency: 200MHz
  memory: 1GiB
  memory_bandwidth: 19.2GB/s
  network_bandwidth: 8Gb/s

# seed 001 (DeePa) §7.1 and §7.3 GPUs, from NVIDIA's datasheets (the paper names the GPUs only).
# Tesla K80 board = 2 GK210 GPUs; one GPU: 2496 CUDA cores x 2 FLOP x 875 MHz boost = 4.37 TFLOP/s
# fp32, 12 GB GDDR5 at 240 GB/s (the board's 24 GB and 480 GB/s halved), PCIe 3.0 x16 to the host
# (8 GT/s x 16 lanes x 128/130 / 8 = 15.75 GB/s per direction).
k80:
  kind: roofline
  description: "one GK210 GPU of a Tesla K80 board (NVIDIA datasheet): 4.37 TFLOP/s fp32 boost, 12 GB at 240 GB/s, PCIe 3.0 x16"
  peak: 4.37TFLOP/s
  memory: 12GB
  memory_bandwidth: 240GB/s
  network_bandwidth: 15.75GB/s
# Tesla P100 SXM2 (NVIDIA datasheet): 10.6 TFLOP/s fp32, 16 GB HBM2 at 732 GB/s, 4 NVLink 1.0 links
# of 20 GB/s per direction = 80 GB/s.
p100_sxm2:
  kind: roofline
  description: "Tesla P100 SXM2 (NVIDIA datasheet): 10.6 TFLOP/s fp32, 16 GB HBM2 at 732 GB/s, 4 NVLinks x 20 GB/s"
  peak: 10.6TFLOP/s
  memory: 16GB
  memory_bandwidth: 732GB/s
  network_bandwidth: 80GB/s

# Calibrated GPUs (docs/model.md "Calibrated devices"): datasheet peaks, and the achieved efficiency per
# operator class from the built-in table of the same name (configs/devices/<name>.yaml, with a source on
# every row), read where a platform uses the preset. memory_efficiency and compute_efficiency (for a class
# the table has no row for) keep their defaults: no sourced number.
#
# NVIDIA A100 Tensor Core GPU datasheet (2021, A100 80GB SXM column): TF32 156 TFLOP/s and FP16/BF16
# 312 TFLOP/s dense (the 312/624 figures with an asterisk are with sparsity), FP32 19.5 TFLOP/s,
# 80GB HBM2e at 2,039 GB/s. The datasheet's "80GB" is the 81920 MiB = 80 GiB that nvidia-smi reports as
# an A100-SXM4-80GB's total memory: we use 80 GiB.
a100_sxm4_80gb:
  kind: calibrated
  description: "NVIDIA A100 SXM4 80GB (datasheet): 156 TFLOP/s TF32, 312 TFLOP/s FP16/BF16 dense, 19.5 TFLOP/s FP32, 80 GiB HBM2e at 2039 GB/s"
  peak_fp32: 156TFLOP/s
  peak_fp16: 312TFLOP/s
  peak_vector: 19.5TFLOP/s
  memory: 80GiB
  memory_bandwidth: 2039GB/s
  efficiency_table: a100_sxm4_80gb
# NVIDIA H100 Tensor Core GPU datasheet (2023, H100 SXM column): TF32 989 TFLOP/s and BF16/FP16
# 1,979 TFLOP/s "with sparsity", so 494.7 and 989.4 TFLOP/s dense (the H100 whitepaper's dense
# figures); FP32 67 TFLOP/s (66.9 in the whitepaper, Table 3); 80GB HBM3 at 3.35 TB/s. Memory: the
# 81559 MiB that nvidia-smi reports as an H100 80GB HBM3's total (what a process can have).
h100_sxm5_80gb:
  kind: calibrated
  description: "NVIDIA H100 SXM5 80GB (datasheet): 494.7 TFLOP/s TF32, 989.4 TFLOP/s FP16/BF16 dense, 66.9 TFLOP/s FP32, 81559 MiB HBM3 at 3.35 TB/s"
  peak_fp32: 494.7TFLOP/s
  peak_fp16: 989.4TFLOP/s
  peak_vector: 66.9TFLOP/s
  memory: 81559MiB
  memory_bandwidth: 3.35TB/s
  efficiency_table: h100_sxm5_80gb
)";

std::vector<DeviceType> make_presets() {
  const yaml::ConfigNode root = yaml::load_string(kPresets, "<built-in device presets>");
  std::vector<DeviceType> presets;
  for (const auto& kv : root.node()) {
    const std::string name = kv.first.Scalar();
    // A calibrated preset's table is read where a platform uses the preset (resolve_efficiency_table),
    // so a table missing from this build is reported at that platform's line, not here.
    presets.push_back(parse_device_type(name, yaml::ConfigNode(kv.second, name, root.source_ptr()), {"", false}));
  }
  return presets;
}

}  // namespace

const std::vector<DeviceType>& device_presets() {
  static const std::vector<DeviceType> presets = make_presets();
  return presets;
}

const DeviceType* find_device_preset(const std::string& name) {
  for (const auto& p : device_presets())
    if (p.name == name) return &p;
  return nullptr;
}

std::string device_preset_names() {
  return join(device_presets(), [](const auto& p) { return p.name; });
}

}  // namespace partsim::topology
