// libFuzzer harness: plan files, as `simrun --plan P` reads them (docs/plan-format.md). Any text is
// either a plan or refused with one InputError line naming the JSON path; an accepted plan must
// write itself back (plan_to_text) and read back to the same bytes (plan_io.hpp's contract: equal
// plans give byte-identical files).
#include <nlohmann/json.hpp>
#include <cstdint>
#include <string>

#include "fuzz/harness.hpp"
#include "sim/plan/plan_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace partsim;
  const std::string text = fuzz::text_of(data, size);
  fuzz::refuse_only_with_input_errors([&] {
    const plan::Plan plan = plan::plan_from_text(text, "fuzz.json");
    const std::string written = plan::plan_to_text(plan);
    std::string again;
    try {
      again = plan::plan_to_text(plan::plan_from_text(written, "written.json"));
    } catch (const InputError& e) {
      fuzz::finding(std::string("a plan it wrote is refused: ") + e.what());
    }
    if (again != written) fuzz::finding("a written plan does not read back to the same bytes");
  });
  return 0;
}
