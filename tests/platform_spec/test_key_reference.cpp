// The field tables (topology/spec_fields.hpp) are the one declaration of every platform key: the
// README's key tables must be what they generate, and the parser must accept exactly their keys.
#include <gtest/gtest.h>

#include "tests/support/input_errors.hpp"
#include "tests/support/platform_yaml.hpp"
#include "tests/support/text_file.hpp"

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "sim/common/error.hpp"
#include "topology/key_reference.hpp"
#include "topology/spec_fields.hpp"

namespace {

using namespace partsim::topology;
using partsim::test::platform_from_yaml;

/// The first line where `a` and `b` differ: "line N: 'a line' vs 'b line'"; "" when they are equal.
std::string first_difference(const std::string& a, const std::string& b) {
  std::stringstream sa(a), sb(b);
  std::string la, lb;
  for (int line = 1;; ++line) {
    const bool more_a = static_cast<bool>(std::getline(sa, la)), more_b = static_cast<bool>(std::getline(sb, lb));
    if (!more_a && !more_b) return "";
    if (more_a != more_b || la != lb)
      return "line " + std::to_string(line) + ": '" + (more_a ? la : "<end>") + "' vs '" + (more_b ? lb : "<end>") +
             "'";
  }
}

TEST(KeyReference, ConfigsReadmeIsCurrent) {
  const std::string text = partsim::test::read_text_file(std::string(PARTSIM_SOURCE_DIR) + "/configs/README.md");
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(first_difference(update_key_reference(text), text), "")
      << "configs/README.md's key tables differ from topology/spec_fields.hpp (generated vs file above); "
         "regenerate them with build/bin/platform_key_reference configs/README.md";
}

TEST(KeyReference, UpdateRewritesOnlyTheMarkedTables) {
  std::string text = "# title\n";
  for (const auto& b : key_reference_blocks())
    text += "<!-- keys: " + b + " -->\n| stale |\n<!-- /keys -->\nprose " + b + "\n";
  const std::string updated = update_key_reference(text);
  for (const auto& b : key_reference_blocks())
    EXPECT_NE(updated.find("<!-- keys: " + b + " -->\n" + key_reference_table(b) + "<!-- /keys -->\nprose " + b + "\n"),
              std::string::npos)
        << b;
  EXPECT_TRUE(updated.starts_with("# title\n"));
  EXPECT_EQ(updated.find("| stale |"), std::string::npos);
  EXPECT_EQ(update_key_reference(updated), updated);
}

TEST(KeyReference, RowsSayUnitAndDefaultOfEachKind) {
  const std::string t = key_reference_table("template");
  EXPECT_TRUE(t.starts_with("| key | unit | default | meaning |\n| --- | --- | --- | --- |\n"));
  // Defaults are the members' initializers in system_spec.hpp, written as a file would write them.
  EXPECT_NE(t.find("| `pe.simd_lanes` | count | 1 |"), std::string::npos) << t;
  EXPECT_NE(t.find("| `pe.register_file` | size, >= 0 | `0B` |"), std::string::npos) << t;
  EXPECT_NE(t.find("| `core.frequency` | frequency | required |"), std::string::npos) << t;
  EXPECT_NE(t.find("| `chip.interconnect` | `ring` \\| `split_bus` | `ring` |"), std::string::npos) << t;
  EXPECT_NE(t.find("| `chip.memory_efficiency` | number in (0, 1] | 1 |"), std::string::npos) << t;
  EXPECT_NE(key_reference_table("torus").find("| `bidirectional` | `true` \\| `false` | `true` |"), std::string::npos);
  EXPECT_NE(key_reference_table("graph").find("| `links[i].latency` | time, >= 0 | `graph.latency` |"),
            std::string::npos);
  EXPECT_THROW(key_reference_table("nope"), partsim::Error);
}

std::string update_error(const std::string& text) {
  return partsim::test::input_error_of([&] { update_key_reference(text); });
}

TEST(KeyReference, BadMarkersAreErrors) {
  std::string all;
  for (const auto& b : key_reference_blocks()) all += "<!-- keys: " + b + " -->\n<!-- /keys -->\n";
  EXPECT_EQ(update_error("<!-- keys: nope -->\n<!-- /keys -->\n" + all), "line 1: unknown key reference block 'nope'");
  EXPECT_EQ(update_error(all + "<!-- keys: star -->\n<!-- /keys -->\n"),
            "line " + std::to_string(2 * key_reference_blocks().size() + 1) + ": block 'star' appears twice");
  EXPECT_EQ(update_error("<!-- keys: system -->\n"), "block 'system' (line 1) has no end marker");
  EXPECT_EQ(update_error("<!-- /keys -->\n"), "line 1: end marker without a block");
  EXPECT_EQ(update_error("prose\n"),
            "key reference block 'system' is missing (add \"<!-- keys: system -->\" and \"<!-- /keys -->\")");
}

// ---- The parser's keys are the tables' keys ----------------------------------------------------

template <class... Tables>
std::vector<std::string> keys_of(const Tables&... tables) {
  std::vector<std::string> keys;
  (for_each_field(tables, [&](const auto& field) { keys.emplace_back(field.key); }), ...);
  std::sort(keys.begin(), keys.end());  // the parser lists allowed keys sorted
  return keys;
}

/// The keys the parser allows in the map that `assignment` ("a.b.zz=1") adds an unknown key to.
std::vector<std::string> allowed_keys(const std::string& text, const std::string& assignment) {
  const std::string message = partsim::test::input_error_of([&] { platform_from_yaml(text, {assignment}); });
  const std::string tag = "unknown key (allowed: ";
  const size_t at = message.find(tag);
  if (at == std::string::npos || !message.ends_with(")")) return {"<" + message + ">"};
  std::vector<std::string> keys;
  std::stringstream list(message.substr(at + tag.size(), message.size() - at - tag.size() - 1));
  for (std::string key; std::getline(list, key, ',');) keys.push_back(key.substr(key.front() == ' ' ? 1 : 0));
  return keys;
}

const std::string kTemplateTorus =
    "system:\n"
    "  name: t\n"
    "  device_types:\n"
    "    c:\n"
    "      kind: template\n"
    "      pe: {}\n"
    "      pe_array: {rows: 2, cols: 2}\n"
    "      core: {scratchpad: 1MiB, scratchpad_bandwidth: 1GB/s, frequency: 1GHz}\n"
    "      chip: {cores: 2, core_to_core_bandwidth: 1GB/s, memory: 1GiB, memory_bandwidth: 1GB/s}\n"
    "  devices: [{type: c, count: 2}]\n"
    "  groups: [{name: g, devices: [d0]}]\n"
    "  torus: {dims: [2], bandwidth: 1GB/s, latency: 0s}\n";

const std::string kRooflineGraph =
    "system:\n"
    "  name: r\n"
    "  device_types:\n"
    "    r: {kind: roofline, peak: 1TFLOP/s, memory: 1GiB, memory_bandwidth: 1GB/s}\n"
    "  devices: [{type: r, count: 2}]\n"
    "  graph: {switches: [s], links: [{a: d0, b: s, bandwidth: 1GB/s}, {a: d1, b: s, bandwidth: 1GB/s}]}\n";

const std::string kStar =
    "system:\n  name: s\n  devices: [{type: tpu_v2, count: 2}]\n  star: {latency: 0s}\n";

const std::string kCluster =
    "system:\n  name: c\n  device_types:\n"
    "    g: {kind: calibrated, peak_fp32: 1TFLOP/s, peak_fp16: 2TFLOP/s, peak_vector: 1TFLOP/s, memory: 1GiB,\n"
    "        memory_bandwidth: 1TB/s, efficiency_table: " PARTSIM_TEST_DATA_DIR "/tables/test_gpu.yaml}\n"
    "  cluster: {nodes: 2, device_type: g, nvlink_bandwidth: 1GB/s, nic_bandwidth: 1GB/s}\n";

TEST(KeyReference, ParserAllowsExactlyEachTablesKeys) {
  EXPECT_EQ(allowed_keys(kTemplateTorus, "system.zz=1"), keys_of(kSystemFields));
  std::vector<std::string> template_keys = keys_of(kDeviceTypeFields);
  const TemplateDevice device{};
  for_each_template_level(device, [&](std::string_view level, const auto&, const auto& table, bool) {
    template_keys.emplace_back(level);
    EXPECT_EQ(allowed_keys(kTemplateTorus, "system.device_types.c." + std::string(level) + ".zz=1"), keys_of(table))
        << level;
  });
  std::sort(template_keys.begin(), template_keys.end());
  EXPECT_EQ(allowed_keys(kTemplateTorus, "system.device_types.c.zz=1"), template_keys);
  EXPECT_EQ(allowed_keys(kRooflineGraph, "system.device_types.r.zz=1"), keys_of(kDeviceTypeFields, kRooflineFields));
  EXPECT_EQ(allowed_keys(kTemplateTorus, "system.devices[0].zz=1"), keys_of(kDeviceEntryFields));
  EXPECT_EQ(allowed_keys(kTemplateTorus, "system.groups[0].zz=1"), keys_of(kGroupFields));
  EXPECT_EQ(allowed_keys(kTemplateTorus, "system.torus.zz=1"), keys_of(kTorusFields));
  EXPECT_EQ(allowed_keys(kRooflineGraph, "system.graph.zz=1"), keys_of(kGraphFields));
  EXPECT_EQ(allowed_keys(kRooflineGraph, "system.graph.links[1].zz=1"), keys_of(kLinkFields));
  EXPECT_EQ(allowed_keys(kStar, "system.star.zz=1"), keys_of(kStarFields));
  EXPECT_EQ(allowed_keys(kStar, "system.collectives.zz=1"), keys_of(kCollectiveFields));
  EXPECT_EQ(allowed_keys(kRooflineGraph, "system.graph.switches[0]={name: s, zz: 1}"), keys_of(kSwitchFields));
  EXPECT_EQ(allowed_keys(kCluster, "system.cluster.zz=1"), keys_of(kClusterFields));
  EXPECT_EQ(allowed_keys(kCluster, "system.device_types.g.zz=1"), keys_of(kDeviceTypeFields, kCalibratedFields));
}

}  // namespace
