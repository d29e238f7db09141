#pragma once
// Bad input (config, command line, layout) is reported by throwing InputError with a message that names
// where (file:line: key) and what is wrong; the command line turns it into one line and exit status 2.
#include <stdexcept>
#include <string>

namespace tpusim {

class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace tpusim
