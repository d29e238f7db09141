#include "topologies/support/external_program.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "topologies/support/environment_error.hpp"
#include "topologies/support/text.hpp"

namespace tpusim {
namespace {

using Clock = std::chrono::steady_clock;

// What the child reports through its status pipe when it cannot become the program.
struct StartFailure {
  int step;  // 0 the working folder, 1 exec
  int error;
};

// Between fork and exec only async-signal-safe calls: the words and paths are prepared before the fork.
[[noreturn]] void become(const ExternalProgram& program, char* const argv[], int output_fd, int status_fd,
                         pid_t parent) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);
  const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
  ::dup2(output_fd, STDOUT_FILENO);
  ::dup2(output_fd, STDERR_FILENO);
  StartFailure failure{0, 0};
  if (::chdir(program.folder.c_str()) == 0) {
    ::execv(program.path.c_str(), argv);
    failure.step = 1;
  }
  failure.error = errno;
  [[maybe_unused]] const ssize_t written = ::write(status_fd, &failure, sizeof failure);
  ::_exit(127);
}

// Whether `pid` has exited, without reaping it: while it is not reaped its process group's id cannot be
// given to another process, so killing the group afterwards cannot hit a stranger.
bool has_exited(pid_t pid) {
  siginfo_t info{};
  return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
         info.si_pid == pid;
}

double seconds_until(Clock::time_point deadline) {
  return std::chrono::duration<double>(deadline - Clock::now()).count();
}

// Reads the program's output until the pipe ends, the program exits (what it started may hold the pipe
// open after it), or the deadline passes (false).
bool read_output(pid_t pid, int fd, Clock::time_point deadline, std::string& output) {
  char buffer[4096];
  while (true) {
    const double left_s = seconds_until(deadline);
    if (left_s <= 0) return false;
    pollfd ready{fd, POLLIN, 0};
    // Woken at least every 100 ms to see whether the program exited with its output still held open.
    const int polled = ::poll(&ready, 1, static_cast<int>(std::min(left_s, 0.1) * 1000) + 1);
    if (polled < 0 && errno != EINTR) throw std::runtime_error(fmt::format("poll: {}", std::strerror(errno)));
    if (polled > 0) {
      const ssize_t n = ::read(fd, buffer, sizeof buffer);
      if (n > 0) {
        output.append(buffer, static_cast<std::size_t>(n));
        continue;
      }
      if (n == 0 || (errno != EINTR && errno != EAGAIN)) return true;
      continue;
    }
    if (has_exited(pid)) {
      // What it wrote last, without waiting for those that still hold the pipe.
      ::fcntl(fd, F_SETFL, O_NONBLOCK);
      ssize_t n;
      while ((n = ::read(fd, buffer, sizeof buffer)) > 0) output.append(buffer, static_cast<std::size_t>(n));
      return true;
    }
  }
}

// Waits for the program to exit (it may close its output before it does) until the deadline (false).
bool wait_for_exit(pid_t pid, Clock::time_point deadline) {
  while (!has_exited(pid)) {
    if (seconds_until(deadline) <= 0) return false;
    ::usleep(10000);
  }
  return true;
}

}  // namespace

std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  for (const auto& folder : split(path != nullptr ? path : "/usr/bin:/bin", ':')) {
    const std::string candidate = (folder.empty() ? std::string(".") : folder) + "/" + name;
    struct stat info {};
    if (::stat(candidate.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
        ::access(candidate.c_str(), X_OK) == 0)
      return candidate;
  }
  return "";
}

ProgramEnding run_external_program(const ExternalProgram& program) {
  std::vector<std::string> words = {program.path};
  words.insert(words.end(), program.args.begin(), program.args.end());
  std::vector<char*> argv;
  for (auto& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  int output[2], status[2];
  if (::pipe2(output, O_CLOEXEC) != 0)
    throw EnvironmentError(fmt::format("cannot run {}: pipe: {}", program.path, std::strerror(errno)));
  if (::pipe2(status, O_CLOEXEC) != 0) {
    const int error = errno;
    ::close(output[0]);
    ::close(output[1]);
    throw EnvironmentError(fmt::format("cannot run {}: pipe: {}", program.path, std::strerror(error)));
  }
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(program.time_limit_s));
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) become(program, argv.data(), output[1], status[1], parent);
  const int fork_error = errno;
  ::close(output[1]);
  ::close(status[1]);
  if (pid < 0) {
    ::close(output[0]);
    ::close(status[0]);
    throw EnvironmentError(fmt::format("cannot run {}: fork: {}", program.path, std::strerror(fork_error)));
  }
  // Set on both sides, so that the group exists whichever runs first.
  ::setpgid(pid, pid);
  StartFailure failure{};
  ssize_t got;
  while ((got = ::read(status[0], &failure, sizeof failure)) < 0 && errno == EINTR) {
  }
  ::close(status[0]);
  ProgramEnding ending;
  if (got == static_cast<ssize_t>(sizeof failure)) {
    ::close(output[0]);
    int ignored = 0;
    while (::waitpid(pid, &ignored, 0) < 0 && errno == EINTR) {
    }
    throw EnvironmentError(
        failure.step == 0 ? fmt::format("cannot run {} in '{}': {}", program.path, program.folder,
                                        std::strerror(failure.error))
                          : fmt::format("cannot run {}: {}", program.path, std::strerror(failure.error)));
  }
  try {
    ending.timed_out = !read_output(pid, output[0], deadline, ending.output) || !wait_for_exit(pid, deadline);
  } catch (...) {
    ::kill(-pid, SIGKILL);
    ::close(output[0]);
    int ignored = 0;
    while (::waitpid(pid, &ignored, 0) < 0 && errno == EINTR) {
    }
    throw;
  }
  // The whole group after a time out; otherwise whatever the program left running.
  ::kill(-pid, SIGKILL);
  ::close(output[0]);
  int wait_status = 0;
  while (::waitpid(pid, &wait_status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error(fmt::format("waitpid: {}", std::strerror(errno)));
  }
  if (WIFSIGNALED(wait_status)) ending.signal = WTERMSIG(wait_status);
  if (WIFEXITED(wait_status)) ending.exit_status = WEXITSTATUS(wait_status);
  return ending;
}

}  // namespace tpusim
