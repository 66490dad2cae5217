#pragma once
// Shared by the libFuzzer harnesses: the contract every parser of user input must keep (issue 21).
// Bad input ends in a partsim::InputError whose message is one line; anything else (another
// exception, a crash, a sanitizer report, a hang, an out-of-memory) is a finding and aborts.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

#include "sim/common/error.hpp"

namespace partsim::fuzz {

[[noreturn]] inline void finding(const std::string& what) {
  std::fprintf(stderr, "FINDING: %s\n", what.c_str());
  std::abort();
}

inline std::string text_of(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

/// Runs `body`; an InputError is the expected way to refuse input, anything else is a finding.
template <class Body>
void refuse_only_with_input_errors(Body&& body) {
  try {
    body();
  } catch (const InputError& e) {
    const std::string_view what = e.what();
    if (what.empty()) finding("an InputError without a message");
    if (what.find('\n') != std::string_view::npos) finding("a message on more than one line: " + std::string(what));
  } catch (const std::exception& e) {
    finding(std::string("not an InputError: ") + e.what());
  }
}

}  // namespace partsim::fuzz
