#pragma once
// The value of a sweep axis as a plain number in SI base units: what the CSV's `<axis>_si` column
// holds beside the value as written, so values written in mixed units (512KiB, 1MiB, 2MiB) sort and
// plot on one scale. Units are parsed by sim/common/units (the platform parser's rules).

#include <optional>
#include <string>
#include <string_view>

namespace partsim::sweep {

/// "512KiB" -> 524288 (bytes), "30GB/s" -> 3e10 (bytes/s), "500ns" -> 5e-7 (s), "2GHz" -> 2e9 (Hz),
/// "180TFLOP/s" -> 1.8e14 (FLOP/s), "8" -> 8 (a count); std::nullopt for a value that is no
/// quantity ("all", "vgg16", "true", "1XB").
std::optional<double> si_quantity(std::string_view text);

/// A number as the `_si` column writes it: whole numbers of magnitude up to 2^53 in plain digits
/// ("524288", "30000000000"), other values in the shortest text that reads back to the same double
/// ("5e-07", "0.1").
std::string si_number_text(double value);

/// si_quantity(text) as si_number_text, or "" when `text` is no quantity.
std::string si_text(std::string_view text);

}  // namespace partsim::sweep
