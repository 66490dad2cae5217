// libFuzzer harness: workload files, as `simplan --workload F.yaml --describe --json` reads and
// describes them. Any text is either a workload or refused with one InputError line; an accepted
// workload must describe itself (table and JSON, which needs valid UTF-8 names) without error.
#include <nlohmann/json.hpp>
#include <cstdint>
#include <string>

#include "fuzz/harness.hpp"
#include "sim/common/yaml_reader.hpp"
#include "workloads/describe.hpp"
#include "workloads/workload_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace partsim;
  const std::string text = fuzz::text_of(data, size);
  fuzz::refuse_only_with_input_errors([&] {
    // Small limits (workload_file.hpp WorkloadLimits): the parser's contract, not its speed on
    // 100,000 layers under the sanitizers, is what is fuzzed here; the limits' own errors are tested
    // in tests/workloads.
    const workloads::Graph graph = workloads::parse_workload(yaml::load_string(text, "fuzz.yaml"), 4, "fuzz",
                                                             workloads::WorkloadLimits{2'000, 64});
    (void)workloads::describe_table(graph);
    (void)workloads::describe_json(graph).dump();
  });
  return 0;
}
