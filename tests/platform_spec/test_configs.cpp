// The shipped configs load and carry the papers' numbers. Expected values are computed by hand from
// the papers (arithmetic in the comments), not copied from the program's output.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>

#include "tests/support/platform_yaml.hpp"
#include "topology/device_presets.hpp"
#include "topology/efficiency_table.hpp"
#include "topology/system_parser.hpp"
#include "topology/system_writer.hpp"

namespace {

using namespace partsim::topology;

constexpr double kGiB = 1073741824.0;
constexpr double kMiB = 1048576.0;

/// The overrides a shipped config needs in this build: the DGX configs' presets name the efficiency
/// tables configs/devices/{a100_sxm4_80gb,h100_sxm5_80gb}.yaml; while a table is not there (not
/// built in), its device type takes the test table instead, so the rest of the config is checked.
std::vector<std::string> overrides_for(const std::string& name) {
  for (const auto& [config, table] : {std::pair{"dgx_a100.yaml", "a100_sxm4_80gb"}, std::pair{"dgx_h100.yaml", "h100_sxm5_80gb"}})
    if (name == config && !find_builtin_efficiency_table(table))
      return {"system.device_types.gpu.efficiency_table=" + std::string(PARTSIM_TEST_DATA_DIR) + "/tables/test_gpu.yaml"};
  return {};
}

SystemSpec load(const std::string& name) {
  return load_system(std::string(PARTSIM_SOURCE_DIR) + "/configs/" + name, overrides_for(name));
}

/// Every shipped platform file (configs/*.yaml), so a new one is checked without editing this list.
std::vector<std::string> shipped_configs() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(PARTSIM_SOURCE_DIR) + "/configs"))
    if (entry.path().extension() == ".yaml") names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}
const std::vector<std::string> kConfigs = shipped_configs();

TEST(PlatformConfigs, Torus8pf) {
  const SystemSpec s = load("torus_8pf.yaml");
  EXPECT_EQ(s.name, "torus_8pf");
  EXPECT_EQ(s.precision, Precision::fp16);
  ASSERT_EQ(s.device_count(), 64);
  ASSERT_TRUE(s.is_torus());
  EXPECT_EQ(s.torus().dims, (std::vector<int>{4, 16}));
  EXPECT_EQ(s.torus().bandwidth, (std::vector<double>{80e9, 80e9}));  // seed 003 Fig. 10, per link and direction
  ASSERT_EQ(s.torus().latency.size(), 2u);
  EXPECT_DOUBLE_EQ(s.torus().latency[0], 500e-9);  // "500ns" is 500 x 1e-9, within an ulp of 5e-7
  EXPECT_DOUBLE_EQ(s.torus().latency[1], 500e-9);
  EXPECT_FALSE(s.torus().bidirectional);  // seed 003: one outgoing link per dimension, 80 + 80 = 160 GB/s
  const auto& chip = std::get<TemplateDevice>(s.device_type(0).model);
  EXPECT_EQ(chip.cores, 32);
  EXPECT_EQ(chip.core.macs_per_cycle(), 1024);  // 8 x 8 PEs x 16 lanes
  EXPECT_DOUBLE_EQ(chip.core.frequency_hz, 2e9);
  EXPECT_DOUBLE_EQ(chip.core.scratchpad_bytes, 1 * kMiB);
  EXPECT_DOUBLE_EQ(chip.core.scratchpad_bandwidth, 128e9);
  EXPECT_EQ(chip.interconnect, OnChipInterconnect::ring);
  EXPECT_DOUBLE_EQ(chip.core_to_core_bandwidth, 256e9);
  EXPECT_DOUBLE_EQ(chip.memory_bytes, 8 * kGiB);
  // 256 GB/s at 80 % efficiency = 204.8 GB/s.
  EXPECT_DOUBLE_EQ(chip.effective_memory_bandwidth(), 204.8e9);
  // One chip: 32 cores x 1024 MACs x 2 FLOP x 2e9 Hz = 1.31072e14 FLOP/s.
  EXPECT_DOUBLE_EQ(chip.peak_flops(), 1.31072e14);
  // System: 64 x 1.31072e14 = 8.388608e15 FLOP/s, seed 003's "8 PFLOPs".
  EXPECT_DOUBLE_EQ(s.peak_flops(), 8.388608e15);
  ASSERT_EQ(s.groups.size(), 1u);
  EXPECT_EQ(s.groups[0].name, "all");
  EXPECT_EQ(s.groups[0].devices.size(), 64u);
  EXPECT_EQ(s.device_names[63], "d63");
}

TEST(PlatformConfigs, Torus8pfAsymIsTheSameChipWith120And40) {
  const SystemSpec sym = load("torus_8pf.yaml");
  const SystemSpec asym = load("torus_8pf_asym.yaml");
  EXPECT_EQ(asym.torus().bandwidth, (std::vector<double>{120e9, 40e9}));  // seed 003 Fig. 10 "Asymm"
  // Same 160 GB/s per chip: 120 + 40 == 80 + 80.
  EXPECT_DOUBLE_EQ(asym.torus().bandwidth[0] + asym.torus().bandwidth[1],
                   sym.torus().bandwidth[0] + sym.torus().bandwidth[1]);
  // The preset dsm_chip_8pf is exactly the chip torus_8pf.yaml writes out key by key.
  EXPECT_EQ(asym.device_type(0).model, sym.device_type(0).model);
  EXPECT_DOUBLE_EQ(asym.peak_flops(), 8.388608e15);
}

TEST(PlatformConfigs, TpuV2V3Heterogeneous) {
  const SystemSpec s = load("tpu_v2v3_256.yaml");
  EXPECT_EQ(s.precision, Precision::bf16);
  ASSERT_EQ(s.device_count(), 256);
  ASSERT_EQ(s.groups.size(), 2u);
  EXPECT_EQ(s.groups[0].name, "tpu_v2");
  EXPECT_EQ(s.groups[1].name, "tpu_v3");
  ASSERT_EQ(s.groups[0].devices.size(), 128u);
  ASSERT_EQ(s.groups[1].devices.size(), 128u);
  EXPECT_EQ(s.groups[0].devices.front(), 0);
  EXPECT_EQ(s.groups[1].devices.front(), 128);
  EXPECT_EQ(s.groups[1].devices.back(), 255);
  const auto& v2 = std::get<RooflineDevice>(s.device_type(0).model);
  const auto& v3 = std::get<RooflineDevice>(s.device_type(255).model);
  EXPECT_DOUBLE_EQ(v2.peak_flops, 180e12);
  EXPECT_DOUBLE_EQ(v3.peak_flops, 420e12);
  EXPECT_DOUBLE_EQ(v2.memory_bytes, 64 * kGiB);
  EXPECT_DOUBLE_EQ(v3.memory_bytes, 128 * kGiB);
  EXPECT_DOUBLE_EQ(v2.memory_bandwidth, 2400e9);
  EXPECT_DOUBLE_EQ(v3.memory_bandwidth, 4800e9);
  EXPECT_DOUBLE_EQ(v2.network_bandwidth, 1e9);  // 8 Gb/s / 8 bits = 1e9 B/s
  EXPECT_DOUBLE_EQ(v3.network_bandwidth, 2e9);  // 16 Gb/s
  // 128 x 180e12 + 128 x 420e12 = 2.304e16 + 5.376e16 = 7.68e16 FLOP/s.
  EXPECT_DOUBLE_EQ(s.peak_flops(), 7.68e16);
  // The file's device types equal the built-in presets (same numbers, two places).
  EXPECT_EQ(s.device_type(0).model, find_device_preset("tpu_v2")->model);
  EXPECT_EQ(s.device_type(255).model, find_device_preset("tpu_v3")->model);
  // Star: 256 devices + 1 switch, one link per device at that device's network bandwidth.
  ASSERT_FALSE(s.is_torus());
  const auto& g = s.graph();
  ASSERT_EQ(g.nodes.size(), 257u);
  EXPECT_EQ(g.nodes[256].kind, NodeKind::switch_node);
  ASSERT_EQ(g.links.size(), 256u);
  EXPECT_EQ(g.links[0].a, "d0");
  EXPECT_EQ(g.links[0].b, g.nodes[256].name);
  EXPECT_DOUBLE_EQ(g.links[0].bandwidth, 1e9);
  EXPECT_DOUBLE_EQ(g.links[200].bandwidth, 2e9);
  EXPECT_DOUBLE_EQ(g.links[200].latency, 500e-9);
  EXPECT_FALSE(g.links[200].directed);
}

TEST(PlatformConfigs, TpuV3Homogeneous) {
  const SystemSpec s = load("tpu_v3_128.yaml");
  ASSERT_EQ(s.device_count(), 128);
  EXPECT_EQ(s.device_type(0).name, "tpu_v3");
  EXPECT_EQ(s.device_type(0), *find_device_preset("tpu_v3"));
  EXPECT_DOUBLE_EQ(s.peak_flops(), 5.376e16);  // 128 x 420e12
  EXPECT_EQ(s.graph().links.size(), 128u);
  EXPECT_DOUBLE_EQ(s.graph().links[5].bandwidth, 2e9);
}

TEST(PlatformConfigs, F1Instance) {
  const SystemSpec s = load("f1_16xlarge.yaml");
  ASSERT_EQ(s.device_count(), 8);
  EXPECT_EQ(s.device_types.size(), 3u);  // the three MARS designs (seed 004 Table II)
  ASSERT_EQ(s.groups.size(), 2u);
  EXPECT_EQ(s.groups[0].devices, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(s.groups[1].devices, (std::vector<int>{4, 5, 6, 7}));
  EXPECT_EQ(s.device_names[4], "fpga4");
  const auto& g = s.graph();
  ASSERT_EQ(g.nodes.size(), 9u);
  EXPECT_EQ(g.nodes[8].name, "host");
  EXPECT_EQ(g.nodes[8].kind, NodeKind::host);
  ASSERT_EQ(g.links.size(), 16u);
  int ring = 0, host = 0;
  for (const auto& l : g.links) {
    if (l.b == "host") {
      ++host;
      EXPECT_DOUBLE_EQ(l.bandwidth, 2.5e8);  // 2 Gb/s
    } else {
      ++ring;
      EXPECT_DOUBLE_EQ(l.bandwidth, 1e9);  // 8 Gb/s
    }
    EXPECT_DOUBLE_EQ(l.latency, 1e-6);
  }
  EXPECT_EQ(ring, 8);
  EXPECT_EQ(host, 8);
  // Design 1 on all 8: Tm x Tn = 64 x 7 = 448 multipliers x 2 FLOP x 200e6 Hz = 1.792e11; x 8 = 1.4336e12.
  EXPECT_DOUBLE_EQ(s.peak_flops(), 1.4336e12);
  // Systolic 11 x 13 x 8 = 1144 lanes: 4.576e11; Winograd 6 x 6 x 2 x 8 = 576: 2.304e11 FLOP/s.
  EXPECT_DOUBLE_EQ(std::get<FpgaDesign>(s.device_types.at("f1_systolic").model).peak_flops(), 4.576e11);
  EXPECT_DOUBLE_EQ(std::get<FpgaDesign>(s.device_types.at("f1_winograd").model).peak_flops(), 2.304e11);
  EXPECT_DOUBLE_EQ(s.device_type(0).memory_bytes(), 1 * kGiB);
}

TEST(PlatformConfigs, McmRing36) {
  const SystemSpec s = load("mcm_ring36.yaml");
  ASSERT_EQ(s.device_count(), 36);
  EXPECT_EQ(s.precision, Precision::int8);
  EXPECT_EQ(s.torus().dims, std::vector<int>{36});
  EXPECT_FALSE(s.torus().bidirectional);  // seed 002 §3: links to the next chiplet only
  EXPECT_DOUBLE_EQ(s.torus().bandwidth[0], 32e9);
  EXPECT_DOUBLE_EQ(s.device_type(0).memory_bytes(), 32 * kMiB);
  EXPECT_DOUBLE_EQ(s.peak_flops(), 36 * 4e12);
}

TEST(PlatformConfigs, DgxA100) {
  const SystemSpec s = load("dgx_a100.yaml");
  EXPECT_EQ(s.precision, Precision::bf16);
  ASSERT_TRUE(s.cluster.has_value());
  EXPECT_EQ(s.cluster->nodes, 4);
  ASSERT_EQ(s.device_count(), 32);  // 4 nodes x 8 A100
  const auto& gpu = std::get<CalibratedDevice>(s.device_type(0).model);
  EXPECT_DOUBLE_EQ(gpu.peak_fp16, 312e12);  // preset a100_sxm4_80gb
  EXPECT_DOUBLE_EQ(s.peak_flops(), 32 * 312e12);
  EXPECT_DOUBLE_EQ(s.cluster->nvlink_bandwidth, 300e9);  // 12 NVLink3 links x 25 GB/s
  EXPECT_FALSE(s.cluster->in_switch_reduction);          // NVSwitch gen 2
  EXPECT_DOUBLE_EQ(s.cluster->nic_bandwidth, 25e9);      // HDR 200 Gb/s
  EXPECT_EQ(s.cluster->nics_per_node, 8);
  EXPECT_EQ(s.cluster->fabric, ClusterFabric::rail_optimized);
  EXPECT_DOUBLE_EQ(s.collectives.chunk_bytes, 512.0 * 1024);  // NCCL: 4 MiB buffer / 8 steps
  // 32 GPUs + 4 NVSwitches + 8 rail leaves (4 nodes fit a 40-port switch).
  EXPECT_EQ(s.graph().nodes.size(), 44u);
  EXPECT_EQ(s.graph().links.size(), 64u);
  const SystemSpec two = load_system(std::string(PARTSIM_SOURCE_DIR) + "/configs/dgx_a100.yaml",
                                     [] {
                                       auto o = overrides_for("dgx_a100.yaml");
                                       o.push_back("system.cluster.nodes=2");
                                       return o;
                                     }());
  EXPECT_EQ(two.device_count(), 16);
}

TEST(PlatformConfigs, DgxH100) {
  const SystemSpec s = load("dgx_h100.yaml");
  EXPECT_EQ(s.precision, Precision::bf16);
  ASSERT_EQ(s.device_count(), 32);
  const auto& gpu = std::get<CalibratedDevice>(s.device_type(0).model);
  EXPECT_DOUBLE_EQ(gpu.peak_fp16, 989.4e12);  // preset h100_sxm5_80gb
  EXPECT_DOUBLE_EQ(s.cluster->nvlink_bandwidth, 450e9);  // 18 NVLink4 links x 25 GB/s
  EXPECT_TRUE(s.cluster->in_switch_reduction);           // NVSwitch gen 3, NVLink SHARP
  EXPECT_DOUBLE_EQ(s.cluster->nic_bandwidth, 50e9);      // NDR 400 Gb/s
  EXPECT_TRUE(s.graph().nodes[32].in_switch_reduction);  // node0.nvswitch
  EXPECT_EQ(s.graph().nodes[32].name, "node0.nvswitch");
}

TEST(PlatformConfigs, RoundTripThroughSystemToYaml) {
  for (const auto& name : kConfigs) {
    SCOPED_TRACE(name);
    const SystemSpec s = load(name);
    const std::string text = system_to_yaml(s);
    SystemSpec back = partsim::test::platform_from_yaml(text, {}, "dump.yaml");
    // A calibrated device's table reference is written as given; the DGX configs' is a built-in
    // name or an absolute path (overrides_for), so the dump reads back from anywhere.
    back.source_file = s.source_file;
    // Warnings name the file's own keys (a dump writes out what presets gave): not the platform.
    back.warnings = s.warnings;
    EXPECT_EQ(back, s) << text;
    EXPECT_EQ(system_to_yaml(back), text);
    EXPECT_EQ(content_hash(back), content_hash(s));
  }
}

TEST(PlatformConfigs, TpuPodTori) {
  // scripts/make_tpu_tori.py (issue 13). Published reading: TPUv3 chips, 4 ICI links of 656 Gbit/s
  // = 82 GB/s per link and direction; 128 x 123 TFLOP/s = 1.5744e16 FLOP/s.
  const SystemSpec ici = load("tpu_v3_128_torus_ici.yaml");
  ASSERT_TRUE(ici.is_torus());
  EXPECT_EQ(ici.torus().dims, (std::vector<int>{8, 16}));
  EXPECT_EQ(ici.torus().bandwidth, (std::vector<double>{82e9, 82e9}));
  EXPECT_DOUBLE_EQ(ici.peak_flops(), 1.5744e16);
  // Seed 000's boards: 16 Gb/s per TPU-v3 board spread over 4 links = 4 Gb/s = 0.5 GB/s per link;
  // 128 x 420 TFLOP/s = 5.376e16 FLOP/s, the star's machine.
  const SystemSpec board = load("tpu_v3_128_torus_boardbw.yaml");
  EXPECT_EQ(board.torus().bandwidth, (std::vector<double>{0.5e9, 0.5e9}));
  EXPECT_DOUBLE_EQ(board.peak_flops(), load("tpu_v3_128.yaml").peak_flops());
  EXPECT_EQ(load("tpu_v3_1024_torus_ici.yaml").device_count(), 1024);
  EXPECT_EQ(load("tpu_v2_256_torus_ici.yaml").torus().dims, (std::vector<int>{16, 16}));
}

TEST(PlatformConfigs, ContentHashesAreSixteenHexDigitsAndDistinct) {
  std::set<std::string> hashes;
  for (const auto& name : kConfigs) {
    const std::string h = content_hash(load(name));
    EXPECT_EQ(h.size(), 16u);
    EXPECT_EQ(h.find_first_not_of("0123456789abcdef"), std::string::npos) << h;
    hashes.insert(h);
  }
  EXPECT_EQ(hashes.size(), kConfigs.size());
}

}  // namespace
