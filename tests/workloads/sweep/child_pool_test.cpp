// The pool's time limit: a point still running at it is killed (with what it started) and comes back as a
// failure saying so, while the other points finish as usual.
#include "workloads/sweep/child_pool.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <map>

#include "tests/topologies/support/process_checks.hpp"

using tpusim::workloads::ChildOutcome;
using tpusim::workloads::ChildPool;

TEST_CASE("child pool: a point past the time limit fails saying so, and the others finish") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const int write_end = fds[1];
  std::map<std::size_t, ChildOutcome> outcomes;
  {
    ChildPool pool(3, 1.0);
    pool.start(0, [] { return std::string("quick"); });
    pool.start(1, [write_end]() -> std::string {
      const pid_t pid = ::getpid();
      [[maybe_unused]] auto n = ::write(write_end, &pid, sizeof pid);
      while (true) ::pause();
    });
    pool.start(2, [] { return std::string("quick too"); });
    while (pool.running() > 0) {
      if (auto outcome = pool.wait(60)) outcomes[outcome->tag] = *outcome;
    }
  }
  ::close(fds[1]);
  pid_t hung = 0;
  REQUIRE(::read(fds[0], &hung, sizeof hung) == static_cast<ssize_t>(sizeof hung));
  ::close(fds[0]);
  REQUIRE(outcomes.size() == 3);
  CHECK(outcomes[0].ok());
  CHECK(outcomes[0].output == "quick");
  CHECK(outcomes[2].output == "quick too");
  CHECK_FALSE(outcomes[1].ok());
  CHECK_FALSE(outcomes[1].input_error);
  CHECK(outcomes[1].output.empty());
  CHECK(outcomes[1].error ==
        "the point did not finish within 1 s; killed it (set TPUSIM_CHILD_TIME_LIMIT_S to allow more)");
  CHECK(tpusim::test_support::process_gone(hung));
}

TEST_CASE("child pool: waiting less than the time limit returns nothing yet, and kills nothing") {
  ChildPool pool(1, 3600);
  pool.start(7, []() -> std::string {
    ::usleep(300000);
    return "slow but in time";
  });
  CHECK_FALSE(pool.wait(0.01).has_value());
  std::optional<ChildOutcome> outcome;
  while (!outcome) outcome = pool.wait(60);
  CHECK(outcome->tag == 7);
  CHECK(outcome->output == "slow but in time");
}
