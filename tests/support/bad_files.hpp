#pragma once
// The malformed input files under tests/data/bad/: each starts with "# expect: <the exact error line>".
// Shared by the library-level and the program-level bad-file tests.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace partsim::test {

/// File names (not paths) in tests/data/bad/ starting with `prefix` and ending in .yaml, sorted.
inline std::vector<std::string> bad_files(const std::string& prefix = "") {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(PARTSIM_TEST_DATA_DIR) / "bad")) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with(prefix) && name.ends_with(".yaml")) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

/// The message a bad file's first line expects; a placeholder that fails any comparison if it has none.
inline std::string expected_message(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string first;
  std::getline(in, first);
  const std::string tag = "# expect: ";
  if (!first.starts_with(tag)) return "<" + file.string() + " has no '# expect: ' first line>";
  return first.substr(tag.size());
}

}  // namespace partsim::test
