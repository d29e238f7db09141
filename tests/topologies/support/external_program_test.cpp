// Running an external program with a time limit: its output and exit status come back; one past its limit
// is killed with everything it started, even what holds its output open; one that cannot start is an
// EnvironmentError; the limits read from the environment accept seconds only.
#include "topologies/support/external_program.hpp"

#include <stdlib.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <filesystem>
#include <fstream>

#include "input_error_of.hpp"
#include "process_checks.hpp"
#include "topologies/support/child_time_limit.hpp"
#include "topologies/support/environment_error.hpp"

using namespace tpusim;
using tpusim::test_support::input_error_of;
using tpusim::test_support::process_gone;
using tpusim::test_support::read_pids;
namespace fs = std::filesystem;

namespace {

// A folder of its own for each test, removed afterwards.
struct Folder {
  fs::path path;
  Folder() {
    std::string pattern = (fs::temp_directory_path() / "tpusim-program-test-XXXXXX").string();
    path = ::mkdtemp(pattern.data());
  }
  ~Folder() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
};

ProgramEnding shell(const Folder& folder, const std::string& script, double limit_s) {
  return run_external_program({"/bin/sh", {"-c", script}, folder.path.string(), limit_s});
}

// Sets an environment variable for the life of the object.
struct Variable {
  std::string name;
  Variable(std::string n, const char* value) : name(std::move(n)) {
    if (value == nullptr) {
      ::unsetenv(name.c_str());
    } else {
      ::setenv(name.c_str(), value, 1);
    }
  }
  ~Variable() { ::unsetenv(name.c_str()); }
};

}  // namespace

TEST_CASE("external program: output, exit status and working folder come back") {
  const Folder folder;
  const auto ok = shell(folder, "pwd; echo to-stderr >&2; touch made-here", 30);
  CHECK(ok.ok());
  CHECK(ok.output == fs::canonical(folder.path).string() + "\nto-stderr\n");
  CHECK(fs::exists(folder.path / "made-here"));
  const auto failed = shell(folder, "exit 3", 30);
  CHECK_FALSE(failed.ok());
  CHECK(failed.exit_status == 3);
  CHECK_FALSE(failed.timed_out);
  const auto killed = shell(folder, "kill -TERM $$", 30);
  CHECK(killed.signal == SIGTERM);
}

TEST_CASE("external program: past its time limit it is killed with everything it started") {
  const Folder folder;
  const std::string pids = (folder.path / "pids").string();
  // The shell and its `sleep` both hold the output pipe: both must go for the run to end.
  const auto ending = shell(folder, "echo $$ > " + pids + "; sleep 1000 & echo $! >> " + pids + "; wait", 1);
  CHECK(ending.timed_out);
  CHECK(ending.signal == SIGKILL);
  CHECK_FALSE(ending.ok());
  const auto started = read_pids(pids);
  REQUIRE(started.size() == 2);
  for (const pid_t pid : started) CHECK(process_gone(pid));
}

TEST_CASE("external program: one that exits while what it started holds its output returns, and that goes") {
  const Folder folder;
  const std::string pids = (folder.path / "pids").string();
  const auto ending = shell(folder, "sleep 1000 & echo $! > " + pids + "; echo done", 60);
  CHECK_FALSE(ending.timed_out);
  CHECK(ending.ok());
  CHECK(ending.output == "done\n");
  const auto started = read_pids(pids);
  REQUIRE(started.size() == 1);
  CHECK(process_gone(started[0]));
}

TEST_CASE("external program: one that cannot start is an EnvironmentError naming it") {
  const Folder folder;
  CHECK_THROWS_MATCHES(run_external_program({"/nonexistent/gnuplot", {}, folder.path.string(), 30}),
                       EnvironmentError,
                       Catch::Message("cannot run /nonexistent/gnuplot: No such file or directory"));
  const std::string missing = (folder.path / "missing").string();
  CHECK_THROWS_MATCHES(run_external_program({"/bin/sh", {"-c", "true"}, missing, 30}), EnvironmentError,
                       Catch::Message("cannot run /bin/sh in '" + missing + "': No such file or directory"));
}

TEST_CASE("external program: find_on_path finds executable files only") {
  const Folder folder;
  std::ofstream(folder.path / "tool") << "#!/bin/sh\n";
  fs::create_directory(folder.path / "dir-tool");
  const Variable path("PATH", (folder.path.string() + ":/bin").c_str());
  CHECK(find_on_path("tool").empty());  // not executable yet
  fs::permissions(folder.path / "tool", fs::perms::owner_all);
  CHECK(find_on_path("tool") == (folder.path / "tool").string());
  CHECK(find_on_path("dir-tool").empty());
  CHECK(find_on_path("sh") == "/bin/sh");
}

TEST_CASE("time limits from the environment: seconds, or one line naming the variable") {
  const char* name = "TPUSIM_TEST_TIME_LIMIT_S";
  {
    const Variable unset(name, nullptr);
    CHECK(time_limit_from_environment(name, 60) == 60);
  }
  for (const auto& [text, seconds] : std::vector<std::pair<const char*, double>>{
           {"1", 1}, {"0.25", 0.25}, {"604800", 604800}, {"007", 7}}) {
    const Variable set(name, text);
    CHECK(time_limit_from_environment(name, 60) == seconds);
  }
  for (const char* bad : {"", "0", "0.0", "-1", "1e3", "abc", " 5", "5 ", "1.", ".5", "604800.5", "inf",
                          "nan", "99999999999999999999"}) {
    INFO(bad);
    const Variable set(name, bad);
    CHECK(input_error_of([&] { time_limit_from_environment(name, 60); }) ==
          std::string(name) + ": '" + bad +
              "' is not a time limit: expected a number of seconds more than 0 and at most 604800 (a week)");
  }
}
