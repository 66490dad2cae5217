#include "sim/planners/megatron/transformer_shape.hpp"

#include <string>

#include "sim/common/error.hpp"

namespace partsim::megatron {

namespace {

std::string describe(const TransformerShape& s) {
  return "transformer L = " + std::to_string(s.layers) + ", h = " + std::to_string(s.hidden) + ", a = " +
         std::to_string(s.heads) + ", s = " + std::to_string(s.sequence) + ", V = " + std::to_string(s.vocabulary);
}

}  // namespace

void check_shape(const TransformerShape& s) {
  if (s.layers < 1 || s.hidden < 1 || s.heads < 1 || s.sequence < 1 || s.vocabulary < 1)
    throw InputError(describe(s) + ": every size must be >= 1");
  if (s.hidden % s.heads != 0) throw InputError(describe(s) + ": h must be a multiple of a");
}

void check_parallelism(const TransformerShape& s, const LayerParallelism& par) {
  check_shape(s);
  const int t = par.tensor_parallel;
  const std::string where = describe(s) + ", tensor parallel t = " + std::to_string(t);
  if (t < 1) throw InputError(where + ": t must be >= 1");
  if (s.heads % t != 0) throw InputError(where + ": a must be a multiple of t");
  if (s.hidden % t != 0) throw InputError(where + ": h must be a multiple of t");
  if (par.sequence_parallel && s.sequence % t != 0)
    throw InputError(where + ": sequence parallelism needs s to be a multiple of t");
}

}  // namespace partsim::megatron
