// Parser behaviour beyond the shipped configs: presets, overrides (--set), defaults, shorthands.
#include <gtest/gtest.h>

#include "tests/support/input_errors.hpp"
#include "tests/support/platform_yaml.hpp"

#include <cstdint>
#include <cstdio>
#include <string>

#include "topology/device_presets.hpp"
#include "topology/link_bandwidth.hpp"
#include "topology/system_parser.hpp"
#include "topology/system_writer.hpp"

namespace {

using namespace partsim::topology;
using partsim::test::platform_from_yaml;
using partsim::test::input_error_of;

// A 2 x 4 torus of seed 003's chip, taken from its preset, with one bandwidth per dimension.
const std::string kTorus =
    "system:\n"
    "  name: torus\n"
    "  device_types:\n"
    "    dsm_chip: {preset: dsm_chip_8pf}\n"
    "  devices: [{type: dsm_chip, count: 8}]\n"
    "  torus: {dims: [2, 4], bandwidth: [80GB/s, 80GB/s], latency: 500ns, bidirectional: false}\n";

TEST(PlatformPresets, RegistryHasThePapersDevices) {
  for (const char* name : {"dsm_chip_8pf", "tpu_v2", "tpu_v3", "f1_superlip", "f1_systolic", "f1_winograd"}) {
    const DeviceType* p = find_device_preset(name);
    ASSERT_NE(p, nullptr) << name;
    EXPECT_EQ(p->name, name);
    EXPECT_FALSE(p->description.empty());
    EXPECT_NE(device_preset_names().find(name), std::string::npos);
  }
  EXPECT_EQ(find_device_preset("tpu_v4"), nullptr);
  // seed 000 Table 7: TPU-v2 180 TFLOP/s; 8 Gb/s = 1e9 B/s.
  const auto& v2 = std::get<RooflineDevice>(find_device_preset("tpu_v2")->model);
  EXPECT_DOUBLE_EQ(v2.peak_flops, 180e12);
  EXPECT_DOUBLE_EQ(v2.network_bandwidth, 1e9);
  // seed 003 Fig. 10 chip: 32 x 1024 x 2 x 2e9 = 1.31072e14 FLOP/s.
  EXPECT_DOUBLE_EQ(find_device_preset("dsm_chip_8pf")->peak_flops(Precision::fp16), 1.31072e14);
}

TEST(PlatformPresets, FieldsOverrideThePresetAndTheRestStays) {
  const SystemSpec s = platform_from_yaml(
      "system:\n"
      "  name: p\n"
      "  device_types:\n"
      "    fast_v3: {preset: tpu_v3, peak: 500TFLOP/s}\n"
      "    big_chip:\n"
      "      preset: dsm_chip_8pf\n"
      "      core: {scratchpad: 4MiB}\n"
      "      chip: {memory_efficiency: 0.5}\n"
      "  devices:\n"
      "    - {type: fast_v3, count: 2}\n"
      "    - {type: big_chip, count: 2}\n"
      "  star: {latency: 1us, bandwidth: 10GB/s}\n");
  const auto& v3 = std::get<RooflineDevice>(s.device_types.at("fast_v3").model);
  EXPECT_DOUBLE_EQ(v3.peak_flops, 500e12);
  EXPECT_DOUBLE_EQ(v3.memory_bandwidth, 4800e9);  // from the preset
  const auto& chip = std::get<TemplateDevice>(s.device_types.at("big_chip").model);
  EXPECT_DOUBLE_EQ(chip.core.scratchpad_bytes, 4 * 1048576.0);
  EXPECT_DOUBLE_EQ(chip.memory_efficiency, 0.5);
  EXPECT_EQ(chip.cores, 32);                         // from the preset
  EXPECT_DOUBLE_EQ(chip.core.scratchpad_bandwidth, 128e9);
  EXPECT_EQ(s.device_type(0).description, find_device_preset("tpu_v3")->description);
  // star.bandwidth overrides the devices' own network bandwidth (template chips have none).
  EXPECT_DOUBLE_EQ(s.graph().links[3].bandwidth, 10e9);
}

TEST(PlatformDefaults, TemplateDeviceDefaultsAndScalarPerDimensionValues) {
  const SystemSpec s = platform_from_yaml(
      "system:\n"
      "  name: d\n"
      "  device_types:\n"
      "    c:\n"
      "      kind: template\n"
      "      pe_array: {rows: 4, cols: 4}\n"
      "      core: {scratchpad: 256KiB, scratchpad_bandwidth: 64GB/s, frequency: 1GHz}\n"
      "      chip: {cores: 2, core_to_core_bandwidth: 32GB/s, memory: 1GiB, memory_bandwidth: 16GB/s}\n"
      "  devices: [{type: c, count: 6}]\n"
      "  torus: {dims: [2, 3], bandwidth: 10GB/s, latency: 1us, bidirectional: false}\n");
  const auto& c = std::get<TemplateDevice>(s.device_type(0).model);
  EXPECT_EQ(c.core.pe.simd_lanes, 1);
  EXPECT_DOUBLE_EQ(c.core.pe.register_file_bytes, 0);
  EXPECT_EQ(c.core.arrays, 1);
  EXPECT_EQ(c.core.sfus, 1);
  EXPECT_EQ(c.core.sfu_lanes, 1);
  EXPECT_EQ(c.interconnect, OnChipInterconnect::ring);
  EXPECT_DOUBLE_EQ(c.memory_efficiency, 1.0);
  EXPECT_DOUBLE_EQ(c.on_chip_latency, 0.0);
  // 2 cores x 16 MACs x 2 FLOP x 1e9 Hz = 6.4e10 FLOP/s per chip.
  EXPECT_DOUBLE_EQ(c.peak_flops(), 6.4e10);
  EXPECT_EQ(s.precision, Precision::fp16);
  EXPECT_EQ(s.torus().bandwidth, (std::vector<double>{10e9, 10e9}));
  EXPECT_EQ(s.torus().latency, (std::vector<double>{1e-6, 1e-6}));
  EXPECT_FALSE(s.torus().bidirectional);
  EXPECT_EQ(bytes_per_element(s.precision), 2);
}

TEST(PlatformOverrides, SetChangesTheSpecAndTheHash) {
  const SystemSpec base = platform_from_yaml(kTorus);
  const SystemSpec swept = platform_from_yaml(kTorus, {"system.torus.bandwidth[1]=40GB/s"});
  EXPECT_EQ(swept.torus().bandwidth, (std::vector<double>{80e9, 40e9}));
  EXPECT_NE(content_hash(swept), content_hash(base));
  // A key that the file leaves to a preset can still be set (the override creates it).
  const SystemSpec spad = platform_from_yaml(kTorus, {"system.device_types.dsm_chip.core.scratchpad=2MiB"});
  EXPECT_DOUBLE_EQ(std::get<TemplateDevice>(spad.device_type(0).model).core.scratchpad_bytes, 2 * 1048576.0);
  // Whole lists too.
  const SystemSpec dims = platform_from_yaml(kTorus, {"system.torus.dims=[4,2]"});
  EXPECT_EQ(dims.torus().dims, (std::vector<int>{4, 2}));
}

TEST(PlatformOverrides, BadValuesAreReportedAtTheAssignment) {
  EXPECT_EQ(input_error_of([] { platform_from_yaml(kTorus, {"system.torus.bandwidth[1]=0GB/s"}); }),
            "--set system.torus.bandwidth[1]=0GB/s: system.torus.bandwidth[1]: must be > 0 (got 0GB/s)");
  EXPECT_EQ(input_error_of([] { platform_from_yaml(kTorus, {"system.torus.dims=[8,4]"}); }),
            "--set system.torus.dims=[8,4]: system.torus.dims: product of dims is 32, but the system has 8 devices");
  EXPECT_EQ(input_error_of([] { platform_from_yaml(kTorus, {"system.torus.bandwidth[2]=1GB/s"}); }),
            "--set system.torus.bandwidth[2]=1GB/s: index 2 is past the end of 'system.torus.bandwidth' (2 elements)");
  EXPECT_EQ(input_error_of([] { platform_from_yaml(kTorus, {"system.torus.bandwith=1GB/s"}); }),
            "--set system.torus.bandwith=1GB/s: system.torus.bandwith: unknown key (allowed: bandwidth, "
            "bidirectional, dims, latency)");
}

TEST(PlatformErrors, MissingLevelOfATemplateIsNamedAtTheDeviceType) {
  EXPECT_EQ(input_error_of([] {
              platform_from_yaml("system:\n  name: m\n  device_types:\n    c:\n      kind: template\n"
                                 "  devices: [{type: c}]\n  torus: {dims: [1], bandwidth: 1GB/s, latency: 0s}\n");
            }),
            "platform.yaml:5:7: system.device_types.c.pe_array: missing required key");
}

TEST(PlatformErrors, MissingFileIsAnInputError) {
  EXPECT_EQ(input_error_of([] { load_system("/nonexistent/x.yaml"); }), "/nonexistent/x.yaml: cannot open file");
}

TEST(PlatformDump, StarIsWrittenAsItsGraphAndReadBackEqual) {
  const SystemSpec s =
      platform_from_yaml("system:\n  name: s\n  devices: [{type: tpu_v2, count: 3}]\n  star: {latency: 0s}\n");
  const std::string text = system_to_yaml(s);
  EXPECT_NE(text.find("graph:"), std::string::npos);
  EXPECT_EQ(text.find("star:"), std::string::npos);
  SystemSpec back = platform_from_yaml(text);
  EXPECT_EQ(back, s);
}

TEST(PlatformDump, ValuesWrittenWithAnotherPrefixReadBackWithinOneRoundingAndTheSameHash) {
  // 0.1GiB/s is dumped as "107.3741824MB/s"; 107.3741824 x 1e6 may differ from 0.1 x 2^30 in the
  // last bit (units.hpp promises 1e-15 relative). The dump text, and so the hash, is the same.
  const SystemSpec s = platform_from_yaml(kTorus, {"system.torus.bandwidth[0]=0.1GiB/s"});
  const std::string text = system_to_yaml(s);
  EXPECT_NE(text.find("107.3741824MB/s"), std::string::npos) << text;
  const SystemSpec back = platform_from_yaml(text);
  EXPECT_EQ(back.torus().bandwidth[0], s.torus().bandwidth[0]);
  EXPECT_EQ(system_to_yaml(back), text);
  EXPECT_EQ(content_hash(back), content_hash(s));
}

TEST(PlatformDump, HashIsFnv1aOfTheDump) {
  const SystemSpec s = platform_from_yaml(kTorus);
  // FNV-1a 64 (offset basis 0xcbf29ce484222325, prime 0x100000001b3) over the dump's bytes.
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : system_to_yaml(s)) h = (h ^ c) * 0x100000001b3ULL;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  EXPECT_EQ(content_hash(s), buf);
}

}  // namespace

// Issue 41 item 1: one source per physical parameter. A TPU-v3 chip on a 2 x 4 bidirectional torus
// of 100 GB/s links has 1 + 2 = 3 links (the dimension of size 2 has one neighbour, size 4 two):
// 300 GB/s, which is what planners read (AccPar's b_i) and the replay uses. A network_bandwidth of
// 400 GB/s beside it is ignored, with a warning naming both keys; 300 GB/s gives none, and a star
// takes its links from network_bandwidth, so it never disagrees.
TEST(PlatformNetworkBandwidth, TheLinksAreTheOneSourceAndADifferentDeviceValueIsNamed) {
  const auto torus = [](const std::string& network, const std::string& link) {
    return platform_from_yaml("system:\n  name: t\n  device_types:\n    chip: {kind: roofline, peak: 1TFLOP/s, memory: 1GiB,"
                              " memory_bandwidth: 1TB/s, network_bandwidth: " + network + "}\n"
                              "  devices: [{type: chip, count: 8}]\n"
                              "  torus: {dims: [2, 4], bandwidth: " + link + ", latency: 0s}\n");
  };
  const SystemSpec agree = torus("300GB/s", "100GB/s");
  EXPECT_DOUBLE_EQ(device_link_bandwidth(agree, 5), 3e11);
  EXPECT_TRUE(agree.warnings.empty());
  const SystemSpec differ = torus("400GB/s", "100GB/s");
  EXPECT_DOUBLE_EQ(device_link_bandwidth(differ, 5), 3e11);
  ASSERT_EQ(differ.warnings.size(), 1u);
  EXPECT_NE(differ.warnings[0].find("device_types.chip.network_bandwidth is 400GB/s but the platform's links "
                                    "(torus.bandwidth) give a chip device 300GB/s"),
            std::string::npos)
      << differ.warnings[0];
  // A sweep of the link moves the one number (here 50 GB/s per link: 150 GB/s).
  EXPECT_DOUBLE_EQ(device_link_bandwidth(torus("300GB/s", "50GB/s"), 0), 1.5e11);
  const SystemSpec star = platform_from_yaml(
      "system:\n  name: s\n  device_types:\n    chip: {kind: roofline, peak: 1TFLOP/s, memory: 1GiB,"
      " memory_bandwidth: 1TB/s, network_bandwidth: 40GB/s}\n  devices: [{type: chip, count: 3}]\n  star: {latency: 0s}\n");
  EXPECT_DOUBLE_EQ(device_link_bandwidth(star, 2), 4e10);
  EXPECT_TRUE(star.warnings.empty());
}

// A device placed from a preset directly (no device_types entry of that name) whose preset network
// bandwidth the links contradict: the check looks the type up among the file's device_types, finds
// nothing to name, and must not throw yaml-cpp's InvalidNode (found by the platform fuzzer: a
// renamed device_types key in configs/f1_hetero.yaml). The F1 systolic preset's 8 Gb/s against a
// 2 GB/s host link.
TEST(PlatformNetworkBandwidth, APresetPlacedDirectlyIsNotLookedUpInDeviceTypes) {
  const SystemSpec spec = platform_from_yaml(
      "system:\n  name: p\n  device_types:\n    other: {preset: f1_superlip}\n"
      "  devices: [{type: other, count: 1, names: [a]}, {type: f1_systolic, count: 1, names: [b]}]\n"
      "  graph:\n    hosts: [host]\n    latency: 0s\n"
      "    links: [{a: a, b: host, bandwidth: 2GB/s}, {a: b, b: host, bandwidth: 2GB/s}]\n");
  EXPECT_EQ(spec.device_count(), 2);
  EXPECT_DOUBLE_EQ(device_link_bandwidth(spec, 1), 2e9);
}
