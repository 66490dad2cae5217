#pragma once
// What changed in a platform since a plan was made for it: simrun --allow-config-change replays a
// plan on a platform of the same name whose parameters differ (simsweep --fixed-plan), and says
// which keys differ, so a gap between prediction and simulation is not read as a model error.

#include <string>
#include <vector>

#include "sim/plan/plan.hpp"
#include "topology/system_spec.hpp"

namespace partsim::cli {

/// "key.path: old -> new" for every scalar of the resolved platform (system_to_yaml) that differs
/// between `before` and `after`, in the file's key order; a key only one side has reads "(none)".
std::vector<std::string> changed_keys(const topology::SystemSpec& before, const topology::SystemSpec& after);

/// How the platform `now` differs from the one `plan` was made for; empty when it is the same (the
/// content hashes agree). The plan records only the hash and the file it was read from: when that
/// file, read without overrides, hashes to the plan's hash, the answer lists the changed keys;
/// otherwise one line says the keys cannot be listed (the file was edited since, or the plan was
/// made with --set overrides).
std::vector<std::string> config_changes(const plan::Plan& plan, const topology::SystemSpec& now);

}  // namespace partsim::cli
