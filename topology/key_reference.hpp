#pragma once
// The key reference of configs/README.md, generated from the field tables (spec_fields.hpp).
//
// Contract: the README keeps its prose; each key table stands between a line "<!-- keys: NAME -->"
// and the next line "<!-- /keys -->", and update_key_reference() rewrites exactly those lines.
// Every block of key_reference_blocks() must appear once, so a new table cannot be forgotten.
// build/bin/platform_key_reference FILE does the rewriting; tests/platform_spec fails while
// configs/README.md differs from what it would write.

#include <string>
#include <string_view>
#include <vector>

namespace partsim::topology {

/// The blocks, in README order: system, device_type, template, roofline, design, calibrated,
/// efficiency_table, devices, groups, torus, graph, star, cluster, collectives.
std::vector<std::string> key_reference_blocks();

/// One block as a markdown table | key | unit | default | meaning |, one row per key in file order,
/// each line ending in '\n'. Throws Error for a name that is not a block.
std::string key_reference_table(std::string_view block);

/// `text` with every marked block's table regenerated and nothing else changed. Throws InputError
/// (naming the line) for an unknown block name, a begin marker without its end, or a block that is
/// missing or marked twice.
std::string update_key_reference(const std::string& text);

}  // namespace partsim::topology
