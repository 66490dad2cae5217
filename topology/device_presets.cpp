#include "topology/device_presets.hpp"

namespace partsim::topology {
namespace {

constexpr double kGB = 1e9;
constexpr double kGiB = 1073741824.0;
constexpr double kMiB = 1048576.0;

// seed 003 (DeepSpatialMatrix) Fig. 10 baseline chip: 32 cores, 1024 FP16 MACs per core at 2 GHz,
// 1 MB scratchpad at 128 GB/s, ring with 256 GB/s core to core, 8 GB HBM at 256 GB/s, 80 % efficient.
// The split of the 1024 MACs into 8x8 PEs x 16 SIMD lanes, the SFPs, register file and latencies
// are not in the paper; they are this project's choices (see configs/torus_8pf.yaml).
DeviceType dsm_chip_8pf() {
  TemplateDevice chip;
  chip.core.pe.simd_lanes = 16;
  chip.core.pe.register_file_bytes = 512;
  chip.core.array.rows = 8;
  chip.core.array.cols = 8;
  chip.core.arrays = 1;
  chip.core.sfus = 8;
  chip.core.sfu_lanes = 16;
  chip.core.scratchpad_bytes = 1 * kMiB;
  chip.core.scratchpad_bandwidth = 128 * kGB;
  chip.core.frequency_hz = 2e9;
  chip.cores = 32;
  chip.interconnect = OnChipInterconnect::ring;
  chip.core_to_core_bandwidth = 256 * kGB;
  chip.on_chip_latency = 10e-9;
  chip.memory_bytes = 8 * kGiB;
  chip.memory_bandwidth = 256 * kGB;
  chip.memory_efficiency = 0.8;
  chip.memory_latency = 100e-9;
  return {"dsm_chip_8pf",
          "DeepSpatialMatrix baseline chip (seed 003 Fig. 10): 32 cores x 1024 FP16 MACs at 2 GHz = 131 TFLOP/s",
          chip};
}

DeviceType roofline(std::string name, std::string description, double peak, double memory, double memory_bw,
                    double network_bw) {
  return {std::move(name), std::move(description), RooflineDevice{peak, memory, memory_bw, network_bw}};
}

std::vector<DeviceType> make_presets() {
  std::vector<DeviceType> presets;
  presets.push_back(dsm_chip_8pf());
  // seed 000 (AccPar) Table 7 and §6.1: TPU-v2 board 180 TFLOP/s, 64 GB HBM, 2400 GB/s, 8 Gb/s network.
  presets.push_back(roofline("tpu_v2", "TPU-v2 board (seed 000 Table 7, §6.1): 180 TFLOP/s, 64 GB HBM at 2400 GB/s, 8 Gb/s",
                             180e12, 64 * kGiB, 2400 * kGB, 8e9 / 8));
  // seed 000 Table 7 and §6.1: TPU-v3 board 420 TFLOP/s, 128 GB HBM, 4800 GB/s (assumed there), 16 Gb/s.
  presets.push_back(roofline("tpu_v3", "TPU-v3 board (seed 000 Table 7, §6.1): 420 TFLOP/s, 128 GB HBM at 4800 GB/s, 16 Gb/s",
                             420e12, 128 * kGiB, 4800 * kGB, 16e9 / 8));
  // seed 004 (MARS) Table II: three FPGA designs at 200 MHz; peak = #PEs x 2 FLOP x 200 MHz (one MAC per
  // PE and cycle). 1 GB DRAM per FPGA and 8 Gb/s to the group's other FPGAs (§VI-A). The DRAM
  // bandwidth is not in the paper: 19.2 GB/s is one DDR4-2400 channel of the F1's VU9P boards (choice).
  presets.push_back(roofline("f1_superlip", "MARS design 1, SuperLIP (seed 004 Table II): 438 PEs at 200 MHz",
                             438 * 2 * 200e6, 1 * kGiB, 19.2 * kGB, 8e9 / 8));
  presets.push_back(roofline("f1_systolic", "MARS design 2, systolic array (seed 004 Table II): 572 PEs at 200 MHz",
                             572 * 2 * 200e6, 1 * kGiB, 19.2 * kGB, 8e9 / 8));
  presets.push_back(roofline("f1_winograd", "MARS design 3, Winograd (seed 004 Table II): 576 multipliers at 200 MHz",
                             576 * 2 * 200e6, 1 * kGiB, 19.2 * kGB, 8e9 / 8));
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
  std::string out;
  for (const auto& p : device_presets()) out += (out.empty() ? "" : ", ") + p.name;
  return out;
}

}  // namespace partsim::topology
