#pragma once
// Whether a process a test started (and saw killed) is gone: no longer in /proc, or a zombie waiting for a
// parent to reap it (a zombie holds no resources and runs nothing). Killed processes take a moment to go,
// so the check waits for them, up to a bound that only a process that was never killed reaches.
#include <sys/types.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace tpusim::test_support {

inline bool process_running(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  // "pid (comm) S ...": the state follows the last ')' (comm may hold spaces and parentheses).
  const auto close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] != 'Z' &&
         line[close + 2] != 'X';
}

inline bool process_gone(pid_t pid) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (process_running(pid)) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

// The pids a test's shell script wrote to `path`, one a line.
inline std::vector<pid_t> read_pids(const std::string& path) {
  std::ifstream in(path);
  std::vector<pid_t> pids;
  for (long pid = 0; in >> pid;) pids.push_back(static_cast<pid_t>(pid));
  return pids;
}

}  // namespace tpusim::test_support
