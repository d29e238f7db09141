#pragma once
// The message of the InputError an action throws: what the bad-input tests of every layer compare.
#include <functional>
#include <string>

#include "topologies/support/input_error.hpp"

namespace tpusim::test_support {

// "(no error)" when the action throws nothing; any other exception propagates and fails the test.
inline std::string input_error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const InputError& error) {
    return error.what();
  }
  return "(no error)";
}

}  // namespace tpusim::test_support
