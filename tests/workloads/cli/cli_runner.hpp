#pragma once
// Runs the built `tpusim` binary as a user would: a fresh empty working directory per test, stdin from
// /dev/null, stdout and stderr captured (into files beside, not inside, the working directory, so that the
// working directory shows exactly what tpusim wrote).
#include <filesystem>
#include <string>
#include <vector>

namespace tpusim::cli_test {

struct CliRun {
  int exit_status = -1;  // -1 when killed by a signal (see signal)
  int signal = 0;
  std::string out;
  std::string err;

  std::vector<std::string> err_lines() const;  // stderr split at '\n'
  std::string describe() const;                // for failure messages: status, stdout head, stderr
};

// A temporary directory with a `work` subdirectory as the working directory of every run; removed when the
// object is destroyed.
class Scratch {
 public:
  Scratch();
  ~Scratch();
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;

  const std::filesystem::path& work() const { return work_; }
  CliRun run(const std::vector<std::string>& args) const;
  // Any program, in the same way: words[0] is its path.
  CliRun run_program(const std::vector<std::string>& words) const;
  // The same as a user without privileges: when the tests run as root (who may write anywhere, whatever the
  // permissions), tpusim runs as nobody through setpriv, so that read-only folders are read-only to it.
  CliRun run_unprivileged(const std::vector<std::string>& args) const;
  // Everything under work() (directories end in '/'), as paths relative to it, sorted.
  std::vector<std::string> entries() const;

 private:
  CliRun spawn(std::vector<std::string> words) const;

  std::filesystem::path root_;
  std::filesystem::path work_;
};

// The algorithm names of the collective, or of every collective (each name once), in the registry's order as
// `tpusim collective --list-algorithms --json` lists them: the lists messages name as the valid ones, built
// from the table so that a new row changes no test.
std::vector<std::string> listed_algorithms(const std::string& collective = "");
std::string joined(const std::vector<std::string>& names);  // "a, b, c"

}  // namespace tpusim::cli_test
