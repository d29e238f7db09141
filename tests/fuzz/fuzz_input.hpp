#pragma once
// What every fuzz target shares: the input as text, and InputError as the one expected outcome of bad input.
// Anything else escaping the parser (another exception, an abort, a sanitizer report, a timeout) is a
// finding: an exception escaping LLVMFuzzerTestOneInput terminates the process, which libFuzzer reports with
// the input.
#include <cstddef>
#include <cstdint>
#include <string>

#include "topologies/support/input_error.hpp"

namespace tpusim::fuzz {

inline std::string text_of(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

template <typename Parse>
void expect_only_input_errors(Parse parse) {
  try {
    parse();
  } catch (const InputError&) {
    // Bad input, reported as such: the expected outcome.
  }
}

}  // namespace tpusim::fuzz
