#pragma once
// The footprint as people read it: simplan --describe-memory's table and the one line simplan
// refuses a plan with. Sizes in binary units (GiB = 2^30 B, as docs/model.md "Memory footprint"
// prints them), the total also in bytes.
//
// Contract: pure formatting; no I/O.

#include <string>
#include <vector>

#include "sim/memory/footprint.hpp"

namespace partsim::memory {

/// "112.96 GiB", "640 KiB", "12 B": two decimals above 1 KiB.
std::string human_bytes(double bytes);

/// "weights 12.55 GiB, gradients 25.1 GiB, optimizer 75.31 GiB, activations 1 GiB, working 2 MiB".
std::string kinds_text(const plan::MemoryUse& use);

/// One row per layer (its name and each kind on the device), then the device's total line naming the
/// device, its type, its capacity and whether the plan fits. `rows` may be empty (a strategy with its
/// own footprint model: the total line only). `settings_text` (parameter_bytes.hpp describe()) is
/// printed above the table when not empty.
std::string memory_table(const std::vector<LayerMemory>& rows, const plan::MemoryUse& total,
                         const std::string& device_type, const std::string& settings_text);

/// The one line simplan refuses a plan with: the device, its type and capacity, the footprint by kind.
std::string over_memory_message(const plan::MemoryUse& use, const std::string& device_type,
                                const std::string& settings_text);

}  // namespace partsim::memory
