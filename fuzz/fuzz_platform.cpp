// libFuzzer harness: platform files, as `simrun --config` reads them (YAML text -> SystemSpec).
// Any text is either a valid platform or refused with one InputError line. A platform accepted is
// written back as --dump-config writes it, and that text must read back to the same text.
#include <cstdint>
#include <string>

#include "fuzz/harness.hpp"
#include "sim/common/yaml_reader.hpp"
#include "topology/system_parser.hpp"
#if __has_include("topology/system_writer.hpp")
#include "topology/system_writer.hpp"
#endif

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace partsim;
  const std::string text = fuzz::text_of(data, size);
  std::string dumped;
  fuzz::refuse_only_with_input_errors([&] {
    dumped = topology::system_to_yaml(topology::parse_system(yaml::load_string(text, "fuzz.yaml")));
  });
  if (dumped.empty()) return 0;
  try {
    const std::string again = topology::system_to_yaml(topology::parse_system(yaml::load_string(dumped, "dump.yaml")));
    if (again != dumped) fuzz::finding("--dump-config does not read back to itself:\n" + dumped + "\n----\n" + again);
  } catch (const std::exception& e) {
    fuzz::finding(std::string("--dump-config output is refused: ") + e.what() + "\n" + dumped);
  }
  return 0;
}
