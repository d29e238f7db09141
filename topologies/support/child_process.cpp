#include "topologies/support/child_process.hpp"

#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>

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

ChildResult run_in_child(const std::function<std::string()>& work) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
  std::fflush(stdout);
  std::fflush(stderr);
  const auto started = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int error = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error(fmt::format("fork: {}", std::strerror(error)));
  }
  if (pid == 0) {
    ::close(fds[0]);
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
    write_all(fds[1], message);
    ::close(fds[1]);
    std::fflush(stdout);
    ::_exit(0);  // skip atexit handlers (SimGrid's) and the parent's buffered output
  }
  ::close(fds[1]);
  std::string message;
  char buffer[65536];
  while (true) {
    const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    message.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  struct rusage usage {};
  while (::wait4(pid, &status, 0, &usage) < 0) {
    if (errno != EINTR) throw std::runtime_error(fmt::format("wait4: {}", std::strerror(errno)));
  }
  ChildResult result;
  result.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  result.peak_rss_mib = static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux reports KiB
  if (WIFSIGNALED(status))
    throw std::runtime_error(fmt::format("child process killed by signal {}", WTERMSIG(status)));
  if (message.empty())
    throw std::runtime_error(
        fmt::format("child process exited with status {} and no result", WEXITSTATUS(status)));
  const char kind = message.front();
  message.erase(message.begin());
  if (kind == kInputError) throw InputError(message);
  if (kind == kEnvironmentError) throw EnvironmentError(message);
  if (kind == kFailure) throw std::runtime_error(message);
  result.output = std::move(message);
  return result;
}

}  // namespace tpusim
