#pragma once
// Runs an external program (gnuplot) as a child with a time limit. The program runs in a process group of
// its own, so that at its limit it is killed with everything it started (a shell script's `sleep` would
// otherwise keep the output pipe open, and tpusim waiting); it dies with tpusim (PR_SET_PDEATHSIG); its
// stdin is /dev/null, so it never waits for a terminal; its stdout and stderr come back together.
#include <string>
#include <vector>

namespace tpusim {

struct ExternalProgram {
  std::string path;               // the program's file (find_on_path), run as argv[0]
  std::vector<std::string> args;  // after argv[0]
  std::string folder;             // its working folder
  double time_limit_s = 0;        // > 0
};

struct ProgramEnding {
  bool timed_out = false;  // killed at its time limit, with its process group
  int exit_status = 0;     // when it exited
  int signal = 0;          // when a signal ended it (SIGKILL after a time out)
  std::string output;      // stdout and stderr, as they came
  bool ok() const { return !timed_out && signal == 0 && exit_status == 0; }
};

// EnvironmentError naming the program when it cannot be started (pipe, fork, its working folder, exec).
ProgramEnding run_external_program(const ExternalProgram& program);

// The executable regular file `name` names on PATH ("/usr/bin:/bin" when PATH is unset), or "" if none.
std::string find_on_path(const std::string& name);

}  // namespace tpusim
