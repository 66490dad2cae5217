// libFuzzer harness: `simsweep --vary` arguments (lists and ranges of values with units). Any text
// is either an axis or refused with one InputError line; an accepted axis has 1..10,000 values, one
// sweep point each, and every value that is a quantity gets an `_si` text that reads back to the
// same double (the CSV column plots mixed units on one scale, sim/sweep/si_quantity.hpp).
#include <cmath>
#include <cstdint>
#include <string>

#include "fuzz/harness.hpp"
#include "sim/sweep/si_quantity.hpp"
#include "sim/sweep/sweep_axis.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace partsim;
  const std::string text = fuzz::text_of(data, size);
  fuzz::refuse_only_with_input_errors([&] {
    const sweep::SweepAxis axis = sweep::parse_vary(text);
    if (axis.values.empty() || axis.values.size() > 10000) fuzz::finding("an axis with " + std::to_string(axis.values.size()) + " values");
    if (sweep::sweep_points({axis}).size() != axis.values.size()) fuzz::finding("one axis gives a point per value");
    for (const std::string& value : axis.values) {
      const auto si = sweep::si_quantity(value);
      if (!si) continue;
      if (!std::isfinite(*si)) fuzz::finding("a non-finite _si for '" + value + "'");
      const std::string written = sweep::si_number_text(*si);
      if (std::stod(written) != *si) fuzz::finding("_si '" + written + "' does not read back for '" + value + "'");
    }
  });
  return 0;
}
