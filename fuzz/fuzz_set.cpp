// libFuzzer harness: `--set key.path=value` overrides (yaml::apply_override, through load_string as
// `simrun --config F --set ...` does) on the shipped platform files, then the platform parser. The
// input's first byte picks a configs/*.yaml file; every following line is one assignment. Anything
// is either a valid platform or refused with one InputError line.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz/harness.hpp"
#include "sim/common/yaml_reader.hpp"
#include "topology/system_parser.hpp"

namespace {
std::vector<std::string> g_configs;
}

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(PARTSIM_SOURCE_DIR "/configs"))
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::ifstream in(f);
    std::stringstream text;
    text << in.rdbuf();
    g_configs.push_back(text.str());
  }
  if (g_configs.empty()) partsim::fuzz::finding("no configs/*.yaml under " PARTSIM_SOURCE_DIR);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace partsim;
  if (size == 0) return 0;
  const std::string& base = g_configs[data[0] % g_configs.size()];
  std::vector<std::string> overrides;
  std::istringstream lines(fuzz::text_of(data + 1, size - 1));
  for (std::string line; std::getline(lines, line) && overrides.size() < 8;) overrides.push_back(line);
  fuzz::refuse_only_with_input_errors([&] { topology::parse_system(yaml::load_string(base, "base.yaml", overrides)); });
  return 0;
}
