#include "workloads/report/gnuplot.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "topologies/support/environment_error.hpp"
#include "topologies/support/text.hpp"

extern char** environ;

namespace tpusim::workloads {

const char* const kGnuplotMissing =
    "gnuplot is not installed, so no plots were drawn (apt-get install gnuplot-nox, or .ci/install-deps)";

namespace {

// gnuplot's own message for a failed script ends with the line naming the script, line and problem; earlier
// lines echo the command with a caret under the fault, and warnings can say more ("No data in plot" follows
// the warning naming the missing file).
std::string gnuplot_message(const std::string& output) {
  std::string last, warning;
  for (const auto& line : split(output, '\n')) {
    const auto start = line.find_first_not_of(" \t\r^");
    if (start == std::string::npos) continue;
    last = line.substr(start);
    const auto at = last.find("warning: ");
    if (at != std::string::npos) warning = last.substr(at);
  }
  return warning.empty() || last.find(warning) != std::string::npos ? last : last + " (" + warning + ")";
}

// Closes the spawn attributes however the spawn went.
struct SpawnActions {
  posix_spawn_file_actions_t actions;
  SpawnActions() { posix_spawn_file_actions_init(&actions); }
  ~SpawnActions() { posix_spawn_file_actions_destroy(&actions); }
  SpawnActions(const SpawnActions&) = delete;
  SpawnActions& operator=(const SpawnActions&) = delete;
};

}  // namespace

bool gnuplot_available() {
  const char* path = std::getenv("PATH");
  for (const auto& folder : split(path != nullptr ? path : "/usr/bin:/bin", ':')) {
    const std::string candidate = (folder.empty() ? std::string(".") : folder) + "/gnuplot";
    struct stat info {};
    if (::stat(candidate.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
        ::access(candidate.c_str(), X_OK) == 0)
      return true;
  }
  return false;
}

void require_gnuplot() {
  if (!gnuplot_available()) throw EnvironmentError(kGnuplotMissing);
}

void run_gnuplot(const std::string& folder, const std::string& script) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    throw EnvironmentError(fmt::format("cannot run gnuplot: pipe: {}", std::strerror(errno)));
  SpawnActions spawn;
  // gnuplot reads nothing but its script (stdin from /dev/null, so it never waits for a terminal) and its
  // messages come back here rather than onto tpusim's own output.
  posix_spawn_file_actions_addchdir_np(&spawn.actions, folder.c_str());
  posix_spawn_file_actions_addopen(&spawn.actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&spawn.actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&spawn.actions, fds[1], STDERR_FILENO);
  std::string program = "gnuplot", script_arg = script;
  std::vector<char*> argv = {program.data(), script_arg.data(), nullptr};
  pid_t pid = 0;
  const int spawned = ::posix_spawnp(&pid, "gnuplot", &spawn.actions, nullptr, argv.data(), environ);
  ::close(fds[1]);
  if (spawned != 0) {
    ::close(fds[0]);
    // ENOENT is also a missing working folder: only a gnuplot not on PATH is reported as missing.
    if (spawned == ENOENT && !gnuplot_available()) throw EnvironmentError(kGnuplotMissing);
    throw EnvironmentError(fmt::format("cannot run gnuplot in '{}': {}", folder, std::strerror(spawned)));
  }
  std::string output;
  char buffer[4096];
  while (true) {
    const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    output.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error(fmt::format("waitpid (gnuplot): {}", std::strerror(errno)));
  }
  if (WIFSIGNALED(status))
    throw std::runtime_error(
        fmt::format("gnuplot {}/{} was killed by signal {}", folder, script, WTERMSIG(status)));
  if (WEXITSTATUS(status) == 127 && output.empty()) throw EnvironmentError(kGnuplotMissing);
  if (WEXITSTATUS(status) != 0) {
    const std::string message = gnuplot_message(output);
    throw std::runtime_error(fmt::format("gnuplot failed on {}/{} (exit status {}){}{}", folder, script,
                                         WEXITSTATUS(status), message.empty() ? "" : ": ", message));
  }
}

}  // namespace tpusim::workloads
