#pragma once
// Where the end-to-end tests find the programs and the platform most of them run on.

#include <string>

namespace partsim::test {

/// The build's program directory with a trailing '/': kBin + "simrun ...".
inline const std::string kBin = std::string(PARTSIM_BIN_DIR) + "/";
/// The torus_8pf test platform (tests/data/platforms/torus_8pf.yaml).
inline const std::string kConfig = std::string(PARTSIM_TEST_DATA_DIR) + "/platforms/torus_8pf.yaml";

}  // namespace partsim::test
