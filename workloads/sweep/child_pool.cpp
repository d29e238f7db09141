#include "workloads/sweep/child_pool.hpp"

#include <fmt/format.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "topologies/support/child_process.hpp"
#include "topologies/support/child_time_limit.hpp"

namespace tpusim::workloads {
namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

int online_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  const long online = ::sysconf(_SC_NPROCESSORS_ONLN);
  return online > 0 ? static_cast<int>(online) : 1;
}

ChildPool::ChildPool(int jobs) : ChildPool(jobs, child_time_limit_s()) {}

ChildPool::ChildPool(int jobs, double time_limit_s)
    : jobs_(jobs < 1 ? 1 : jobs), time_limit_s_(time_limit_s) {}

ChildPool::~ChildPool() {
  for (auto& [fd, child] : children_) {
    ::kill(child.pid, SIGKILL);
    ::close(fd);
    int status = 0;
    while (::waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
}

void ChildPool::start(std::size_t tag, const std::function<std::string()>& work) {
  const double started = now_s();
  const ForkedChild child = fork_child(work, [&] {
    // The read ends of the other children's pipes are inherited too: close them, so that this child holds
    // nothing of theirs.
    for (const auto& [fd, other] : children_) ::close(fd);
  });
  children_[child.read_fd] = Child{child.pid, tag, {}, started, started + time_limit_s_};
}

std::optional<ChildOutcome> ChildPool::wait(double timeout_s) {
  if (children_.empty()) return std::nullopt;
  const double deadline = now_s() + timeout_s;
  std::vector<pollfd> fds;
  while (true) {
    fds.clear();
    double wake = deadline;  // the caller's deadline, or the first child's time limit before it
    for (const auto& [fd, child] : children_) {
      fds.push_back(pollfd{fd, POLLIN, 0});
      wake = std::min(wake, child.deadline_s);
    }
    if (auto late = overdue(); late) return late;
    const double left = wake - now_s();
    const int ready = ::poll(fds.data(), fds.size(), left <= 0 ? 0 : static_cast<int>(left * 1000) + 1);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) throw std::runtime_error(fmt::format("poll: {}", std::strerror(errno)));
    for (const auto& p : fds) {
      if (p.revents == 0) continue;
      auto it = children_.find(p.fd);
      char buffer[65536];
      const ssize_t n = ::read(p.fd, buffer, sizeof buffer);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n > 0) {
        it->second.message.append(buffer, static_cast<std::size_t>(n));
        continue;
      }
      // End of file: the child has written everything and is exiting (or died).
      Child child = std::move(it->second);
      children_.erase(it);
      return reap(p.fd, std::move(child));
    }
    if (ready == 0 && now_s() >= deadline) return std::nullopt;
  }
}

std::optional<ChildOutcome> ChildPool::overdue() {
  const double now = now_s();
  for (auto it = children_.begin(); it != children_.end(); ++it) {
    if (it->second.deadline_s > now) continue;
    // Its own children die with it (fork_child's PR_SET_PDEATHSIG).
    ::kill(it->second.pid, SIGKILL);
    const int fd = it->first;
    Child child = std::move(it->second);
    children_.erase(it);
    ChildOutcome outcome = reap(fd, std::move(child));
    outcome.output.clear();
    outcome.input_error = false;
    outcome.error = time_limit_message("the point", time_limit_s_, child_time_limit_hint());
    return outcome;
  }
  return std::nullopt;
}

ChildOutcome ChildPool::reap(int fd, Child child) {
  ::close(fd);
  int status = 0;
  struct rusage usage {};
  while (::wait4(child.pid, &status, 0, &usage) < 0) {
    if (errno != EINTR) throw std::runtime_error(fmt::format("wait4: {}", std::strerror(errno)));
  }
  ChildOutcome outcome;
  outcome.tag = child.tag;
  outcome.wall_s = now_s() - child.started_s;
  outcome.peak_rss_mib = static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux reports KiB
  const ChildEnding ending = decode_child(child.message, status);
  if (ending.kind == ChildEnding::Kind::ok) {
    outcome.output = ending.text;
  } else {
    outcome.error = ending.text;
    outcome.input_error = ending.kind == ChildEnding::Kind::input_error;
  }
  return outcome;
}

}  // namespace tpusim::workloads
