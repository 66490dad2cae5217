#pragma once
// What a piece of code says when it refuses its input, for tests that compare exact messages.

#include <functional>
#include <string>

#include "sim/common/error.hpp"

namespace partsim::test {

/// The message of the InputError that `f` throws, or "<no error>" when it throws none.
inline std::string input_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "<no error>";
}

}  // namespace partsim::test
