#pragma once
// Runs a function in a fork()ed child and returns its string result. SimGrid allows one engine per process,
// so sweeps and benchmarks run every simulation in its own child. An InputError or EnvironmentError in the
// child comes back as the same type; any other failure (exception, crash, signal) as std::runtime_error.
//
// The two halves of the protocol (finish_child, decode_child) are public so that a pool running several
// children at once (workloads/sweep/child_pool.hpp) speaks the same protocol as run_in_child.
#include <sys/types.h>

#include <functional>
#include <stdexcept>
#include <string>

namespace tpusim {

struct ChildResult {
  std::string output;
  double wall_s = 0;        // measured by the parent from fork to exit
  double peak_rss_mib = 0;  // the child's maximum resident set (getrusage via wait4)
};

// A child still running after `time_limit_s` (child_time_limit_s() when not given) is killed, with the
// children it started, and reported as a std::runtime_error saying so and how to raise the limit.
ChildResult run_in_child(const std::function<std::string()>& work);
ChildResult run_in_child(const std::function<std::string()>& work, double time_limit_s);

// What run_in_child throws when its `interrupted` returns true: the child (and those it started) killed and
// reaped.
struct ChildInterrupted : std::runtime_error {
  ChildInterrupted() : std::runtime_error("interrupted: the child process was ended") {}
};
// As above, asking `interrupted` at least every kInterruptPoll_s while the child runs, so that a caller with
// signals of its own to honour (the Python interpreter's KeyboardInterrupt) can end the wait.
constexpr double kInterruptPoll_s = 0.05;
ChildResult run_in_child(const std::function<std::string()>& work, double time_limit_s,
                         const std::function<bool()>& interrupted);

// Forks a child that runs `in_child` (if given) and then `work`, its result going to a pipe as finish_child
// writes it; returns the child's pid and the pipe's read end (close-on-exec) to the parent. The child dies
// with the parent (PR_SET_PDEATHSIG), so that killing a child ends every child it started in turn. Output
// buffered in the parent is flushed first, so that the child cannot write it again. Throws
// std::runtime_error when the pipe or the fork fails.
struct ForkedChild {
  pid_t pid;
  int read_fd;
};
ForkedChild fork_child(const std::function<std::string()>& work, const std::function<void()>& in_child = {});

// In the child: runs `work`, writes its result, or the kind and message of what it threw, to `fd`, and exits
// without atexit handlers (SimGrid's) or flushing the parent's buffered output.
[[noreturn]] void finish_child(int fd, const std::function<std::string()>& work);

// In the parent: how a child ended, from what it wrote and its wait status.
struct ChildEnding {
  enum class Kind { ok, input_error, environment_error, failure };
  Kind kind = Kind::failure;
  std::string text;  // the work's result (ok), else the error message (a crash or a signal named)
};
ChildEnding decode_child(const std::string& message, int wait_status);

}  // namespace tpusim
