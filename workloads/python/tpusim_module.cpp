// _tpusim: the compiled half of the Python front end (the package tpusim, beside this file, is the other).
// It runs the tpusim command line (run_command_line) in a child process, as the command line runs every
// simulation of a sweep: SimGrid keeps global state and allows one simulation per process, and a crash or a
// time limit then ends the child, never the Python interpreter. The child's stdout and stderr are captured in
// memory files and handed back with its exit status; the package turns --json output into Python objects and
// a non-zero status into an exception carrying the same one-line message.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "topologies/support/child_process.hpp"
#include "topologies/support/child_time_limit.hpp"
#include "topologies/support/environment_error.hpp"
#include "workloads/cli/command_line.hpp"
#include "workloads/cli/exit_status.hpp"

namespace py = pybind11;

namespace {

// An anonymous in-memory file that takes the place of `target_fd` (1 or 2) in the child.
int capture(int target_fd, const char* name) {
  const int fd = ::memfd_create(name, 0);
  if (fd < 0 || ::dup2(fd, target_fd) < 0) {
    throw tpusim::EnvironmentError(std::string("cannot capture the output of tpusim: ") + name);
  }
  return fd;
}

std::string contents(int fd) {
  std::string text;
  char buffer[65536];
  ::lseek(fd, 0, SEEK_SET);
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;) text.append(buffer, std::size_t(n));
  return text;
}

// In the child: the command line on `args`, with what it prints. JSON carries the three back through the
// child's result pipe; invalid UTF-8 (none is expected) is replaced rather than failing the call.
std::string command_in_child(const std::vector<std::string>& args) {
  std::cout.flush();
  std::fflush(nullptr);
  const int out_fd = capture(STDOUT_FILENO, "tpusim-stdout");
  const int err_fd = capture(STDERR_FILENO, "tpusim-stderr");
  std::vector<std::string> words{"tpusim"};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  const int status = tpusim::cli::run_command_line(static_cast<int>(words.size()), argv.data());
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  const nlohmann::json result = {{"status", status}, {"out", contents(out_fd)}, {"err", contents(err_fd)}};
  return result.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Whether a signal handler of the interpreter's raised (KeyboardInterrupt on SIGINT): Python runs its
// handlers only when the main thread asks, and that thread is waiting here.
bool interpreter_interrupted() {
  py::gil_scoped_acquire held;
  return PyErr_CheckSignals() != 0;
}

// The command line's exit status, stdout and stderr for `args` (without the program's name). A child that
// crashes or passes its time limit raises RuntimeError naming what happened; an interrupt ends the child and
// raises what the interpreter's handler raised, within tpusim::kInterruptPoll_s.
std::tuple<int, std::string, std::string> command(const std::vector<std::string>& args) {
  std::string output;
  try {
    // Other Python threads go on while the child runs; the child itself never touches the interpreter.
    py::gil_scoped_release released;
    output = tpusim::run_in_child([&] { return command_in_child(args); }, tpusim::child_time_limit_s(),
                                  interpreter_interrupted)
                 .output;
  } catch (const tpusim::ChildInterrupted&) {
    throw py::error_already_set();
  }
  const auto result = nlohmann::json::parse(output);
  return {result.at("status").get<int>(), result.at("out").get<std::string>(),
          result.at("err").get<std::string>()};
}

}  // namespace

PYBIND11_MODULE(_tpusim, module) {
  module.doc() = "The tpusim command line, run in a child process per call (see the tpusim package).";
  module.attr("version") = TPUSIM_VERSION;
  py::dict statuses;
  for (const auto& status : tpusim::cli::kExitStatuses) {
    statuses[py::int_(status.code)] = py::make_tuple(std::string(status.name), std::string(status.meaning));
  }
  module.attr("exit_statuses") = statuses;
  module.def("command", &command, py::arg("args"),
             "Runs `tpusim ARGS...` in a child process; returns (exit status, stdout, stderr).");
}
