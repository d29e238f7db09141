#pragma once
// Failures of the machine rather than of the input: a results folder that cannot be created or written, a
// full disk, a permission denied. The command line reports them as one line with exit status 3, so scripts
// can tell "fix your config" (2) from "fix your machine" (3). Input files that cannot be read are bad input
// (InputError): the user named them.
#include <stdexcept>
#include <string>

namespace tpusim {

class EnvironmentError : public std::runtime_error {
 public:
  explicit EnvironmentError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace tpusim
