#include "topologies/support/child_process.hpp"

#include <stdlib.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <stdexcept>

#include "process_checks.hpp"
#include "topologies/support/environment_error.hpp"
#include "topologies/support/input_error.hpp"

using namespace tpusim;

TEST_CASE("a child's result comes back, with its wall time and peak memory") {
  const ChildResult child = run_in_child([] { return std::string(100000, 'x'); });
  CHECK(child.output == std::string(100000, 'x'));
  CHECK(child.wall_s > 0);
  CHECK(child.peak_rss_mib > 0);
}

TEST_CASE("a child's input and environment errors come back as the same types") {
  CHECK_THROWS_AS(run_in_child([]() -> std::string { throw InputError("bad key 'x'"); }), InputError);
  CHECK_THROWS_WITH(run_in_child([]() -> std::string { throw InputError("bad key 'x'"); }), "bad key 'x'");
  CHECK_THROWS_AS(run_in_child([]() -> std::string { throw EnvironmentError("disk full"); }),
                  EnvironmentError);
  CHECK_THROWS_WITH(run_in_child([]() -> std::string { throw EnvironmentError("disk full"); }), "disk full");
}

TEST_CASE("any other failure of a child is a runtime error") {
  CHECK_THROWS_AS(run_in_child([]() -> std::string { throw std::logic_error("boom"); }), std::runtime_error);
  CHECK_THROWS_AS(run_in_child([]() -> std::string {
                    std::raise(SIGKILL);
                    return "";
                  }),
                  std::runtime_error);
}

TEST_CASE("a child past its time limit is killed, with the children it started, and says so") {
  // The child starts a grandchild that would run for ever, tells us both pids, and waits on it.
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const int write_end = fds[1];
  CHECK_THROWS_MATCHES(run_in_child(
                           [write_end]() -> std::string {
                             const pid_t child = ::getpid();
                             return run_in_child(
                                        [write_end, child]() -> std::string {
                                          const pid_t pids[2] = {child, ::getpid()};
                                          [[maybe_unused]] auto n = ::write(write_end, pids, sizeof pids);
                                          while (true) ::pause();
                                        },
                                        3600)
                                 .output;
                           },
                           1),
                       std::runtime_error,
                       Catch::Message("a simulation in a child process did not finish within 1 s; killed it "
                                      "(set TPUSIM_CHILD_TIME_LIMIT_S to allow more)"));
  ::close(fds[1]);
  pid_t pids[2] = {0, 0};
  REQUIRE(::read(fds[0], pids, sizeof pids) == static_cast<ssize_t>(sizeof pids));
  ::close(fds[0]);
  CHECK(tpusim::test_support::process_gone(pids[0]));
  CHECK(tpusim::test_support::process_gone(pids[1]));
}

TEST_CASE("a child's time limit comes from TPUSIM_CHILD_TIME_LIMIT_S, checked before it starts") {
  ::setenv("TPUSIM_CHILD_TIME_LIMIT_S", "soon", 1);
  CHECK_THROWS_MATCHES(
      run_in_child([] { return std::string("never run"); }), InputError,
      Catch::Message("TPUSIM_CHILD_TIME_LIMIT_S: 'soon' is not a time limit: expected a number "
                     "of seconds more than 0 and at most 604800 (a week)"));
  ::setenv("TPUSIM_CHILD_TIME_LIMIT_S", "0.5", 1);
  CHECK_THROWS_WITH(run_in_child([]() -> std::string {
                      while (true) ::pause();
                    }),
                    Catch::StartsWith("a simulation in a child process did not finish within 0.5 s"));
  ::unsetenv("TPUSIM_CHILD_TIME_LIMIT_S");
  CHECK(run_in_child([] { return std::string("in time"); }).output == "in time");
}
