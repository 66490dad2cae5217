#pragma once
// The ChipD parallelism type (seed 003 §II-C, §III-A Fig. 7) and its names: the one place they are
// spelled, for plan.json (plan_fields.cpp), --explain and error messages.

#include <string>
#include <vector>

namespace partsim::dsm {

enum class ChipSplit { data, model, data_x_model_y, model_x_data_y };

/// "data", "model", "data_x_model_y", "model_x_data_y", in declaration order.
const std::vector<std::string>& chip_split_names();
const char* to_string(ChipSplit split);
/// Throws UnknownNameError listing the four names.
ChipSplit chip_split_from_string(const std::string& name);

}  // namespace partsim::dsm
