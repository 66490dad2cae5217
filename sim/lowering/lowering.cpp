#include "sim/lowering/lowering.hpp"

#include "sim/common/error.hpp"

namespace partsim::lowering {

program::Program lower(const Context& context) {
  const std::string& s = context.plan.strategy;
  if (s == "dp" || s == "owt" || s == "hypar" || s == "accpar") return lower_accpar(context);
  if (s == "dsm") return lower_dsm(context);
  throw InputError("plan strategy '" + s + "' has no lowering (allowed: dp, owt, hypar, accpar, dsm)");
}

}  // namespace partsim::lowering
