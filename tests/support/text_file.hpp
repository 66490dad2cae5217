#pragma once
// Reading a whole text file in a test (a program's output, a document the test checks).

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace partsim::test {

/// The file's bytes, or "" when it cannot be opened.
inline std::string read_text_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace partsim::test
