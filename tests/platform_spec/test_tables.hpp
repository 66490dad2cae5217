#pragma once
// Fixture files the platform tests share.

#include <string>

namespace partsim::test {

/// The efficiency table of the test GPU (tests/data/tables/test_gpu.yaml).
inline const std::string kTestTable = std::string(PARTSIM_TEST_DATA_DIR) + "/tables/test_gpu.yaml";

}  // namespace partsim::test
