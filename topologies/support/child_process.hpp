#pragma once
// Runs a function in a fork()ed child and returns its string result. SimGrid allows one engine per process,
// so sweeps and benchmarks run every simulation in its own child. An InputError or EnvironmentError in the
// child comes back as the same type; any other failure (exception, crash, signal) as std::runtime_error.
#include <functional>
#include <string>

namespace tpusim {

struct ChildResult {
  std::string output;
  double wall_s = 0;        // measured by the parent from fork to exit
  double peak_rss_mib = 0;  // the child's maximum resident set (getrusage via wait4)
};

ChildResult run_in_child(const std::function<std::string()>& work);

}  // namespace tpusim
