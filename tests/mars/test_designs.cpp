// The accelerator designs of MARS (seed 004 Table II) as device kinds: their cycle models
// (sim/devices/fpga_designs.hpp) against counts computed by hand, and the presets and
// configs/f1_16xlarge.yaml that name them.

#include <gtest/gtest.h>

#include "sim/devices/fpga_designs.hpp"
#include "sim/common/yaml_reader.hpp"
#include "sim/devices/shard_compute.hpp"
#include "tests/support/platform_yaml.hpp"
#include "topology/device_presets.hpp"
#include "topology/system_parser.hpp"
#include "topology/system_writer.hpp"

using namespace partsim;
using devices::ConvLoops;
using devices::design_cycles;

namespace {

const topology::FpgaDesign& preset(const std::string& name) {
  return std::get<topology::FpgaDesign>(topology::find_device_preset(name)->model);
}

// VGG16 conv1_1: M = 64, N = 3, R = C = 224, 3x3, stride 1.
const ConvLoops kVggConv1{1, 64, 3, 224, 224, 3, 3, 1, 1};
// A ResNet bottleneck 1x1: M = 256, N = 64, R = C = 56.
const ConvLoops kOneByOne{1, 256, 64, 56, 56, 1, 1, 1, 1};
// ResNet conv1: M = 64, N = 3, output 112 x 112, 7x7, stride 2.
const ConvLoops kResnetConv1{1, 64, 3, 112, 112, 7, 7, 2, 2};
// VGG16 fc6 as a 1x1 convolution on a 1x1 map: M = 4096, N = 25088.
const ConvLoops kFc6{1, 4096, 25088, 1, 1, 1, 1, 1, 1};

}  // namespace

TEST(MarsDesigns, PresetsHoldTableTwo) {
  const auto& s = preset("f1_superlip");
  EXPECT_EQ(s.design, topology::DesignKind::superlip);
  EXPECT_EQ(s.tm, 64);
  EXPECT_EQ(s.tn, 7);
  EXPECT_EQ(s.tr, 7);
  EXPECT_EQ(s.tc, 14);
  EXPECT_DOUBLE_EQ(s.frequency_hz, 200e6);
  EXPECT_EQ(s.multipliers(), 448);  // 64 x 7
  const auto& a = preset("f1_systolic");
  EXPECT_EQ(a.multipliers(), 1144);  // 11 x 13 x 8
  const auto& w = preset("f1_winograd");
  EXPECT_EQ(w.multipliers(), 576);  // 6 x 6 x 2 x 8, Table II's 576
  EXPECT_EQ(devices::winograd_output_tile(w), 4);  // F(4x4, 3x3) on 6x6 tiles
  EXPECT_DOUBLE_EQ(w.memory_bytes, 1073741824.0);
}

// SuperLIP: B ceil(M/Tm) ceil(N/Tn) R C Kh Kw.
TEST(MarsDesigns, SuperlipCycles) {
  const auto& d = preset("f1_superlip");
  EXPECT_DOUBLE_EQ(design_cycles(d, kVggConv1), 1.0 * 1 * 1 * 224 * 224 * 9);    // 451,584
  EXPECT_DOUBLE_EQ(design_cycles(d, kOneByOne), 4.0 * 10 * 56 * 56);             // ceil(256/64) ceil(64/7): 125,440
  EXPECT_DOUBLE_EQ(design_cycles(d, kResnetConv1), 1.0 * 1 * 112 * 112 * 49);    // 614,656
  EXPECT_DOUBLE_EQ(design_cycles(d, kFc6), 64.0 * 3584);                         // ceil(25088/7) = 3584: 229,376
}

// Systolic: B ceil(M/rows) ceil(C/cols) R ceil(N/vec) Kh Kw.
TEST(MarsDesigns, SystolicCycles) {
  const auto& d = preset("f1_systolic");
  EXPECT_DOUBLE_EQ(design_cycles(d, kVggConv1), 6.0 * 18 * 224 * 1 * 9);   // ceil(64/11) = 6, ceil(224/13) = 18: 217,728
  EXPECT_DOUBLE_EQ(design_cycles(d, kOneByOne), 24.0 * 5 * 56 * 8);        // ceil(256/11) = 24, ceil(56/13) = 5: 53,760
  EXPECT_DOUBLE_EQ(design_cycles(d, kResnetConv1), 6.0 * 9 * 112 * 1 * 49); // ceil(112/13) = 9: 296,352
}

// Winograd: B ceil(Kh/3) ceil(Kw/3) ceil(N/Pn) ceil(M/Pm) ceil(R1/4) ceil(C1/4), R1 = (R-1)s + 1.
TEST(MarsDesigns, WinogradCycles) {
  const auto& d = preset("f1_winograd");
  EXPECT_DOUBLE_EQ(design_cycles(d, kVggConv1), 1.0 * 2 * 8 * 56 * 56);     // ceil(3/2) = 2, 64/8, 224/4: 50,176
  // 1x1 runs as a zero-padded 3x3: ceil(64/2) ceil(256/8) ceil(56/4)^2 = 32 x 32 x 196 = 200,704,
  // slower than SuperLIP's 125,440 and the systolic array's 53,760 (§VI-B: no Winograd for bottlenecks).
  EXPECT_DOUBLE_EQ(design_cycles(d, kOneByOne), 32.0 * 32 * 14 * 14);
  EXPECT_GT(design_cycles(d, kOneByOne), design_cycles(preset("f1_superlip"), kOneByOne));
  // 7x7 stride 2: 9 pieces; at stride 1 the output is (112-1) x 2 + 1 = 223 rows: ceil(223/4) = 56.
  EXPECT_DOUBLE_EQ(design_cycles(d, kResnetConv1), 9.0 * 2 * 8 * 56 * 56);  // 451,584
}

// A shard's time: cycles at 200 MHz, or the DRAM traffic when it is larger (double-buffered tiles).
TEST(MarsDesigns, ShardTimeIsCyclesAtTheClockOrMemory) {
  topology::DeviceType type = *topology::find_device_preset("f1_superlip");
  devices::ShardWork w;
  w.primary_flops = 2.0 * 256 * 64 * 56 * 56;
  w.on_arrays = true;
  w.conv = kOneByOne;
  w.memory_bytes = 1000;  // negligible
  auto t = devices::shard_time(type, w, plan::Pass::fwd);
  EXPECT_DOUBLE_EQ(t.compute_s, 125440.0 / 200e6);
  EXPECT_FALSE(t.memory_bound);
  w.memory_bytes = 19.2e9 * 0.01;  // 10 ms of DRAM at 19.2 GB/s
  t = devices::shard_time(type, w, plan::Pass::fwd);
  EXPECT_DOUBLE_EQ(t.compute_s, 0.01);
  EXPECT_TRUE(t.memory_bound);
}

TEST(MarsDesigns, PlatformNamesDesignsAndChecksTheirKeys) {
  const auto spec = topology::load_system(std::string(PARTSIM_TEST_DATA_DIR) + "/platforms/f1_16xlarge.yaml");
  EXPECT_EQ(spec.device_count(), 8);
  EXPECT_EQ(spec.device_types.size(), 3u);
  for (const auto& [name, type] : spec.device_types) EXPECT_TRUE(std::holds_alternative<topology::FpgaDesign>(type.model)) << name;
  // A design given by hand, and the errors of a wrong one.
  const std::string head = "system:\n  name: t\n  device_types:\n    w: {kind: design, design: winograd, ";
  const std::string tail = "frequency: 200MHz, memory: 1GiB, memory_bandwidth: 10GB/s}\n"
                           "  devices:\n    - {type: w, count: 2}\n  star: {latency: 0s, bandwidth: 1GB/s}\n";
  const auto ok = test::platform_from_yaml(head + "tile: 6, pn: 2, pm: 8, " + tail);
  EXPECT_EQ(std::get<topology::FpgaDesign>(ok.device_type(0).model).multipliers(), 576);
  EXPECT_THROW(test::platform_from_yaml(head + "tile: 6, pn: 2, " + tail), InputError);  // pm missing
  EXPECT_THROW(test::platform_from_yaml(head + "tile: 6, pn: 2, pm: 8, tm: 4, " + tail), InputError);  // not winograd's
  // A preset of one design turned into another keeps none of the first's tiles.
  const auto turned = test::platform_from_yaml(
      "system:\n  name: t\n  device_types:\n    s: {preset: f1_superlip, design: systolic, rows: 2, cols: 3, vec: 4}\n"
      "  devices:\n    - {type: s, count: 2}\n  star: {latency: 0s, bandwidth: 1GB/s}\n");
  const auto& d = std::get<topology::FpgaDesign>(turned.device_type(0).model);
  EXPECT_EQ(d.multipliers(), 24);
  EXPECT_EQ(d.tm, 0);
}

// --dump-config writes a design as `kind: design` with its own tiles only, and reads back identical.
TEST(MarsDesigns, DumpConfigRoundTrips) {
  const auto spec = topology::load_system(std::string(PARTSIM_TEST_DATA_DIR) + "/platforms/f1_16xlarge.yaml");
  const std::string text = topology::system_to_yaml(spec);
  EXPECT_NE(text.find("kind: design"), std::string::npos);
  EXPECT_NE(text.find("design: winograd"), std::string::npos);
  const auto back = topology::parse_system(yaml::load_string(text, "dump.yaml"));
  EXPECT_EQ(back.device_types, spec.device_types);
}
