#include "topologies/support/child_process.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <stdexcept>

#include "topologies/support/child_time_limit.hpp"
#include "topologies/support/environment_error.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim {
namespace {

// The first byte of the child's message says how it ended.
constexpr char kOk = 'O';
constexpr char kInputError = 'E';
constexpr char kEnvironmentError = 'V';
constexpr char kFailure = 'F';

void write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

void finish_child(int fd, const std::function<std::string()>& work) {
  std::string message;
  try {
    message = kOk + work();
  } catch (const InputError& error) {
    message = std::string(1, kInputError) + error.what();
  } catch (const EnvironmentError& error) {
    message = std::string(1, kEnvironmentError) + error.what();
  } catch (const std::exception& error) {
    message = std::string(1, kFailure) + error.what();
  } catch (...) {
    message = std::string(1, kFailure) + "unknown exception";
  }
  write_all(fd, message);
  ::close(fd);
  std::fflush(stdout);
  ::_exit(0);
}

ChildEnding decode_child(const std::string& message, int wait_status) {
  using Kind = ChildEnding::Kind;
  if (WIFSIGNALED(wait_status)) {
    return {Kind::failure, fmt::format("child process killed by signal {} ({})", WTERMSIG(wait_status),
                                       ::strsignal(WTERMSIG(wait_status)))};
  }
  if (message.empty()) {
    return {Kind::failure,
            fmt::format("child process exited with status {} and no result", WEXITSTATUS(wait_status))};
  }
  const std::string text = message.substr(1);
  switch (message.front()) {
    case kOk:
      return {Kind::ok, text};
    case kInputError:
      return {Kind::input_error, text};
    case kEnvironmentError:
      return {Kind::environment_error, text};
    default:
      return {Kind::failure, text};
  }
}

ForkedChild fork_child(const std::function<std::string()>& work, const std::function<void()>& in_child) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int error = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error(fmt::format("fork: {}", std::strerror(error)));
  }
  if (pid == 0) {
    ::close(fds[0]);
    // The child dies with its parent, which may have died between fork and prctl already: a child killed
    // at its time limit takes the children it started with it, and nobody is left to read their results.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);
    if (in_child) in_child();
    finish_child(fds[1], work);
  }
  ::close(fds[1]);
  return {pid, fds[0]};
}

ChildResult run_in_child(const std::function<std::string()>& work) {
  return run_in_child(work, child_time_limit_s());
}

ChildResult run_in_child(const std::function<std::string()>& work, double time_limit_s) {
  return run_in_child(work, time_limit_s, {});
}

ChildResult run_in_child(const std::function<std::string()>& work, double time_limit_s,
                         const std::function<bool()>& interrupted) {
  using Clock = std::chrono::steady_clock;
  const auto started = Clock::now();
  const auto deadline =
      started + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(time_limit_s));
  const ForkedChild child = fork_child(work);
  const pid_t pid = child.pid;
  std::string message;
  char buffer[65536];
  bool timed_out = false, stopped = false;
  std::string poll_error;
  const double wait_s = interrupted ? kInterruptPoll_s : 3600.0;
  while (true) {
    const double left_s = std::chrono::duration<double>(deadline - Clock::now()).count();
    if (left_s <= 0) {
      timed_out = true;
      break;
    }
    pollfd ready{child.read_fd, POLLIN, 0};
    const int polled = ::poll(&ready, 1, static_cast<int>(std::min(left_s, wait_s) * 1000) + 1);
    if (polled < 0 && errno != EINTR) {
      poll_error = std::strerror(errno);
      break;
    }
    if (polled <= 0) {
      if (interrupted && interrupted()) {
        stopped = true;
        break;
      }
      continue;
    }
    const ssize_t n = ::read(child.read_fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    message.append(buffer, static_cast<std::size_t>(n));
  }
  // Its own children die with it (fork_child's PR_SET_PDEATHSIG).
  if (timed_out || stopped || !poll_error.empty()) ::kill(pid, SIGKILL);
  ::close(child.read_fd);
  int status = 0;
  struct rusage usage {};
  while (::wait4(pid, &status, 0, &usage) < 0) {
    if (errno != EINTR) throw std::runtime_error(fmt::format("wait4: {}", std::strerror(errno)));
  }
  if (stopped) throw ChildInterrupted();
  if (!poll_error.empty()) throw std::runtime_error(fmt::format("poll: {}", poll_error));
  if (timed_out) {
    throw std::runtime_error(
        time_limit_message("a simulation in a child process", time_limit_s, child_time_limit_hint()));
  }
  ChildResult result;
  result.wall_s = std::chrono::duration<double>(Clock::now() - started).count();
  result.peak_rss_mib = static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux reports KiB
  ChildEnding ending = decode_child(message, status);
  switch (ending.kind) {
    case ChildEnding::Kind::ok:
      result.output = std::move(ending.text);
      return result;
    case ChildEnding::Kind::input_error:
      throw InputError(ending.text);
    case ChildEnding::Kind::environment_error:
      throw EnvironmentError(ending.text);
    case ChildEnding::Kind::failure:
      break;
  }
  throw std::runtime_error(ending.text);
}

}  // namespace tpusim
