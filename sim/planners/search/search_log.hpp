#pragma once
// The search log (issue 44 item 2): every candidate the `search` strategy priced, in order, as CSV,
// written by simplan next to the plan (PLAN.search.csv); scripts/plot_search.py draws it.
// Columns: index, elapsed_s, move, origin, schedule, predicted_s, closed_form_s, usable, accepted, best_s, note
// (times in seconds; usable and accepted 0/1; note quoted).

#include <string>
#include <vector>

#include "sim/planners/search/search.hpp"

namespace partsim::search {

std::string search_log_csv(const std::vector<LogRow>& rows);

}  // namespace partsim::search
