// The switchable optimizations of seed 003 §III as option words (search.hpp DsmOptions).

#include <sstream>
#include <string>
#include <vector>

#include "sim/common/error.hpp"
#include "sim/planners/dsm/search.hpp"

namespace partsim::dsm {

DsmOptions parse_dsm_options(const std::vector<std::string>& words) {
  DsmOptions o;
  for (const std::string& list : words) {
    std::stringstream ss(list);
    std::string w;
    while (std::getline(ss, w, ',')) {
      if (w.empty()) continue;
      if (w == "hybrid") o.hybrid = true;
      else if (w == "memreuse") o.memreuse = true;
      else if (w == "dysm") o.dysm = true;
      else if (w == "tpipe") o.tpipe = true;
      else if (w == "all") o.hybrid = o.memreuse = o.dysm = o.tpipe = true;
      else if (w == "none") o.hybrid = o.memreuse = o.dysm = o.tpipe = false;
      else throw UnknownNameError("dsm optimization", w, "hybrid, memreuse, dysm, tpipe, all, none");
    }
  }
  return o;
}

std::vector<std::string> option_words(const DsmOptions& o) {
  std::vector<std::string> v;
  if (o.hybrid) v.push_back("hybrid");
  if (o.memreuse) v.push_back("memreuse");
  if (o.dysm) v.push_back("dysm");
  if (o.tpipe) v.push_back("tpipe");
  if (v.empty()) v.push_back("none");
  return v;
}

}  // namespace partsim::dsm
